! Derived types: CO_BROADCAST of arrays and sections of a derived type
! (OpenCoarrays 2.10.1 moves one byte per element) and of one with
! allocatable components (gfortran passes each component in a descriptor of
! its own), CO_SUM through a pointer to a component section (elements a
! type apart), CO_REDUCE with a function of a derived type, and the type
! CO_REDUCE cannot call (16 bytes or less) reported through STAT.
module types
  implicit none
  type :: particle ! 40 bytes: returned in memory
    integer(2) :: id
    real(8) :: x(3)
    character(len=4) :: tag
  end type
  type :: pair ! 16 bytes: returned in registers chosen by its components
    integer :: a
    real(8) :: b
  end type
  type :: holder
    integer, allocatable :: v(:)
    real(8), allocatable :: m(:, :)
    complex, allocatable :: c
  end type
contains
  pure function combine(p, q) result(r) ! commutative and associative
    type(particle), intent(in) :: p, q
    type(particle) :: r
    r%id = p%id + q%id
    r%x = max(p%x, q%x)
    r%tag = max(p%tag, q%tag)
  end function
  pure function addpair(p, q) result(r)
    type(pair), intent(in) :: p, q
    type(pair) :: r
    r%a = p%a + q%a
    r%b = p%b + q%b
  end function
end module

program derived
  use types
  implicit none
  character(*), parameter :: test = 'derived'
  integer :: me, np, i, j, st, ri
  type(particle), target :: ps(5), one
  type(pair) :: pr
  type(holder) :: h
  real(8), pointer :: q(:)

  me = this_image()
  np = num_images()
  do i = 1, np
    ps = [(make(me, j), j = 1, 5)]
    call co_broadcast(ps, i, stat=st)
    call check(st == 0, 'co_broadcast stat')
    do j = 1, 5
      call check(same(ps(j), make(i, j)), 'co_broadcast derived array')
    end do
    ps = [(make(me, j), j = 1, 5)]
    call co_broadcast(ps(2:5:3), i)
    do j = 1, 5
      if (j == 2 .or. j == 5) then
        call check(same(ps(j), make(i, j)), 'co_broadcast derived section')
      else
        call check(same(ps(j), make(me, j)), 'co_broadcast derived section: other elements kept')
      end if
    end do
  end do
  ! a pointer to a component section: the elements are a particle apart
  ps = [(make(me, j), j = 1, 5)]
  q => ps(1:5:2)%x(2)
  call co_sum(q, stat=st)
  do j = 1, 5
    one = make(me, j)
    if (mod(j, 2) == 1) one%x(2) = real(np * (np + 1), 8)
    call check(st == 0 .and. same(ps(j), one), 'co_sum through a pointer to a component section')
  end do
#ifndef __flang__
  ! allocatable components, the same shapes on every image (flang 22 passes
  ! the object whole, its components' descriptors included)
  allocate (h%v(3), h%m(2, 2), h%c)
  h%v = me; h%m = me; h%c = cmplx(me, -me)
  call co_broadcast(h, np, stat=st)
  call check(st == 0 .and. all(h%v == np) .and. all(h%m == np) .and. h%c == cmplx(np, -np), &
    'co_broadcast of allocatable components')
#endif
#ifndef __flang__
  ! flang 22 does not lower CO_REDUCE
  do ri = 0, np
    ps = [(make(me, j), j = 1, 5)]
    call co_reduce(ps, combine, result_image=ri, stat=st)
    if (ri == 0 .or. ri == me) then
      call check(st == 0, 'co_reduce derived stat')
      do j = 1, 5
        one%id = int(j * np * (np + 1) / 2, 2)
        one%x = [real(np + j, 8), real(2 * np, 8), real(-1, 8)]
        one%tag = 'T' // achar(48 + np) // achar(48 + j)
        call check(same(ps(j), one), 'co_reduce derived')
      end do
    end if
  end do
  pr = pair(me, 0.5d0)
  call co_reduce(pr, addpair, stat=st)
  if (np > 1) then
    call check(st == 10, 'co_reduce of a 16-byte derived type gives STAT 10 (not supported)')
  end if
#endif
  sync all
  if (me == 1) print '(a)', 'PASS derived'

contains

  type(particle) function make(i, j)
    integer, intent(in) :: i, j
    make%id = int(i * j, 2)
    make%x = [real(i + j, 8), real(2 * i, 8), real(-1, 8)]
    make%tag = 'T' // achar(48 + i) // achar(48 + j)
  end function

  logical function same(p, q)
    type(particle), intent(in) :: p, q
    same = p%id == q%id .and. all(p%x == q%x) .and. p%tag == q%tag
  end function

  include 'check.inc'
end program
