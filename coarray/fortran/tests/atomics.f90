! Atomic subroutines, events, locks and CRITICAL (gfortran; flang 22 does
! not lower coarrays): a counter on image 1 that every image adds to
! atomically; a compare-and-swap that exactly one image wins; events
! posted to the right neighbour and waited for; a counter on image 1
! incremented with plain reads and writes under LOCK and inside CRITICAL;
! ACQUIRED_LOCK while another image holds the lock; and the lock errors:
! LOCK of a lock this image holds (STAT_LOCKED), UNLOCK of one another
! image holds (STAT_LOCKED_OTHER_IMAGE).
! gfortran only: flang 22 does not lower coarrays
program atomics
  use iso_fortran_env, only: atomic_int_kind, lock_type, event_type, stat_locked, stat_locked_other_image
  implicit none
  character(*), parameter :: test = 'atomics'
  integer, parameter :: rounds = 20
  integer(atomic_int_kind) :: counter[*], owner[*], old, v
  integer :: plain[*], me, np, right, k, st, wins, x, count
  type(lock_type) :: l[*], held[*]
  type(event_type) :: ev[*]
  logical :: got
  character(len=60) :: msg

  me = this_image()
  np = num_images()
  right = 1 + mod(me, np)
  call atomic_define(counter, 0)
  call atomic_define(owner, 0)
  plain = 0
  sync all

  ! atomic adds from every image, and one fetch
  do k = 1, rounds
    call atomic_add(counter[1], me)
  end do
  call atomic_fetch_add(counter[1], 0, old)
  sync all
  call atomic_ref(v, counter[1])
  call check(v == rounds * np * (np + 1) / 2, 'atomic_add from every image')
  call check(old >= rounds * me .and. old <= v, 'atomic_fetch_add')

  ! one image wins the compare-and-swap
  call atomic_cas(owner[1], old, 0, me)
  wins = merge(1, 0, old == 0)
  call co_sum(wins)
  call check(wins == 1, 'exactly one atomic_cas wins')
  sync all
  call atomic_ref(v, owner[1])
  call check(v >= 1 .and. v <= np, 'atomic_cas left a winner')
  sync all
  call atomic_fetch_or(owner[1], 256, old)
  sync all
  call atomic_fetch_and(owner[1], 256, old)
  sync all
  call atomic_ref(v, owner[1])
  call check(v == 256, 'atomic_fetch_or, then atomic_fetch_and')
  sync all
  call atomic_fetch_xor(owner[1], 257, old)
  sync all
  call atomic_ref(v, owner[1])
  call check(v == merge(1, 256, mod(np, 2) == 1), 'atomic_fetch_xor from every image')

  ! events: posted to the right neighbour, waited for here
  do k = 1, 3
    event post (ev[right])
  end do
  event wait (ev, until_count=3)
  call event_query(ev, count)
  call check(count == 0, 'event count after the wait')
  sync all

  ! a lock around plain reads and writes of image 1's counter
  do k = 1, rounds
    lock (l[1])
    x = plain[1]
    plain[1] = x + 1
    unlock (l[1])
  end do
  sync all
  if (me == 1) call check(plain == rounds * np, 'a counter under LOCK')
  sync all
  do k = 1, rounds
    critical
      x = plain[1]
      plain[1] = x + 1
    end critical
  end do
  sync all
  if (me == 1) call check(plain == 2 * rounds * np, 'a counter in CRITICAL')

  ! ACQUIRED_LOCK while image 1 holds the lock; the errors
  if (me == 1) lock (held[1])
  sync all
  if (me /= 1) then
    lock (held[1], acquired_lock=got)
    call check(.not. got, 'ACQUIRED_LOCK of a lock another image holds')
    unlock (held[1], stat=st)
    call check(st == stat_locked_other_image, 'UNLOCK of a lock another image holds')
  else
    msg = ''
    lock (held[1], stat=st, errmsg=msg)
    call check(st == stat_locked .and. msg /= '', 'LOCK of a lock this image holds')
  end if
  sync all
  if (me == 1) unlock (held[1])
  sync all
  if (me == np) then
    lock (held[1], acquired_lock=got)
    call check(got, 'ACQUIRED_LOCK of a free lock')
    unlock (held[1])
  end if
  sync all
  if (me == 1) print '(a)', 'PASS atomics'

contains

  include 'check.inc'
end program
