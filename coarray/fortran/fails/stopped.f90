! Must fail: the last image stops while the others call CO_SUM without
! STAT=, which ends the program with error termination and a message
! naming the stopped image (scripts/mpirun-tests.sh checks both, at np
! 2..4, under gfortran and flang).
! expect: has stopped
program stopped
  implicit none
  integer :: s
  if (this_image() == num_images()) stop
  s = 1
  call co_sum(s)
  print '(a)', 'co_sum returned: it should not have'
end program
