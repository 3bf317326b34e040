package coarray_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
)

// runImages starts in-process nodes with perNode images each, initializes
// the coarray face on every image and runs fn on each, then closes the
// images if closing; it returns the images' errors joined, or an error
// after three minutes (a hang).
func runImages(perNode []int, delay time.Duration, opts coarray.Options, closing bool, fn func(img *coarray.Image) error) error {
	table, err := images.New(perNode)
	if err != nil {
		return err
	}
	w := colltest.NewWorld(len(perNode), colltest.Options{MaxDelay: delay})
	errs := make([]error, table.Images())
	var wg sync.WaitGroup
	for node := range perNode {
		for k := range perNode[node] {
			me := table.First(node) + k
			wg.Add(1)
			go func() {
				defer wg.Done()
				img, err := coarray.Init(w.Conduit(node), table, me, opts)
				if err != nil {
					errs[me] = err
					return
				}
				if err := fn(img); err != nil {
					errs[me] = fmt.Errorf("image %d: %w", me, err)
				}
				if closing {
					errs[me] = errors.Join(errs[me], img.Close())
				}
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return errors.Join(errs...)
	case <-time.After(3 * time.Minute):
		return errors.New("timed out: a collective hangs")
	}
}

// layouts are the jobs the tests run on: one to four nodes of one image,
// and nodes of several images.
var layouts = [][]int{{1}, {1, 1}, {1, 1, 1}, {1, 1, 1, 1}, {2, 2}, {1, 3}}

func forLayouts(t *testing.T, opts coarray.Options, layouts [][]int, closing bool, fn func(img *coarray.Image) error) {
	t.Helper()
	for _, l := range layouts {
		t.Run(fmt.Sprint(l), func(t *testing.T) {
			if err := runImages(l, 0, opts, closing, fn); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSmoke(t *testing.T) {
	forLayouts(t, coarray.Options{}, layouts, true, func(img *coarray.Image) error {
		x := []float64{float64(img.ThisImage()), 1}
		if err := coarray.CoSum(img, x); err != nil {
			return err
		}
		n := img.NumImages()
		if x[0] != float64(n*(n+1)/2) || x[1] != float64(n) {
			return fmt.Errorf("co_sum: %v", x)
		}
		s := []string{fmt.Sprint("img", img.ThisImage())}
		if err := coarray.CoMax(img, s); err != nil {
			return err
		}
		if s[0] != fmt.Sprint("img", n) {
			return fmt.Errorf("co_max: %q", s)
		}
		return img.SyncAll()
	})
}

// TestTeamIndices checks ThisImageIn and NodeOf in the initial team and in
// a team of the odd or even images, whose node order reverses the
// initial team's (NEW_INDEX), and SyncTeam of the teams it may name.
func TestTeamIndices(t *testing.T) {
	forLayouts(t, coarray.Options{}, layouts, true, func(img *coarray.Image) error {
		me, np := img.ThisImage(), img.NumImages()
		initial, err := img.GetTeam(coarray.InitialTeam)
		if err != nil {
			return err
		}
		if got := img.ThisImageIn(initial); got != me {
			return fmt.Errorf("ThisImageIn(initial) = %d, want %d", got, me)
		}
		nodes := make([]int, np)
		for i := 1; i <= np; i++ {
			if nodes[i-1], err = img.NodeOf(i); err != nil {
				return err
			}
		}
		if self := nodes[me-1]; self != img.Coll().Node() {
			return fmt.Errorf("NodeOf(%d) = %d, this image's node is %d", me, self, img.Coll().Node())
		}
		for _, bad := range []int{0, np + 1, -1} {
			if _, err := img.NodeOf(bad); !errors.Is(err, coarray.ErrInvalidImage) {
				return fmt.Errorf("NodeOf(%d): %v, want ErrInvalidImage", bad, err)
			}
		}
		parity := 1 + me%2
		size := (np + me%2) / 2 // images with me's parity
		index := size - (me-1)/2
		team, err := img.FormTeam(parity, index)
		if err != nil {
			return err
		}
		defer team.Free()
		if got := img.ThisImageIn(team); got != index {
			return fmt.Errorf("ThisImageIn(team) = %d, want NEW_INDEX %d", got, index)
		}
		// SYNC TEAM of a team formed on the current one, and of the current
		if err := errors.Join(img.SyncTeam(team), img.SyncTeam(initial)); err != nil {
			return err
		}
		if err := img.SyncTeam(nil); !errors.Is(err, coarray.ErrTeam) {
			return fmt.Errorf("SyncTeam(nil): %v, want ErrTeam", err)
		}
		return img.ChangeTeam(team, func(in *coarray.Image) error {
			// SYNC TEAM of an ancestor, and of the current team
			if err := errors.Join(in.SyncTeam(initial), in.SyncTeam(team)); err != nil {
				return err
			}
			for i := 1; i <= in.NumImages(); i++ {
				node, err := in.NodeOf(i)
				if err != nil {
					return err
				}
				// image i of the team is the initial team's image with
				// this parity that is size-i+1'th in order
				want := nodes[2*(size-i)+(me+1)%2]
				if node != want {
					return fmt.Errorf("in the team, NodeOf(%d) = %d, want %d", i, node, want)
				}
			}
			if got := in.ThisImageIn(initial); got != me {
				return fmt.Errorf("in the team, ThisImageIn(initial) = %d, want %d", got, me)
			}
			return nil
		})
	})
}

// TestStoppedImage: the last image forms a team with the others, then
// stops (returns); the others learn it with what it had started (Stopped,
// again every few milliseconds, as the gfortran and flang runtime's
// watcher does). A CO_SUM over the initial team that waits for it fails
// with ErrStoppedImage (STAT_STOPPED_IMAGE) before the stall timeout; SYNC
// ALL and FORM TEAM then fail at their call; STOPPED_IMAGES lists it; the
// team without it still works.
func TestStoppedImage(t *testing.T) {
	opts := coarray.Options{Coll: coll.Options{StallTimeout: 2 * time.Minute}}
	for _, l := range [][]int{{1, 1}, {1, 1, 1}, {1, 1, 1, 1}} {
		t.Run(fmt.Sprint(l), func(t *testing.T) {
			var started coll.Started
			known := make(chan struct{})
			err := runImages(l, 0, opts, true, func(img *coarray.Image) error {
				me, np := img.ThisImage(), img.NumImages()
				rest, err := img.FormTeam(1+me/np, 0) // team 1: every image but the last
				if me == np {
					started = img.Coll().Started()
					close(known)
				}
				if err != nil || me == np {
					return err
				}
				return stoppedImage(img, rest, known, &started)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func stoppedImage(img *coarray.Image, rest *coarray.Team, known chan struct{}, started *coll.Started) error {
	me, np := img.ThisImage(), img.NumImages()
	done := make(chan struct{})
	defer close(done)
	go func() {
		<-known
		for {
			_ = img.Stopped(np, *started)
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	x := []int64{1}
	err := coarray.CoSum(img, x)
	if !errors.Is(err, coarray.ErrStoppedImage) || coarray.Stat(err) != coarray.StatStoppedImage {
		return fmt.Errorf("co_sum with a stopped image: %v (STAT %d), want ErrStoppedImage", err, coarray.Stat(err))
	}
	if err := img.SyncAll(); !errors.Is(err, coarray.ErrStoppedImage) {
		return fmt.Errorf("sync all after the stop: %v, want ErrStoppedImage", err)
	}
	if _, err := img.FormTeam(1, 0); !errors.Is(err, coarray.ErrStoppedImage) {
		return fmt.Errorf("form team after the stop: %v, want ErrStoppedImage", err)
	}
	if got := img.StoppedImages(nil); len(got) != 1 || got[0] != np {
		return fmt.Errorf("STOPPED_IMAGES() = %v, want [%d]", got, np)
	}
	if !img.ImageStopped(np) || img.ImageStopped(1) || img.ImageStopped(np+1) {
		return fmt.Errorf("ImageStopped(%d, 1, %d) = %v, %v, %v, want true, false, false", np, np+1,
			img.ImageStopped(np), img.ImageStopped(1), img.ImageStopped(np+1))
	}
	if err := img.Stopped(np+1, nil); !errors.Is(err, coarray.ErrInvalidImage) {
		return fmt.Errorf("Stopped(%d): %v, want ErrInvalidImage", np+1, err)
	}
	return img.ChangeTeam(rest, func(in *coarray.Image) error {
		if got := in.StoppedImages(nil); len(got) != 0 {
			return fmt.Errorf("STOPPED_IMAGES() in the team without it = %v", got)
		}
		y := []int64{int64(me)}
		if err := coarray.CoSum(in, y); err != nil {
			return err
		}
		if want := int64((np - 1) * np / 2); y[0] != want {
			return fmt.Errorf("co_sum in the team without it: %d, want %d", y[0], want)
		}
		return nil
	})
}
