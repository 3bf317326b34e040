package coll_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestMismatchMatrix runs the disagreement matrix in process at 2, 3 and
// 4 nodes: with checked mode every image gets ErrMismatch, without it no
// image succeeds with wrong data; hangs are bounded by each image's wait
// and logged.
func TestMismatchMatrix(t *testing.T) {
	for _, checked := range []bool{true, false} {
		for _, P := range []int{2, 3, 4} {
			for _, c := range colltest.Mismatches() {
				t.Run(fmt.Sprintf("checked=%v/P=%d/%s", checked, P, c.Name), func(t *testing.T) {
					t.Parallel()
					per := make([]int, P)
					for i := range per {
						per[i] = 1
					}
					runMismatch(t, per, 0, c, checked)
				})
			}
		}
	}
}

// TestMismatchImages: the matrix with two images per node calling with
// AllThreads (the last node's both deviant), where checked mode agrees
// on the arguments once the node's last image arrived.
func TestMismatchImages(t *testing.T) {
	for _, checked := range []bool{true, false} {
		for _, c := range colltest.Mismatches() {
			t.Run(fmt.Sprintf("checked=%v/%s", checked, c.Name), func(t *testing.T) {
				t.Parallel()
				runMismatch(t, []int{2, 2, 2}, gsync.AllThreads, c, checked)
			})
		}
	}
}

func runMismatch(t *testing.T, per []int, extra gsync.Flags, c colltest.Mismatch, checked bool) {
	P := len(per)
	n := 0
	for _, k := range per {
		n += k
	}
	outs := make([]colltest.Outcome, n)
	// Without checks a disagreement may hang: the wait bounds it. With
	// them every image must get ErrMismatch: the wait is a hang guard.
	wait := 2 * time.Second
	if checked {
		wait = 30 * time.Second
	}
	w := colltest.NewWorld(P, colltest.Options{MaxDelay: 50 * time.Microsecond, Seed: uint64(P)})
	err := w.RunImages(per, coll.Options{Check: checked}, colltest.MismatchFns, wait+8*time.Second, func(im *coll.Image, _ *colltest.Node) error {
		o := colltest.RunMismatch(im, c, wait, extra)
		outs[im.ImageNum()] = o
		return colltest.CheckMismatch(o, checked)
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outs {
		if !checked || (i == 0 && n == 2) {
			t.Logf("image %d: %v", i, o)
		}
	}
}

// TestMismatchMessage: checked mode names the argument and both calls.
func TestMismatchMessage(t *testing.T) {
	errs := make([]error, 3)
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{}, coll.Options{Check: true}, colltest.MismatchFns, 10*time.Second,
		func(im *coll.Image, _ *colltest.Node) error {
			b := make([]byte, 32)
			if im.ImageNum() == 2 {
				errs[2] = im.Gather(im.TeamAll(), 0, make([]byte, 48), b[:16], 16, my)
			} else {
				errs[im.ImageNum()] = im.Broadcast(im.TeamAll(), b[:8], 0, b[8:16], 8, my)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	want := "(kind): image 0 called Broadcast(root=0, nbytes=8, flags=" + fmt.Sprint(my) + ", team=0, call=1); image 2 called Gather(root=0, nbytes=16, flags=" + fmt.Sprint(my) + ", team=0, call=1)"
	for i, e := range errs {
		if !errors.Is(e, coll.ErrMismatch) {
			t.Fatalf("image %d: %v, want ErrMismatch", i, e)
		}
		if got := e.Error(); got != coll.ErrMismatch.Error()+" "+want {
			t.Errorf("image %d: %q\nwant suffix %q", i, got, want)
		}
	}
}

// TestCheckedModeReuse: checked mode's agreement is one schedule per team,
// built by the first checked call and run again by every later one; a
// mismatch (which gathers the full signatures as well) leaves the team
// usable, the same schedule included.
func TestCheckedModeReuse(t *testing.T) {
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: 3}, coll.Options{Check: true}, colltest.MismatchFns, 20*time.Second,
		func(im *coll.Image, _ *colltest.Node) error {
			b := make([]byte, 16)
			bcast := func(i int) error {
				if im.ImageNum() == 0 {
					b[8] = byte(i)
				}
				if err := im.Broadcast(im.TeamAll(), b[:8], 0, b[8:], 8, my); err != nil {
					return fmt.Errorf("image %d, call %d: %w", im.ImageNum(), i, err)
				}
				if b[0] != byte(i) {
					return fmt.Errorf("image %d, call %d delivered %d, want %d", im.ImageNum(), i, b[0], i)
				}
				return nil
			}
			if err := bcast(1); err != nil {
				return err
			}
			ag := coll.AgreementOf(im, im.TeamAll())
			if ag == nil {
				return fmt.Errorf("image %d: no agreement after a checked call", im.ImageNum())
			}
			for i := 2; i < 100; i++ {
				if err := bcast(i); err != nil {
					return err
				}
			}
			root := 0
			if im.ImageNum() == 1 {
				root = 1
			}
			err := im.Broadcast(im.TeamAll(), b[:8], root, b[8:], 8, my)
			if !errors.Is(err, coll.ErrMismatch) || !strings.Contains(err.Error(), "(root)") {
				return fmt.Errorf("image %d: a root that differs gave %v, want ErrMismatch naming the root", im.ImageNum(), err)
			}
			for i := 100; i < 110; i++ {
				if err := bcast(i); err != nil {
					return err
				}
			}
			if coll.AgreementOf(im, im.TeamAll()) != ag {
				return fmt.Errorf("image %d: the agreement schedule was built again, not reused", im.ImageNum())
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
}
