! CO_MIN, CO_MAX, CO_BROADCAST and CO_REDUCE on character values of kind 1
! and kind 4 (UCS-4), scalars and arrays, with STAT= present (OpenCoarrays
! 2.10.1 aborts the job on character CO_MIN/CO_MAX even then).
program characters
  implicit none
  character(*), parameter :: test = 'characters'
  integer, parameter :: ucs4 = selected_char_kind('ISO_10646')
  integer :: me, np, i, st, ri
  character(len=5) :: s, a(3), e(3)
  character(len=3, kind=ucs4) :: u, ua(2)
  character(len=9) :: long

  me = this_image()
  np = num_images()
  do ri = 0, np
    s = name(me)
    call co_min(s, stat=st, result_image=ri)
    call check(st == 0, 'co_min stat')
    if (mine(ri)) call check(s == name(np), 'co_min character(5)')
    s = name(me)
    call co_max(s, stat=st, result_image=ri)
    call check(st == 0, 'co_max stat')
    if (mine(ri)) call check(s == name(1), 'co_max character(5)')
    ! arrays: element by element, shorter values blank-padded ('b' < 'b a')
    a = [character(len=5) :: name(me), 'b', repeat(achar(96 + me), 5)]
    call co_max(a, stat=st, result_image=ri)
    e = [character(len=5) :: name(1), 'b', repeat(achar(96 + np), 5)]
    if (mine(ri)) call check(st == 0 .and. all(a == e), 'co_max character array')
    a = [character(len=5) :: name(me), 'b', repeat(achar(96 + me), 5)]
    call co_min(a(3:1:-2), result_image=ri)
    e = [character(len=5) :: name(np), 'b', repeat(achar(97), 5)]
    if (mine(ri)) call check(all(a == e), 'co_min character section')
    ! four-byte characters compare as code points (U+0100 above U+00FF)
    u = ucs4_'a' // char(int(z'FF') + me, ucs4)
    call co_max(u, stat=st, result_image=ri)
    if (mine(ri)) call check(st == 0 .and. u == ucs4_'a' // char(int(z'FF') + np, ucs4), 'co_max character(kind=4)')
    ua = [ucs4_'zz' // char(1000 - me, ucs4), ucs4_'a' // char(300 + me, ucs4)]
    call co_min(ua, result_image=ri)
    if (mine(ri)) call check(ua(1) == ucs4_'zz' // char(1000 - np, ucs4) .and. ua(2) == ucs4_'a' // char(301, ucs4), &
      'co_min character(kind=4) array')
#ifndef __flang__
    ! flang 22 does not lower CO_REDUCE
    ! CO_REDUCE with a character function
    long = repeat(achar(64 + me), 9)
    long(3:3) = achar(90 - me)
    call co_reduce(long, maxchars, result_image=ri, stat=st)
    if (mine(ri)) call check(st == 0 .and. long == repeat(achar(64 + np), 2) // 'Y' // repeat(achar(64 + np), 6), &
      'co_reduce character')
#endif
  end do
  do i = 1, np
    s = name(me)
    call co_broadcast(s, i, stat=st)
    call check(st == 0 .and. s == name(i), 'co_broadcast character')
    ua = ucs4_'xy' // char(500 + me, ucs4)
    call co_broadcast(ua, i)
    call check(all(ua == ucs4_'xy' // char(500 + i, ucs4)), 'co_broadcast character(kind=4)')
  end do
  sync all
  if (me == 1) print '(a)', 'PASS characters'

contains

  ! name(i) decreases with i: 'z9', 'z8', ... then shorter ones.
  character(len=5) function name(i)
    integer, intent(in) :: i
    name = achar(123 - i) // achar(58 - i)
  end function

  ! maxchars is commutative and associative, as the standard requires.
  pure function maxchars(x, y) result(z)
    character(len=9), intent(in) :: x, y
    character(len=9) :: z
    integer :: k
    do k = 1, 9
      z(k:k) = max(x(k:k), y(k:k))
    end do
  end function


  include 'check.inc'
end program
