! Must fail: a coindexed write to an image beyond the team ends the program
! with error termination and a message that names the image.
! expect: not an image of the current team
! gfortran only: flang 22 does not lower coarrays
program coindex
  implicit none
  integer :: a(4)[*]
  a = 0
  sync all
  a(2)[num_images() + 1] = 1
  print '(a)', 'the write returned: it should not have'
end program
