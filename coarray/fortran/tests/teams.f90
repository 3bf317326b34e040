! Teams: FORM TEAM by parity, CHANGE TEAM, THIS_IMAGE/NUM_IMAGES/TEAM_NUMBER
! inside, collectives over the team, SYNC ALL and SYNC TEAM (of the current
! team, a child team and an ancestor), a nested team, END TEAM, and
! collectives over the initial team again.
program teams
  use iso_fortran_env, only: team_type
  implicit none
  type(team_type) :: parity, half
  integer :: me, np, number, size, s, inner
  real(8) :: v(4)
  character(len=3) :: c

  me = this_image()
  np = num_images()
  call check(team_number() == -1, 'team_number of the initial team')
  number = 1 + mod(me, 2)
  size = np / 2
  if (number == 2) size = (np + 1) / 2
  form team (number, parity)
  call check(team_number(parity) == number, 'team_number(team)')
  change team (parity)
    call check(team_number() == number, 'team_number inside')
    call check(num_images() == size, 'num_images inside')
    call check(this_image() == (me + 1) / 2, 'this_image inside')
    s = me
    call co_sum(s)
    call check(s == parity_sum(number), 'co_sum over the team')
    v = me
    call co_max(v(1:4:3), result_image=num_images())
    if (this_image() == num_images()) call check(all(v(1:4:3) == last(number)) .and. all(v(2:3) == me), 'co_max over the team')
    c = achar(96 + me)
    call co_broadcast(c, 1)
    call check(c == achar(96 + 2 - mod(me, 2)), 'co_broadcast over the team')
    sync all
    sync team (parity)
    ! a team within the team, synchronized before CHANGE TEAM (a child
    ! team) and, inside it, its parent (an ancestor team)
    form team (1 + (this_image() - 1) / 2, half)
    sync team (half)
    change team (half)
      inner = 1
      call co_sum(inner)
      call check(inner == num_images() .and. num_images() <= 2, 'nested team')
      sync team (parity)
    end team
  end team
  call check(team_number() == -1 .and. num_images() == np .and. this_image() == me, 'back in the initial team')
  s = 1
  call co_sum(s)
  call check(s == np, 'co_sum over the initial team after END TEAM')
  if (me == 1) print '(a)', 'PASS teams'

contains

  integer function parity_sum(t)
    integer, intent(in) :: t
    integer :: i
    parity_sum = 0
    do i = 1, np
      if (1 + mod(i, 2) == t) parity_sum = parity_sum + i
    end do
  end function

  integer function last(t)
    integer, intent(in) :: t
    integer :: i
    last = 0
    do i = 1, np
      if (1 + mod(i, 2) == t) last = i
    end do
  end function

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      print '(a,a,a,i0)', 'FAIL teams: ', what, ' on image ', me
      error stop 1
    end if
  end subroutine
end program
