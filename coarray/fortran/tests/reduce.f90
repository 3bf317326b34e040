! CO_REDUCE on every integer kind (OpenCoarrays 2.10.1 gives wrong results
! for integer(1), integer(2) and integer(8)), reals, complex and logical,
! with arguments by reference and by value, with and without RESULT_IMAGE.
module ops
  implicit none
contains
  pure integer(1) function add1(a, b)
    integer(1), intent(in) :: a, b
    add1 = a + b
  end function
  pure integer(2) function mul2(a, b)
    integer(2), intent(in) :: a, b
    mul2 = a * b
  end function
  pure integer(4) function max4(a, b)
    integer(4), value :: a, b
    max4 = max(a, b)
  end function
  pure integer(8) function add8(a, b)
    integer(8), intent(in) :: a, b
    add8 = a + b
  end function
  pure integer(16) function add16(a, b)
    integer(16), value :: a, b
    add16 = a + b
  end function
  pure real(8) function addr8(a, b)
    real(8), intent(in) :: a, b
    addr8 = a + b
  end function
  pure real(16) function addr16(a, b)
    real(16), intent(in) :: a, b
    addr16 = a + b
  end function
  pure complex(8) function addc8(a, b)
    complex(8), intent(in) :: a, b
    addc8 = a + b
  end function
  pure logical function land(a, b)
    logical, intent(in) :: a, b
    land = a .and. b
  end function
end module

! gfortran only: flang 22 does not lower CO_REDUCE
program reduce
  use ops
  implicit none
  character(*), parameter :: test = 'reduce'
  integer :: me, np, ri, st, j
  integer(1) :: i1(4)
  integer(2) :: i2
  integer(4) :: i4(3)
  integer(8) :: i8(6)
  integer(16) :: i16
  real(8) :: r8(2)
  real(16) :: r16
  complex(8) :: c8(3)
  logical :: l(2)

  me = this_image()
  np = num_images()
  do ri = 0, np
    i1 = int([me, -me, 2 * me, 1], 1)
    call co_reduce(i1, add1, result_image=ri, stat=st)
    if (mine(ri)) call check(st == 0 .and. all(i1 == int([tri(np), -tri(np), 2 * tri(np), np], 1)), 'integer(1)')
    i2 = int(me, 2)
    call co_reduce(i2, mul2, result_image=ri)
    if (mine(ri)) call check(i2 == int(product([(j, j = 1, np)]), 2), 'integer(2)')
    i4 = [me, -me, 7]
    call co_reduce(i4, max4, result_image=ri)
    if (mine(ri)) call check(all(i4 == [np, -1, 7]), 'integer(4) by value')
    i8 = [(int(me, 8) * 10_8**12 + j, j = 1, 6)]
    call co_reduce(i8(2:6:2), add8, result_image=ri)
    if (mine(ri)) then
      call check(all(i8(2:6:2) == [(int(tri(np), 8) * 10_8**12 + np * j, j = 2, 6, 2)]), 'integer(8) section')
      call check(all(i8(1:5:2) == [(int(me, 8) * 10_8**12 + j, j = 1, 5, 2)]), 'integer(8) section: rest kept')
    end if
    i16 = me * 10_16**25
    call co_reduce(i16, add16, result_image=ri)
    if (mine(ri)) call check(i16 == tri(np) * 10_16**25, 'integer(16) by value')
    r8 = [real(me, 8) / 4, -1d0]
    call co_reduce(r8, addr8, result_image=ri)
    if (mine(ri)) call check(all(r8 == [real(tri(np), 8) / 4, real(-np, 8)]), 'real(8)')
    r16 = real(me, 16) / 8
    call co_reduce(r16, addr16, result_image=ri)
    if (mine(ri)) call check(r16 == real(tri(np), 16) / 8, 'real(16)')
    c8 = cmplx(me, -me, 8)
    call co_reduce(c8, addc8, result_image=ri)
    if (mine(ri)) call check(all(c8 == cmplx(tri(np), -tri(np), 8)), 'complex(8)')
    l = [.true., me /= np]
    call co_reduce(l, land, result_image=ri)
    if (mine(ri)) call check(l(1) .and. (.not. l(2) .eqv. np > 0), 'logical')
  end do
  sync all
  if (me == 1) print '(a)', 'PASS reduce'

contains

  integer function tri(n)
    integer, intent(in) :: n
    tri = n * (n + 1) / 2
  end function


  include 'check.inc'
end program
