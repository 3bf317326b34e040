package coll_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

const my = gsync.InMySync | gsync.OutMySync | gsync.Local

// misuses are bad calls with the error each must give. rootOnly marks the
// ones that fail only where the caller is the root, run only at P == 1 so
// that every node fails alike.
func misuses(im *coll.Image, other *images.Team) []struct {
	name     string
	rootOnly bool
	call     func() error
	want     error
} {
	P := im.Images()
	tm := im.TeamAll()
	b := make([]byte, 8)
	big := make([]byte, 8*P)
	return []struct {
		name     string
		rootOnly bool
		call     func() error
		want     error
	}{
		{"flags 0", false, func() error { return im.Broadcast(tm, b, 0, b, 8, 0) }, gsync.ErrNoInSync},
		{"two input modes", false, func() error { return im.Broadcast(tm, b, 0, b, 8, my|gsync.InAllSync) }, gsync.ErrManyInSync},
		{"no output mode", false, func() error { return im.Broadcast(tm, b, 0, b, 8, gsync.InMySync|gsync.Local) }, gsync.ErrNoOutSync},
		{"two output modes", false, func() error { return im.Broadcast(tm, b, 0, b, 8, my|gsync.OutNoSync) }, gsync.ErrManyOutSync},
		{"no addressing", false, func() error { return im.Broadcast(tm, b, 0, b, 8, gsync.InMySync|gsync.OutMySync) }, gsync.ErrNoAddressing},
		{"Single with Local", false, func() error { return im.Broadcast(tm, b, 0, b, 8, my|gsync.Single) }, gsync.ErrManyAddressing},
		{"unknown flag bit", false, func() error { return im.Broadcast(tm, b, 0, b, 8, my|1<<30) }, gsync.ErrUnknownFlag},
		{"Aggregate on a blocking call", false, func() error { return im.GatherAll(tm, big, b, 8, my|gsync.Aggregate) }, gsync.ErrAggregateBlocking},
		{"nbytes 0", false, func() error { return im.Broadcast(tm, b, 0, b, 0, my) }, coll.ErrNBytes},
		{"nbytes negative", false, func() error { _, err := im.ExchangeNB(tm, big, big, -1, my); return err }, coll.ErrNBytes},
		{"root = P", false, func() error { return im.Broadcast(tm, b, P, b, 8, my) }, coll.ErrRoot},
		{"root negative", false, func() error { return im.Scatter(tm, b, -1, big, 8, my) }, coll.ErrRoot},
		{"broadcast dst too short", false, func() error { return im.Broadcast(tm, b[:4], 0, b, 8, my) }, coll.ErrShortBuffer},
		{"broadcast nil dst", false, func() error { return im.Broadcast(tm, nil, 0, b, 8, my) }, coll.ErrNilBuffer},
		{"Single broadcast without src", false, func() error {
			return im.Broadcast(tm, b, 0, nil, 8, gsync.InMySync|gsync.OutMySync|gsync.Single)
		}, coll.ErrNilBuffer},
		{"gather src too short", false, func() error { return im.Gather(tm, 0, big, b[:2], 8, my) }, coll.ErrShortBuffer},
		{"gather_all dst too short", false, func() error { return im.GatherAll(tm, big[:8*P-1], b, 8, my) }, coll.ErrShortBuffer},
		{"exchange src too short", false, func() error { return im.Exchange(tm, big, make([]byte, 8*P-1), 8, my) }, coll.ErrShortBuffer},
		{"exchange src is dst", false, func() error { return im.Exchange(tm, big, big, 8, my) }, coll.ErrOverlap},
		{"nil team", false, func() error { return im.Broadcast(nil, b, 0, b, 8, my) }, coll.ErrTeam},
		{"team of another job", false, func() error { return im.Broadcast(other, b, 0, b, 8, my) }, coll.ErrTeam},
		{"nil src on the root", true, func() error { return im.Broadcast(tm, b, 0, nil, 8, my) }, coll.ErrNilBuffer},
		{"broadcast src overlaps dst", true, func() error { two := make([]byte, 16); return im.Broadcast(tm, two[:8], 0, two[4:12], 8, my) }, coll.ErrOverlap},
		{"scatter src too short on the root", true, func() error { return im.Scatter(tm, b, 0, big[:8*P-1], 8, my) }, coll.ErrShortBuffer},
		{"gather dst too short on the root", true, func() error { return im.Gather(tm, 0, big[:7], b, 8, my) }, coll.ErrShortBuffer},
		{"gather nil dst on the root", true, func() error { return im.Gather(tm, 0, nil, b, 8, my) }, coll.ErrNilBuffer},
		{"zero Image (before Init)", false, func() error { var z coll.Image; return z.Broadcast(tm, b, 0, b, 8, my) }, coll.ErrNotInitialized},
		{"nil Image", false, func() error { var z *coll.Image; return z.Poll() }, coll.ErrNotInitialized},
	}
}

// TestMisuse runs every misuse, then shows that nothing was left behind: a
// valid broadcast still matches across nodes and nothing stays live.
func TestMisuse(t *testing.T) {
	// A team of another job, to pass where this job's team belongs.
	var other *images.Team
	require := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	require(colltest.Run(1, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		other = im.TeamAll()
		return nil
	}))
	for _, P := range []int{1, 2, 3} {
		err := colltest.Run(P, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, time.Minute, func(im *coll.Image) error {
			n := 0
			for _, m := range misuses(im, other) {
				if m.rootOnly && P > 1 {
					continue
				}
				n++
				if err := m.call(); !errors.Is(err, m.want) {
					return fmt.Errorf("%s: got %v, want %v", m.name, err, m.want)
				}
			}
			if P == 1 && n < 25 {
				return fmt.Errorf("only %d misuses checked", n)
			}
			// A synced handle is dead (at P == 1 the operation completes
			// during initiation and returns the invalid handle instead).
			h, err := im.BroadcastNB(im.TeamAll(), make([]byte, 1), 0, []byte{7}, 1, gsync.InAllSync|gsync.OutAllSync|gsync.Local)
			if err != nil {
				return err
			}
			if err := h.Wait(context.Background()); err != nil {
				return err
			}
			if err := h.Wait(context.Background()); h.Valid() && !errors.Is(err, coll.ErrDeadHandle) {
				return fmt.Errorf("second sync: got %v, want ErrDeadHandle", err)
			}
			if _, err := h.Try(); h.Valid() && !errors.Is(err, gsync.ErrDeadHandle) {
				return fmt.Errorf("try after sync: got %v", err)
			}
			// Nothing left behind: sequence numbers still agree.
			dst := make([]byte, 3)
			if err := im.Broadcast(im.TeamAll(), dst, P-1, []byte{1, 2, 3}, 3, my); err != nil {
				return err
			}
			if string(dst) != "\x01\x02\x03" {
				return fmt.Errorf("broadcast after misuse: %v", dst)
			}
			if err := im.Barrier(im.TeamAll()); err != nil {
				return err
			}
			if im.Live() != 0 {
				return fmt.Errorf("%d operations left live", im.Live())
			}
			return nil
		})
		if err != nil {
			t.Fatalf("P=%d: %v", P, err)
		}
	}
}

func TestInitMisuse(t *testing.T) {
	w := colltest.NewWorld(1, colltest.Options{})
	cd := w.Conduit(0)
	if _, err := coll.Init(cd, nil, 0, nil, 1, coll.Options{}); !errors.Is(err, coll.ErrInitFlags) {
		t.Fatalf("init flags: %v", err)
	}
	tbl := images.OnePerNode(2)
	if _, err := coll.Init(cd, tbl, 0, nil, 0, coll.Options{}); !errors.Is(err, coll.ErrConduit) {
		t.Fatalf("table of 2 nodes on 1: %v", err)
	}
	if _, err := coll.Init(nil, nil, 0, nil, 0, coll.Options{}); !errors.Is(err, coll.ErrConduit) {
		t.Fatalf("nil conduit: %v", err)
	}
	if _, err := coll.Init(cd, nil, 0, nil, 0, coll.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Init(cd, nil, 0, nil, 0, coll.Options{}); !errors.Is(err, coll.ErrInitTwice) {
		t.Fatalf("init twice: %v", err)
	}
}
