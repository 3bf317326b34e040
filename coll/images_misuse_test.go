package coll_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

func TestInitImagesMisuse(t *testing.T) {
	opts := coll.Options{InitTimeout: 300 * time.Millisecond}
	tbl2, _ := images.New([]int{2})
	t.Run("image out of range", func(t *testing.T) {
		cd := colltest.NewWorld(1, colltest.Options{}).Conduit(0)
		for _, img := range []int{-1, 2, 7} {
			if _, err := coll.Init(cd, tbl2, img, nil, 0, opts); !errors.Is(err, coll.ErrImage) {
				t.Errorf("image %d: %v, want ErrImage", img, err)
			}
		}
		two, _ := images.New([]int{1, 1})
		w := colltest.NewWorld(2, colltest.Options{})
		if _, err := coll.Init(w.Conduit(0), two, 1, nil, 0, opts); !errors.Is(err, coll.ErrImage) {
			t.Errorf("another node's image: %v, want ErrImage", err)
		}
	})
	t.Run("table of the wrong length", func(t *testing.T) {
		cd := colltest.NewWorld(2, colltest.Options{}).Conduit(0)
		if _, err := coll.Init(cd, tbl2, 0, nil, 0, opts); !errors.Is(err, coll.ErrConduit) {
			t.Errorf("%v, want ErrConduit", err)
		}
	})
	t.Run("image used twice", func(t *testing.T) {
		// Whichever of the two Inits of image 0 comes second fails at
		// once; the first, with image 1, makes the node.
		cd := colltest.NewWorld(1, colltest.Options{}).Conduit(0)
		var wg sync.WaitGroup
		var errs [3]error
		for i, img := range []int{0, 0, 1} {
			wg.Go(func() { _, errs[i] = coll.Init(cd, tbl2, img, nil, 0, coll.Options{}) })
		}
		wg.Wait()
		twice := 0
		for _, err := range errs[:2] {
			switch {
			case errors.Is(err, coll.ErrInitTwice):
				twice++
			case err != nil:
				t.Errorf("an Init of image 0: %v, want nil or ErrInitTwice", err)
			}
		}
		if twice != 1 || errs[2] != nil {
			t.Errorf("two Inits of image 0 and one of image 1: %v, want one ErrInitTwice and two nil", errs)
		}
	})
	t.Run("too few images", func(t *testing.T) {
		cd := colltest.NewWorld(1, colltest.Options{}).Conduit(0)
		_, err := coll.Init(cd, tbl2, 0, nil, 0, opts)
		if !errors.Is(err, coll.ErrInitTimeout) {
			t.Fatalf("%v, want ErrInitTimeout", err)
		}
		// Options.InitTimeout, not DefaultInitTimeout, ended the wait.
		if want := fmt.Sprintf("within %v", opts.InitTimeout); !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want it to say %q", err, want)
		}
		if _, err := coll.Init(cd, tbl2, 1, nil, 0, opts); !errors.Is(err, coll.ErrInitTimeout) {
			t.Errorf("a late image: %v, want the node's ErrInitTimeout", err)
		}
	})
	t.Run("a node that never calls", func(t *testing.T) {
		two, _ := images.New([]int{1, 1})
		w := colltest.NewWorld(2, colltest.Options{})
		if _, err := coll.Init(w.Conduit(0), two, 0, nil, 0, opts); !errors.Is(err, coll.ErrInitTimeout) {
			t.Errorf("%v, want ErrInitTimeout", err)
		}
	})
	t.Run("images of a node disagree", func(t *testing.T) {
		// Whichever image comes second finds that the first passed other
		// functions; the first then waits for it until the timeout.
		cd := colltest.NewWorld(1, colltest.Options{}).Conduit(0)
		var wg sync.WaitGroup
		var errs [2]error
		for img, fns := range [][]reducefn.Entry{nil, {reducefn.Sum[int64]()}} {
			wg.Go(func() { _, errs[img] = coll.Init(cd, tbl2, img, fns, 0, opts) })
		}
		wg.Wait()
		if !(errors.Is(errs[0], coll.ErrInitMismatch) && errors.Is(errs[1], coll.ErrInitTimeout) ||
			errors.Is(errs[0], coll.ErrInitTimeout) && errors.Is(errs[1], coll.ErrInitMismatch)) {
			t.Errorf("images 0 and 1: %v, want ErrInitMismatch on one and ErrInitTimeout on the other", errs)
		}
	})
}

// TestImagesMisuse: forbidden flag combinations and bad address lists
// where nodes host several images; each fails on the caller before
// anything starts, and collectives go on afterwards.
func TestImagesMisuse(t *testing.T) {
	per := []int{2, 2}
	err := colltest.RunImages(per, colltest.Options{}, coll.Options{}, nil, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		all := im.TeamAll()
		b := make([]byte, 8)
		big := make([]byte, 8*4)
		two := [][]byte{make([]byte, 8), make([]byte, 8)}
		four := [][]byte{make([]byte, 8), make([]byte, 8), make([]byte, 8), make([]byte, 8)}
		bigs := [][]byte{make([]byte, 32), make([]byte, 32)}
		const my, mySingle = gsync.InMySync | gsync.OutMySync | gsync.Local, gsync.InMySync | gsync.OutMySync | gsync.Single
		cases := []struct {
			name string
			call func() error
			want error
		}{
			{"single address, Local, no AllThreads", func() error { return im.Broadcast(all, b, 0, b, 8, my) }, coll.ErrAddressing},
			{"single address, Single, no AllThreads", func() error { return im.GatherAll(all, big, b, 8, mySingle) }, coll.ErrAddressing},
			{"m form, Local, AllThreads", func() error { return im.BroadcastM(all, two, 0, b, 8, my|gsync.AllThreads) }, coll.ErrAddressing},
			{"Local list of 3 for 2 images", func() error {
				return im.BroadcastM(all, [][]byte{b, b, b}, 0, b, 8, my)
			}, coll.ErrListLength},
			{"Single list of 2 for 4 images", func() error { return im.GatherAllM(all, bigs, two, 8, mySingle) }, coll.ErrListLength},
			{"nil entry of a node's image", func() error {
				return im.GatherAllM(all, [][]byte{make([]byte, 32), nil}, two, 8, my)
			}, coll.ErrNilBuffer},
			{"nil entry, Single", func() error {
				l := make([][]byte, 4)
				l[im.Table().First(im.Node())] = make([]byte, 32)
				return im.GatherAllM(all, l, four, 8, mySingle)
			}, coll.ErrNilBuffer},
			{"short entry", func() error { return im.ExchangeM(all, bigs, two, 8, my) }, coll.ErrShortBuffer},
			{"two images' destinations overlap", func() error {
				d := make([]byte, 40)
				return im.GatherAllM(all, [][]byte{d[:32], d[8:40]}, two, 8, my)
			}, coll.ErrOverlap},
			{"a destination overlaps another image's source", func() error {
				d := make([]byte, 40)
				return im.GatherAllM(all, [][]byte{d[:32], make([]byte, 32)}, [][]byte{make([]byte, 8), d[24:32]}, 8, my)
			}, coll.ErrOverlap},
			{"ReduceAllM, Local, AllThreads", func() error {
				return im.ReduceAllM(all, two, two, coll.Cyclic, 8, 4, 0, 0, my|gsync.AllThreads)
			}, coll.ErrAddressing},
		}
		rep := im.ImageNum() == im.Table().First(im.Node())
		nd.Rendezvous("misuse", 2)
		if rep { // one image per node makes the representative calls
			for _, c := range cases {
				if err := c.call(); !errors.Is(err, c.want) {
					return fmt.Errorf("%s: got %v, want %v", c.name, err, c.want)
				}
				if im.Live() != 0 {
					return fmt.Errorf("%s: %d operations left live", c.name, im.Live())
				}
			}
		}
		nd.Rendezvous("misuse", 2)
		// Collectives go on: nothing was started, sequence numbers agree.
		dst := make([]byte, 8*4)
		src := []byte{byte(im.ImageNum()), 0, 0, 0, 0, 0, 0, 0}
		if err := im.GatherAll(all, dst, src, 8, my|gsync.AllThreads); err != nil {
			return err
		}
		for i := range 4 {
			if dst[8*i] != byte(i) {
				return fmt.Errorf("gather_all after misuse: %v", dst)
			}
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTeamMisuse: a team of which the image is not a member, a destroyed
// team, bad Split colors and bad member lists each give their error; a bad
// color or list fails the creation on every image, without a hang.
func TestTeamMisuse(t *testing.T) {
	var mu sync.Mutex
	teams := map[int]*images.Team{} // by node: a team of one image, shown to the other
	other, _ := images.New([]int{2, 2})
	otherAll := other.All()
	err := colltest.RunImages([]int{2, 2}, colltest.Options{}, coll.Options{}, nil, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		all, img := im.TeamAll(), im.ImageNum()
		check := func(what string, err, want error) error {
			if !errors.Is(err, want) {
				return fmt.Errorf("%s: got %v, want %v", what, err, want)
			}
			return nil
		}
		b := make([]byte, 8)
		if err := check("nil team", im.Broadcast(nil, b, 0, b, 8, allMy), coll.ErrTeam); err != nil {
			return err
		}
		if err := check("team of another job", im.Broadcast(otherAll, b, 0, b, 8, allMy), coll.ErrTeam); err != nil {
			return err
		}
		if err := check("destroy TeamAll", im.Destroy(all), coll.ErrTeam); err != nil {
			return err
		}
		// Even images form a team; each node's even image shows it to the odd one.
		even, err := im.Split(all, map[bool]int{true: 0, false: images.NoColor}[img%2 == 0], img)
		if err != nil {
			return err
		}
		if img%2 == 0 {
			mu.Lock()
			teams[im.Node()] = even
			mu.Unlock()
		}
		nd.Rendezvous("shown", 2)
		if img%2 == 1 {
			mu.Lock()
			tm := teams[im.Node()]
			mu.Unlock()
			if err := check("not a member", im.Broadcast(tm, b, 0, b, 8, allMy), coll.ErrNotMember); err != nil {
				return err
			}
			if _, err := im.Split(tm, 0, 0); !errors.Is(err, coll.ErrNotMember) {
				return fmt.Errorf("split of a team not in: %v", err)
			}
		} else {
			if err := im.Destroy(even); err != nil {
				return err
			}
			if err := check("use after destroy", im.Broadcast(even, b, 0, b, 8, allMy), coll.ErrTeamDestroyed); err != nil {
				return err
			}
			if err := check("destroy twice", im.Destroy(even), coll.ErrTeamDestroyed); err != nil {
				return err
			}
			if _, err := im.Split(even, 0, 0); !errors.Is(err, coll.ErrTeamDestroyed) {
				return fmt.Errorf("split of a destroyed team: %v", err)
			}
		}
		// A bad color on one image fails the split everywhere.
		color := 0
		if img == 3 {
			color = -5
		}
		if _, err := im.Split(all, color, 0); !errors.Is(err, coll.ErrColor) {
			return fmt.Errorf("bad color on image 3: image %d got %v", img, err)
		}
		// Lists that differ, or that repeat or stray outside the parent.
		list := []int{0, 1, 2}
		if img == 2 {
			list = []int{0, 2, 1}
		}
		for _, l := range [][]int{list, {0, 0, 1}, {0, 9}, {}} {
			if _, err := im.TeamFromImages(all, l); !errors.Is(err, coll.ErrMembers) {
				return fmt.Errorf("list %v on image %d: %v, want ErrMembers", l, img, err)
			}
		}
		if im.ContextsInUse() != 1 || im.TeamsLive() != 0 {
			return fmt.Errorf("after failed creations: %d contexts, %d teams", im.ContextsInUse(), im.TeamsLive())
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArgsDiffer: with AllThreads the images of a node must agree on the
// call; when they do not, every one of them gets ErrArgsDiffer. (A staged
// broadcast root that completed before the others arrived cannot: there
// the image that arrives last reports it; see localRec.stageRoot.)
func TestArgsDiffer(t *testing.T) {
	err := colltest.RunImages([]int{2}, colltest.Options{}, coll.Options{}, nil, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		me := im.ImageNum()
		b, all := make([]byte, 8), make([]byte, 16)
		err := im.Gather(im.TeamAll(), me, all, b, 8, allMy) // roots differ
		if !errors.Is(err, coll.ErrArgsDiffer) {
			return fmt.Errorf("image %d: %v, want ErrArgsDiffer", me, err)
		}
		nd.Rendezvous("staged", 2)
		if me == 0 { // the root, which stages and completes first
			err := im.Broadcast(im.TeamAll(), b, me, b, 8, allMy)
			nd.Rendezvous("root done", 2)
			if err != nil {
				return fmt.Errorf("the root arriving first: %v", err)
			}
			return nil
		}
		nd.Rendezvous("root done", 2)
		err = im.Broadcast(im.TeamAll(), b, me, b, 8, allMy)
		if !errors.Is(err, coll.ErrArgsDiffer) {
			return fmt.Errorf("the image arriving last: %v, want ErrArgsDiffer", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
