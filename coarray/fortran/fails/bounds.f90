! Must fail: a coindexed write past the end of the coarray (an index that
! only the run knows) ends the program with error termination and says so,
! and nothing outside the coarray is written.
! expect: outside the coarray
! gfortran only: flang 22 does not lower coarrays
program bounds
  implicit none
  integer :: a(4)[*], i
  a = 0
  i = 3 * num_images() + 7
  sync all
  a(i)[num_images()] = 1
  print '(a)', 'the write returned: it should not have'
end program
