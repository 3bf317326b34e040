! Coindexed access (gfortran; flang 22 does not lower coarrays): scalars,
! whole arrays, strided and 2-D sections, x[i] = y[j], a scalar to a
! section, other kinds (converted), characters, derived-type components, an
! allocatable coarray, and each image writing to its right neighbour and
! reading from its left, checked after SYNC ALL. (gfortran 12 drops STAT=
! of an image selector: fails/coindex.f90 has the error.)
! gfortran only: flang 22 does not lower coarrays
program coindexed
  implicit none
  character(*), parameter :: test = 'coindexed'
  type :: point
    integer :: id
    real(8) :: x(3)
  end type
  integer :: me, np, right, left, i, j
  integer :: a(10)[*], b(10)
  real(8) :: m(4, 5)[*], r(4, 5)
  real(8), allocatable :: c(:)[:]
  character(len=6) :: s[*]
  character(len=4) :: word
  type(point) :: p[*]
  integer(8) :: big[*]

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

  ! x[i] = y[j]: image 1 copies image np's a(6:10) into image 2's a(1:5)
  if (me == 1 .and. np > 1) a(1:5)[2] = a(6:10)[np]
  sync all
  if (me == 2) call check(all(a(1:5) == [(100 * (np - 1) + i, i = 6, 10)]), 'x[i] = y[j]')

  sync all
  if (me == 1) print '(a)', 'PASS coindexed'

contains

  include 'check.inc'
end program
