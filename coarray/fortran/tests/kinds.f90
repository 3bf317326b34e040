! CO_SUM, CO_MIN, CO_MAX and CO_BROADCAST on every intrinsic kind, on
! scalars, whole arrays and strided sections, with and without RESULT_IMAGE,
! against values every image computes locally.
! The widest real kind: 16 (binary128) under gfortran, 10 (x87 extended)
! under flang 22, which has no real(16) on x86-64.
#ifdef __flang__
#define QK 10
#else
#define QK 16
#endif
program kinds
  implicit none
  character(*), parameter :: test = 'kinds'
  integer, parameter :: n = 7
  integer :: me, np, i, j, ri
  integer(1) :: i1(n), e1(n)
  integer(2) :: i2(n), e2(n)
  integer(4) :: i4(n), e4(n), s4
  integer(8) :: i8(n), e8(n)
  integer(16) :: i16(n), e16(n)
  real(4) :: r4(n), f4(n)
  real(8) :: r8(n), f8(n), w(4, n), big(3, 1000)
  real(QK) :: r16(n), f16(n)
  complex(4) :: c4(n), g4(n)
  complex(8) :: c8(n), g8(n)
  complex(QK) :: c16(n), g16(n)
  logical :: l(n)

  me = this_image()
  np = num_images()
  do ri = 0, np
    ! integers: sums, minima, maxima
    i1 = [(int(v(me, j), 1), j = 1, n)]
    call co_sum(i1, result_image=ri)
    if (mine(ri)) call check(all(i1 == [(int(sumv(j), 1), j = 1, n)]), 'co_sum integer(1)')
    i2 = [(int(v(me, j), 2), j = 1, n)]
    call co_min(i2, result_image=ri)
    if (mine(ri)) call check(all(i2 == [(int(minv(j), 2), j = 1, n)]), 'co_min integer(2)')
    i4 = [(int(v(me, j), 4), j = 1, n)]
    call co_max(i4, result_image=ri)
    if (mine(ri)) call check(all(i4 == [(int(maxv(j), 4), j = 1, n)]), 'co_max integer(4)')
    i8 = [(int(v(me, j), 8), j = 1, n)]
    call co_sum(i8(1:n:2), result_image=ri) ! a strided section
    e8 = [(int(v(me, j), 8), j = 1, n)]
    e8(1:n:2) = [(int(sumv(j), 8), j = 1, n, 2)]
    if (mine(ri)) call check(all(i8 == e8), 'co_sum integer(8) section')
    i16 = [(int(v(me, j), 16) * 10_16**20, j = 1, n)]
    call co_sum(i16, result_image=ri)
    if (mine(ri)) call check(all(i16 == [(int(sumv(j), 16) * 10_16**20, j = 1, n)]), 'co_sum integer(16)')
    i16 = [(int(v(me, j), 16) * 10_16**20, j = 1, n)]
    call co_min(i16, result_image=ri)
    if (mine(ri)) call check(all(i16 == [(int(minv(j), 16) * 10_16**20, j = 1, n)]), 'co_min integer(16)')
    ! reals: sums of exactly representable values, maxima
    r4 = [(real(v(me, j), 4) / 4, j = 1, n)]
    call co_sum(r4, result_image=ri)
    if (mine(ri)) call check(all(r4 == [(real(sumv(j), 4) / 4, j = 1, n)]), 'co_sum real(4)')
    r8 = [(real(v(me, j), 8) / 8, j = 1, n)]
    call co_max(r8, result_image=ri)
    if (mine(ri)) call check(all(r8 == [(real(maxv(j), 8) / 8, j = 1, n)]), 'co_max real(8)')
    r16 = [(real(v(me, j), QK) / 3, j = 1, n)]
    call co_min(r16, result_image=ri)
    if (mine(ri)) call check(all(r16 == [(real(minv(j), QK) / 3, j = 1, n)]), 'co_min widest real')
    r16 = [(real(v(me, j), QK) / 2, j = 1, n)]
    call co_sum(r16, result_image=ri)
    if (mine(ri)) call check(all(r16 == [(real(sumv(j), QK) / 2, j = 1, n)]), 'co_sum widest real')
    ! complex
    c4 = [(cmplx(v(me, j), -me, 4), j = 1, n)]
    call co_sum(c4, result_image=ri)
    if (mine(ri)) call check(all(c4 == [(cmplx(sumv(j), -np * (np + 1) / 2, 4), j = 1, n)]), 'co_sum complex(4)')
    c8 = [(cmplx(v(me, j), me, 8), j = 1, n)]
    call co_sum(c8(n:1:-3), result_image=ri) ! negative stride
    g8 = [(cmplx(v(me, j), me, 8), j = 1, n)]
    g8(n:1:-3) = [(cmplx(sumv(j), np * (np + 1) / 2, 8), j = n, 1, -3)]
    if (mine(ri)) call check(all(c8 == g8), 'co_sum complex(8) reversed section')
    c16 = [(cmplx(v(me, j), 2 * me, QK), j = 1, n)]
    call co_sum(c16, result_image=ri)
    if (mine(ri)) call check(all(c16 == [(cmplx(sumv(j), np * (np + 1), QK), j = 1, n)]), 'co_sum widest complex')
    ! a row of a matrix: stride 4
    w = me
    call co_sum(w(2, :), result_image=ri)
    if (mine(ri)) call check(all(w(2, :) == np * (np + 1) / 2) .and. all(w(1, :) == me) .and. all(w(3:, :) == me), &
      'co_sum of a matrix row')
    ! a large 2-D section (one collective whatever its size)
    big = me
    call co_max(big(1:3:2, :), result_image=ri)
    if (mine(ri)) call check(all(big(1:3:2, :) == np) .and. all(big(2, :) == me), 'co_max 2-D section')
    ! scalar
    s4 = me
    call co_sum(s4, result_image=ri)
    if (mine(ri)) call check(s4 == np * (np + 1) / 2, 'co_sum scalar')
  end do

  ! CO_BROADCAST of every kind from every image
  do i = 1, np
    i1 = int(v(me, 1), 1); e1 = int(v(i, 1), 1)
    call co_broadcast(i1, i)
    call check(all(i1 == e1), 'co_broadcast integer(1)')
    i2 = int(me, 2); e2 = int(i, 2)
    call co_broadcast(i2(2:n:3), i)
    e2 = int(me, 2); e2(2:n:3) = int(i, 2)
    call check(all(i2 == e2), 'co_broadcast integer(2) section')
    i4 = me; e4 = i
    call co_broadcast(i4, i)
    call check(all(i4 == e4), 'co_broadcast integer(4)')
    i16 = me * 10_16**30; e16 = i * 10_16**30
    call co_broadcast(i16, i)
    call check(all(i16 == e16), 'co_broadcast integer(16)')
    r4 = me; f4 = i; r8 = me; f8 = i; r16 = me; f16 = i
    call co_broadcast(r4, i)
    call co_broadcast(r8, i)
    call co_broadcast(r16, i)
    call check(all(r4 == f4) .and. all(r8 == f8) .and. all(r16 == f16), 'co_broadcast reals')
    c4 = cmplx(me, 1, 4); g4 = cmplx(i, 1, 4); c16 = cmplx(me, 2, QK); g16 = cmplx(i, 2, QK)
    call co_broadcast(c4, i)
    call co_broadcast(c16, i)
    call check(all(c4 == g4) .and. all(c16 == g16), 'co_broadcast complex')
    l = mod(me, 2) == 0
    call co_broadcast(l, i)
    call check(all(l .eqv. mod(i, 2) == 0), 'co_broadcast logical')
  end do
  sync all
  if (me == 1) print '(a)', 'PASS kinds'

contains

  ! v is image i's value at j: small integers of both signs.
  integer function v(i, j)
    integer, intent(in) :: i, j
    v = mod(i * 7 + j * 3, 11) - 5
  end function

  integer function sumv(j)
    integer, intent(in) :: j
    integer :: k
    sumv = sum([(v(k, j), k = 1, num_images())])
  end function

  integer function minv(j)
    integer, intent(in) :: j
    integer :: k
    minv = minval([(v(k, j), k = 1, num_images())])
  end function

  integer function maxv(j)
    integer, intent(in) :: j
    integer :: k
    maxv = maxval([(v(k, j), k = 1, num_images())])
  end function


  include 'check.inc'
end program
