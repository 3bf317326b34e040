package coll_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestAggregateManySchedules: an aggregate whose members need more
// schedules than fit in a few bits of a transfer's index (every member of
// a shape of its own) completes with every member's data.
func TestAggregateManySchedules(t *testing.T) {
	const k = 300
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		all := im.TeamAll()
		me := im.ImageNum()
		dsts, srcs := make([][]byte, k), make([][]byte, k)
		var h gsync.Handle
		for m := range k {
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			if m < k-1 {
				f |= gsync.Aggregate
			}
			es := 8 * (m + 1) // every member its own element size: its own schedule
			dsts[m], srcs[m] = make([]byte, es), make([]byte, es)
			for i := 0; i < es; i += 8 {
				binary.LittleEndian.PutUint64(srcs[m][i:], uint64(m*10+i+me))
			}
			var err error
			if h, err = im.ReduceAllNB(all, dsts[m], srcs[m], coll.Cyclic, es, all.Size(), fnSumI64, 0, f); err != nil {
				return err
			}
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		for m := range k {
			for i := 0; i < len(dsts[m]); i += 8 {
				if got, want := binary.LittleEndian.Uint64(dsts[m][i:]), uint64(3*(m*10+i)+3); got != want {
					return fmt.Errorf("member %d word %d: %d, want %d", m, i/8, got, want)
				}
			}
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}
