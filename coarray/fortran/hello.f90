program hello
  print '(a,i0,a,i0)', 'Hello from image ', this_image(), ' of ', num_images()
end program
