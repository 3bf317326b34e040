! Must fail: the last image stops; once the others know it (SYNC ALL with
! STAT= says so), a coindexed write to it ends the program with error
! termination and a message that says it has stopped.
! expect: has stopped
! gfortran only: flang 22 does not lower coarrays
program stopped_put
  use iso_fortran_env, only: stat_stopped_image
  implicit none
  integer :: a(4)[*], st
  a = 0
  sync all
  if (this_image() == num_images()) stop
  sync all (stat=st)
  if (st /= stat_stopped_image) error stop 'SYNC ALL did not see the stopped image'
  a(1)[num_images()] = 1
  print '(a)', 'the write returned: it should not have'
end program
