! Image control: SYNC IMAGES (*), a list, a star (one image with all, the
! others with it), a ring, a list with this image and an empty list, many
! times over; SYNC MEMORY; and the errors: an image index out of range or
! twice in the list gives STAT 1 with ERRMSG (and with an allocatable
! ERRMSG under flang), and the images stay in step (collectives agree).
program sync
  implicit none
  character(*), parameter :: test = 'sync'
  integer :: me, np, k, st, s, left, right, zero
  character(len=80) :: msg
#ifdef __flang__
  character(len=:), allocatable :: amsg
#endif

  me = this_image()
  np = num_images()
  left = 1 + mod(me - 2 + np, np)
  right = 1 + mod(me, np)
  do k = 1, 50
    sync images (*)
    if (me == 1) then
      sync images (*)
    else
      sync images (1)
    end if
    if (left /= right) then
      sync images ([left, right])
      sync images ([me, right, left])
    else
      sync images (right)
      if (right /= me) sync images ([right, me])
    end if
    sync images ([integer ::])
    if (mod(k, 7) == 0) sync memory
  end do
  s = me
  call co_sum(s)
  call check(s == np * (np + 1) / 2, 'co_sum after SYNC IMAGES')

  msg = ''
  sync images (np + 1, stat=st, errmsg=msg)
  call check(st == 1, 'SYNC IMAGES of an image beyond the team gives STAT 1')
  call check(index(msg, 'image') > 0, 'its ERRMSG')
  zero = me - me
  sync images ([zero], stat=st)
  call check(st == 1, 'SYNC IMAGES of image 0 gives STAT 1')
  sync images ([right, zero + right], stat=st)
  call check(st == 1, 'SYNC IMAGES of an image twice gives STAT 1')
#ifdef __flang__
  ! flang 22 passes a copy of amsg's descriptor: the message cannot reach it
  sync images (zero - 3, stat=st, errmsg=amsg)
  call check(st == 1, 'STAT 1 with an allocatable ERRMSG')
#endif
  sync all (stat=st)
  call check(st == 0, 'SYNC ALL after the errors')
  s = 1
  call co_sum(s)
  call check(s == np, 'co_sum after the errors')
  if (me == 1) print '(a)', 'PASS sync'

contains

  include 'check.inc'
end program
