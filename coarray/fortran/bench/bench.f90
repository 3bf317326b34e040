! Times CO_BROADCAST, CO_SUM and CO_REDUCE (a user function) of n doubles,
! for the same source built on gocoll's runtime and on OpenCoarrays: each
! figure is the best of 5 runs of the mean time per call over a batch
! (batches sized to about 0.2 s), in microseconds, as image 1 sees it after
! a SYNC ALL. Arguments: sizes (default 1 1000 131072 1000000). Under flang
! 22, which does not lower CO_REDUCE, without it (preprocessed: -cpp).
#ifdef __flang__
#define NOPS 2
#else
#define NOPS 3
#endif
program bench
  implicit none
  integer, parameter :: maxn = 1000000
  real(8), allocatable :: a(:)
  integer :: sizes(8), nsizes, i, n, op
  real(8) :: t
  character(len=16) :: arg
  character(len=9), parameter :: names(3) = [character(len=9) :: 'co_bcast', 'co_sum', 'co_reduce']

  nsizes = command_argument_count()
  if (nsizes == 0) then
    nsizes = 4
    sizes(1:4) = [1, 1000, 131072, maxn]
  else
    do i = 1, nsizes
      call get_command_argument(i, arg)
      read (arg, *) sizes(i)
    end do
  end if
  allocate (a(maxval(sizes(1:nsizes))))
  a = this_image()
  if (this_image() == 1) print '(a)', '# op        doubles        us/call   images'
  do op = 1, NOPS
    do i = 1, nsizes
      n = sizes(i)
      t = best(op, n) ! every image: it is collective
      if (this_image() == 1) print '(a,i14,f15.3,i9)', names(op), n, t, num_images()
    end do
  end do

contains

  ! batch runs iters calls and returns image 1's elapsed seconds (shared).
  real(8) function batch(op, n, iters)
    integer, intent(in) :: op, n, iters
    integer :: k
    real(8) :: t0
    sync all
    t0 = now()
    select case (op)
    case (1)
      do k = 1, iters
        call co_broadcast(a(1:n), 1)
      end do
    case (2)
      do k = 1, iters
        call co_sum(a(1:n))
      end do
#ifndef __flang__
    case (3)
      do k = 1, iters
        call co_reduce(a(1:n), add)
      end do
#endif
    end select
    batch = now() - t0
    call co_broadcast(batch, 1)
    a(1:n) = this_image() ! keep sums from overflowing to infinity
  end function


  pure real(8) function add(x, y)
    real(8), intent(in) :: x, y
    add = x + y
  end function
  include 'timing.inc'
end program
