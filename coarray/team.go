package coarray

import (
	"errors"
	"fmt"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
)

// Team is a Fortran team value (TEAM_TYPE): the initial team, or a team
// made by FormTeam on the team the image executes in.
type Team struct {
	t      *images.Team
	number int   // TEAM_NUMBER; -1 for the initial team
	parent *Team // the team it was formed on; nil for the initial team
	owner  *shared
}

// Number is the team's TEAM_NUMBER: the number FormTeam gave it, -1 for
// the initial team.
func (t *Team) Number() int { return t.number }

// NumImages is the number of images in the team (NUM_IMAGES(TEAM=t)).
func (t *Team) NumImages() int { return t.t.Size() }

// Parent is the team t was formed on; nil for the initial team.
func (t *Team) Parent() *Team { return t.parent }

// Free releases the engine's resources of a team made by FormTeam (its
// context on the wire: a job has a limited number of teams live at once).
// Fortran has no statement for it; a Go program calls it once it will not
// change to the team again. It is not collective.
func (t *Team) Free() error {
	if t.parent == nil {
		return nil
	}
	return collErr(t.owner.im.Destroy(t.t))
}

// FormTeam is FORM TEAM (teamNumber, team [, NEW_INDEX=newIndex]): the
// images of the current team that give the same teamNumber (> 0) form a
// team. newIndex > 0 is the image's index in the new team (the team's
// NEW_INDEX values must be 1..n, each once); 0 leaves the order to the
// processor (gocoll keeps the current team's order). It is collective over
// the current team; a bad teamNumber (ErrTeamNumber) or bad NEW_INDEX
// values (ErrNewIndex) fail it on every image concerned.
func (img *Image) FormTeam(teamNumber, newIndex int) (*Team, error) {
	if err := img.usable(); err != nil {
		return nil, err
	}
	im := img.sh.im
	color, key := teamNumber, newIndex
	if teamNumber <= 0 {
		color = -2 // refused by Split on every image: an error, not a hang
	}
	if newIndex <= 0 {
		key = 0 // ties keep the parent's order
	}
	t, err := im.Split(img.team.t, color, key)
	if errors.Is(err, coll.ErrColor) {
		return nil, fmt.Errorf("%w: %d (or another image's)", ErrTeamNumber, teamNumber)
	}
	if err != nil {
		return nil, collErr(err)
	}
	team := &Team{t: t, number: teamNumber, parent: img.team, owner: img.sh}
	// Sorting by NEW_INDEX gives every image rank index-1 exactly when the
	// indices are 1..n, each once; one maximum tells every member. Every
	// member takes part, with NEW_INDEX or without (then it agrees), so that
	// a team where some images gave one does not hang.
	if err := team.checkIndex(newIndex); err != nil {
		return nil, errors.Join(err, team.Free())
	}
	return team, nil
}

// checkIndex agrees over the new team on whether every image's NEW_INDEX
// is its index.
func (t *Team) checkIndex(newIndex int) error {
	bad := []int64{0}
	if newIndex != 0 && t.t.Rank(t.owner.im.ImageNum())+1 != newIndex {
		bad[0] = 1
	}
	all := []int64{0}
	if err := t.owner.im.ReduceAll(t.t, bytesOf(all), bytesOf(bad), coll.Cyclic, 8, t.t.Size(),
		builtin.agree, 0, flags); err != nil {
		return collErr(err)
	}
	if all[0] != 0 {
		return fmt.Errorf("%w (this image's is %d, the team has %d images)", ErrNewIndex, newIndex, t.t.Size())
	}
	return nil
}

// ChangeTeam is the CHANGE TEAM (team) construct: the image executes fn in
// team, which must have been formed by FormTeam on the current team, and
// fn's Image is the image in that team (ThisImage and NumImages count in
// it, collectives run over it). While fn runs, img is not usable
// (ErrNotCurrent); once it returns, fn's Image is not. CHANGE TEAM and END
// TEAM synchronize the images of the team, as the standard's image control
// statements do. fn's error comes back, joined with END TEAM's if any.
func (img *Image) ChangeTeam(team *Team, fn func(in *Image) error) error {
	in, err := img.BeginTeam(team)
	if err != nil {
		return err
	}
	defer func() {
		if in.state != ended { // fn panicked: the construct is over all the same
			in.state, img.state = ended, running
		}
	}()
	err = fn(in)
	return errors.Join(err, in.EndTeam())
}

// BeginTeam and EndTeam are ChangeTeam's two statements, CHANGE TEAM and
// END TEAM, for callers whose construct body is not a Go function (the
// gfortran runtime, where it is Fortran code between two calls). Between
// them the returned Image is the image in team, and img is not usable.
func (img *Image) BeginTeam(team *Team) (*Image, error) {
	if err := img.usable(); err != nil {
		return nil, err
	}
	switch {
	case team == nil || team.owner != img.sh || !team.t.Contains(img.sh.im.ImageNum()):
		return nil, fmt.Errorf("%w: not a team value of this image", ErrTeam)
	case team.parent != img.team:
		return nil, fmt.Errorf("%w: formed on team %d, the current team is %d", ErrTeam, team.parent.Number(), img.team.number)
	}
	if err := img.sh.im.Barrier(team.t); err != nil {
		return nil, collErr(err)
	}
	img.state = suspended
	return &Image{sh: img.sh, team: team, outer: img}, nil
}

// EndTeam is END TEAM: it synchronizes the team's images and returns to the
// enclosing team, whose Image (the one BeginTeam was called on) it returns
// to use again; in is not usable after it.
func (in *Image) EndTeam() error {
	if err := in.usable(); err != nil {
		return err
	}
	if in.outer == nil {
		return fmt.Errorf("%w: END TEAM in the initial team", ErrTeam)
	}
	in.state, in.outer.state = ended, running
	return collErr(in.sh.im.Barrier(in.team.t))
}

// Outer is the Image of the enclosing team (nil in the initial team).
func (in *Image) Outer() *Image { return in.outer }

// Levels of GetTeam.
const (
	InitialTeam = iota // INITIAL_TEAM
	ParentTeam         // PARENT_TEAM
	CurrentTeam        // CURRENT_TEAM
)

// GetTeam is GET_TEAM(level): the initial team, the parent of the current
// team (the current team itself in the initial team), or the current team.
func (img *Image) GetTeam(level int) (*Team, error) {
	if err := img.usable(); err != nil {
		return nil, err
	}
	switch level {
	case InitialTeam:
		t := img.team
		for t.parent != nil {
			t = t.parent
		}
		return t, nil
	case ParentTeam:
		if img.team.parent == nil {
			return img.team, nil
		}
		return img.team.parent, nil
	case CurrentTeam:
		return img.team, nil
	}
	return nil, fmt.Errorf("%w: GET_TEAM level %d", ErrTeam, level)
}

// ThisImageIn is THIS_IMAGE(TEAM=t): the image's index in t, 0 when it is
// not one of t's images.
func (img *Image) ThisImageIn(t *Team) int { return t.t.Rank(img.sh.im.ImageNum()) + 1 }

// NodeOf is the engine's node (coll.Image.Node) of the image with index i
// (1..NumImages) in the current team: for the MPI conduit, its process's
// rank in the conduit's communicator. The gfortran and flang runtime sends
// SYNC IMAGES' messages there.
func (img *Image) NodeOf(i int) (int, error) {
	if err := img.checkImage(i, false); err != nil {
		return 0, err
	}
	t := img.team.t
	return t.Table().NodeOf(t.Image(i - 1)), nil
}

// TeamNumber is TEAM_NUMBER(): the current team's number, -1 in the
// initial team.
func (img *Image) TeamNumber() int { return img.team.number }
