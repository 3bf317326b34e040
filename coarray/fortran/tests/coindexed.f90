! Coindexed access (gfortran; flang 22 does not lower coarrays): scalars,
! whole arrays, strided and 2-D sections, x[i] = y[j], a scalar to a
! section, other kinds (converted), characters, derived-type components, an
! allocatable coarray, allocatable components of a coarray and a coarray
! component (gfortran's by-reference calls), each image writing to its
! right neighbour and reading from its left, checked after SYNC ALL. (gfortran 12 drops STAT=
! of an image selector: fails/coindex.f90 has the error.)
! gfortran only: flang 22 does not lower coarrays
program coindexed
  implicit none
  character(*), parameter :: test = 'coindexed'
  type :: point
    integer :: id
    real(8) :: x(3)
  end type
  type :: holder ! allocatable components: gfortran's by-reference calls
    real, allocatable :: v(:)
    integer, allocatable :: n
  end type
  type :: field ! a coarray component
    real(8), allocatable :: f(:)[:]
  end type
  integer :: me, np, right, left, i, j
  integer :: a(10)[*], b(10)
  real(8) :: m(4, 5)[*], r(4, 5)
  real(8), allocatable :: c(:)[:]
  character(len=6) :: s[*]
  character(len=4) :: word
  type(point) :: p[*]
  integer(8) :: big[*]
  type(holder) :: h[*]
  type(field) :: g
  real, allocatable :: z(:)
  real :: w(3)

  me = this_image()
  np = num_images()
  right = 1 + mod(me, np)
  left = 1 + mod(me - 2 + np, np)
  a = 0
  m = 0
  s = ''
  p = point(0, 0)
  big = 0
  allocate (c(8)[*])
  c = 0
  sync all

  ! puts to the right neighbour
  a(:)[right] = [(100 * me + i, i = 1, 10)]
  m(2, :)[right] = [(real(me * 10 + j, 8), j = 1, 5)]
  m(1:4:3, 1:5:2)[right] = -real(me, 8)
  word = 'img' // achar(48 + me) ! (gfortran 12 passes an expression's length as 0)
  s[right] = word
  p[right]%id = me
  p[right]%x(2) = 0.5d0 * me
  big[right] = me ! integer to integer(8): converted
  c(2:8:3)[right] = me ! a scalar to a strided section, converted to real(8)
  sync all
  call check(all(a == [(100 * left + i, i = 1, 10)]), 'put of a whole array')
  do j = 1, 5
    call check(m(2, j) == real(left * 10 + j, 8), 'put of a row (strided)')
  end do
  call check(all(m(1:4:3, 1:5:2) == -real(left, 8)), 'put of a 2-D strided section')
  call check(all(m(3, :) == 0) .and. all(m(1:4:3, 2:4:2) == 0), 'what a put did not touch')
  call check(s == 'img' // achar(48 + left), 'put of a character scalar')
  call check(p%id == left .and. p%x(2) == 0.5d0 * left .and. p%x(1) == 0, 'put to components')
  call check(big == left, 'put converted to integer(8)')
  call check(all(c(2:8:3) == left) .and. c(1) == 0 .and. c(3) == 0, 'put of a scalar to a section')
  sync all

  ! gets from the left neighbour (which holds its own left's data)
  b = a(:)[left]
  call check(all(b == [(100 * (1 + mod(left - 2 + np, np)) + i, i = 1, 10)]), 'get of a whole array')
  r = 7
  r(1, :) = m(2, :)[left]
  call check(r(1, 5) == real((1 + mod(left - 2 + np, np)) * 10 + 5, 8) .and. r(2, 1) == 7, 'get of a row into a row')
  i = a(3)[right]
  call check(i == 100 * me + 3, 'get of one element')
  call check(s[left] == 'img' // achar(48 + 1 + mod(left - 2 + np, np)), 'get of a character')
  call check(p[me]%id == left, 'get from this image')
  sync all

  ! allocatable components of a coarray, and a coarray component
  allocate (h%v(5), h%n, g%f(6)[*])
  h%v = [(real(me * 10 + i), i = 1, 5)]
  h%n = me
  g%f = [(real(me * 100 + i, 8), i = 1, 6)]
  sync all
  w = h[right]%v(2:4)
  call check(all(w == [(real(right * 10 + i), i = 2, 4)]), 'get of a section of an allocatable component')
  z = h[right]%v
  call check(size(z) == 5 .and. z(5) == right * 10 + 5, 'get into an unallocated allocatable')
  call check(h[right]%n == right, 'get of an allocatable scalar component')
  call check(allocated(h[right]%v), 'ALLOCATED of a component on another image')
  call check(g%f(6)[right] == right * 100 + 6 .and. all(g%f(1:5:2)[left] == [(real(left * 100 + i, 8), i = 1, 5, 2)]), &
    'get from a coarray component')
  sync all
  h[right]%v(3) = -me
  h[right]%n = 100 + me
  g%f(2)[right] = -me
  sync all
  call check(h%v(3) == -left .and. h%v(2) == me * 10 + 2, 'put to an element of an allocatable component')
  call check(h%n == 100 + left, 'put to an allocatable scalar component')
  call check(g%f(2) == -left .and. g%f(1) == me * 100 + 1, 'put to a coarray component')
  sync all
  h[right]%v(:) = 1
  sync all
  call check(all(h%v == 1), 'put of a whole allocatable component')
  h%v = [(real(me * 10 + i), i = 1, 5)]
  sync all
  if (me == 1 .and. np > 1) h[2]%v(1:2) = h[np]%v(4:5)
  sync all
  if (me == 2) call check(all(h%v(1:2) == [real(np * 10 + 4), real(np * 10 + 5)]), 'x[i]%a = y[j]%b')
  sync all

  ! x[i] = y[j]: image 1 copies image np's a(6:10) into image 2's a(1:5)
  if (me == 1 .and. np > 1) a(1:5)[2] = a(6:10)[np]
  sync all
  if (me == 2) call check(all(a(1:5) == [(100 * (np - 1) + i, i = 6, 10)]), 'x[i] = y[j]')

  sync all
  if (me == 1) print '(a)', 'PASS coindexed'

contains

  include 'check.inc'
end program
