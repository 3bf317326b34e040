! STOP on one image while the others go on: the last image stops at once;
! the others' CO_SUM, SYNC ALL and SYNC IMAGES with it give
! STAT_STOPPED_IMAGE (within the runtime's notice interval, not at the
! stall timeout), STOPPED_IMAGES and IMAGE_STATUS name it (gfortran:
! flang 22 does not lower them), and a team without it still works; the
! program then ends normally on every image.
program stop
  use iso_fortran_env, only: stat_stopped_image, team_type
  implicit none
  character(*), parameter :: test = 'stop'
  integer :: me, np, st, s, k
  type(team_type) :: rest
#ifndef __flang__
  integer, allocatable :: gone(:)
#endif

  me = this_image()
  np = num_images()
  form team (1 + me / np, rest)
  if (np > 1 .and. me == np) stop
  if (np > 1) then
    s = 1
    call co_sum(s, stat=st)
    call check(st == stat_stopped_image, 'co_sum with a stopped image gives STAT_STOPPED_IMAGE')
    do k = 1, 3
      call co_max(s, result_image=1, stat=st)
      call check(st == stat_stopped_image, 'co_max after the stop gives STAT_STOPPED_IMAGE')
    end do
    sync all (stat=st)
    call check(st == stat_stopped_image, 'SYNC ALL with a stopped image gives STAT_STOPPED_IMAGE')
    sync images (np, stat=st)
    call check(st == stat_stopped_image, 'SYNC IMAGES with a stopped image gives STAT_STOPPED_IMAGE')
#ifndef __flang__
    gone = stopped_images()
    call check(size(gone) == 1, 'STOPPED_IMAGES has one image')
    call check(gone(1) == np, 'STOPPED_IMAGES names the stopped image')
    call check(image_status(np) == stat_stopped_image, 'IMAGE_STATUS of the stopped image')
    call check(image_status(1) == 0, 'IMAGE_STATUS of a running image')
    call check(size(failed_images()) == 0, 'FAILED_IMAGES is empty')
#endif
  end if
  change team (rest)
    s = 1
    call co_sum(s, stat=st)
    call check(st == 0 .and. s == num_images(), 'co_sum in a team without the stopped image')
    sync all
  end team
  if (me == 1) print '(a)', 'PASS stop'

contains

  include 'check.inc'
end program
