! Times coindexed writes and reads of n doubles between image 1 and image 2,
! contiguous (x(1:n)[2]) and strided (every other element, x(1:2n:2)[2]),
! for gocoll's runtime and OpenCoarrays from one source: each figure is the
! best of 5 batches of the mean time per statement (batches of about 0.2 s),
! in microseconds, on image 1, which alone accesses. Needs 2 images or more.
! Arguments: sizes (default 1 1000 131072). gfortran only (coarrays).
program rma
  implicit none
  integer, parameter :: maxn = 131072
  real(8), allocatable :: x(:)[:], buf(:)
  integer :: sizes(8), nsizes, i, n, op
  real(8) :: t
  character(len=16) :: arg
  character(len=11), parameter :: names(4) = [character(len=11) :: 'put', 'put_strided', 'get', 'get_strided']

  nsizes = command_argument_count()
  if (nsizes == 0) then
    nsizes = 3
    sizes(1:3) = [1, 1000, maxn]
  else
    do i = 1, nsizes
      call get_command_argument(i, arg)
      read (arg, *) sizes(i)
    end do
  end if
  if (num_images() < 2) error stop 'rma needs 2 images or more'
  allocate (x(2 * maxval(sizes(1:nsizes)))[*], buf(maxval(sizes(1:nsizes))))
  x = this_image()
  buf = 1
  if (this_image() == 1) print '(a)', '# op              doubles        us/call   images'
  do op = 1, 4
    do i = 1, nsizes
      n = sizes(i)
      t = best(op, n)
      if (this_image() == 1) print '(a,i14,f15.3,i9)', names(op), n, t, num_images()
    end do
  end do

contains

  real(8) function batch(op, n, iters)
    integer, intent(in) :: op, n, iters
    integer :: k
    real(8) :: t0
    sync all
    t0 = now()
    if (this_image() == 1) then
      select case (op)
      case (1)
        do k = 1, iters
          x(1:n)[2] = buf(1:n)
        end do
      case (2)
        do k = 1, iters
          x(1:2 * n:2)[2] = buf(1:n)
        end do
      case (3)
        do k = 1, iters
          buf(1:n) = x(1:n)[2]
        end do
      case (4)
        do k = 1, iters
          buf(1:n) = x(1:2 * n:2)[2]
        end do
      end select
    end if
    batch = now() - t0
    call co_broadcast(batch, 1)
  end function

  include 'timing.inc'
end program
