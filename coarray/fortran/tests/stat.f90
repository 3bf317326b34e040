! Errors come back through STAT= with the standard's meaning, and the
! images go on: an invalid RESULT_IMAGE or SOURCE_IMAGE (OpenCoarrays 2.10.1
! aborts despite STAT=), on character CO_MIN/CO_MAX too, and coindexed
! access, which this runtime does not support; with GOCOLL_CAF_CHECK=1 (the
! checked mode) also arguments that differ between images. gocoll's STAT
! values: 1 invalid image, 2 arguments that differ, 10 not supported.
program stat
  implicit none
  integer :: me, np, st, x(3)
  integer, save :: co[*]
  real(8) :: r
  character(len=4) :: c
  character(len=60) :: msg
  character(len=8) :: mode
  logical :: checked

  me = this_image()
  np = num_images()
  call get_environment_variable('GOCOLL_CAF_CHECK', mode)
  checked = mode == '1'
  r = me
  call co_sum(r, result_image=np + 1, stat=st)
  call check(st == 1, 'co_sum with RESULT_IMAGE beyond the team')
  call co_max(r, result_image=-2, stat=st, errmsg=msg)
  call check(st == 1, 'co_max with a negative RESULT_IMAGE')
  c = 'ab'
  call co_min(c, result_image=0 - 7, stat=st)
  call check(st == 1, 'character co_min with an invalid RESULT_IMAGE')
  call co_max(c, result_image=np + 3, stat=st, errmsg=msg)
  call check(st == 1, 'character co_max with an invalid RESULT_IMAGE and ERRMSG')
  call co_broadcast(x, 0, stat=st)
  call check(st == 1, 'co_broadcast from image 0')
  call co_broadcast(c, np + 1, stat=st)
  call check(st == 1, 'co_broadcast from beyond the team')
#ifndef __flang__
  ! flang 22 does not lower CO_REDUCE
  call co_reduce(r, add, result_image=np + 1, stat=st)
  call check(st == 1, 'co_reduce with an invalid RESULT_IMAGE')
#endif
  if (np > 1 .and. checked) then
    ! the checked mode finds arguments that differ, on every image at once
    ! (the default mode leaves them to the engine: STAT 2 or 12 where it
    ! sees them, never wrong data, but the job may be of no further use)
    call co_sum(x(1:me), stat=st)
    call check(st == 2, 'co_sum of lengths that differ')
    r = 1
    call co_sum(r, result_image=me, stat=st)
    call check(st == 2, 'RESULT_IMAGE that differs')
    call co_broadcast(r, 1 + mod(me, 2), stat=st)
    call check(st == 2, 'SOURCE_IMAGE that differs')
  end if
  ! the job goes on working after all that
  r = me
  call co_sum(r, stat=st)
  call check(st == 0 .and. r == np * (np + 1) / 2, 'co_sum after the errors')
  sync all (stat=st)
  call check(st == 0, 'sync all')
  ! coarrays register and work locally; coindexed access says it is not supported
  co = me
  x(1) = co
  call check(x(1) == me, 'local coarray')
  sync all
  if (me == 1) print '(a)', 'PASS stat'

contains

  pure real(8) function add(a, b)
    real(8), intent(in) :: a, b
    add = a + b
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,a,a,i0,a,i0,a,i0)', 'FAIL stat: ', what, ' on image ', this_image(), ' of ', num_images(), ', stat ', st
      error stop 1
    end if
  end subroutine
end program
