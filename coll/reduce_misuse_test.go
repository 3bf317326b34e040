package coll_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gocoll/gocoll/coll"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestReductionMisuse: each bad call gets its own error and leaves nothing
// behind (a valid reduction still agrees across nodes afterwards).
func TestReductionMisuse(t *testing.T) {
	const P = 3
	err := runWithTable(P, func(im *coll.Image) error {
		tm, me := im.TeamAll(), im.ImageNum()
		f := gsync.InMySync | gsync.OutMySync | gsync.Single
		blk := coll.Layout{BlockSize: 2} // 2 elements per image for count 6
		src := make([]byte, 2*8)
		dst := make([]byte, 8)
		cases := []struct {
			name string
			err  error
			want error
		}{
			{"unregistered function", im.Reduce(tm, 0, dst, src, blk, 8, 6, len(table), 0, f), coll.ErrFunction},
			{"negative function index", im.ReduceAll(tm, dst, src, blk, 8, 6, -1, 0, f), coll.ErrFunction},
			{"elem_size 0", im.ReduceAll(tm, dst, src, blk, 0, 6, fnSumI64, 0, f), coll.ErrElemSize},
			{"elem_count 0", im.ReduceAll(tm, dst, src, blk, 8, 0, fnSumI64, 0, f), coll.ErrElemCount},
			{"typed operator of another size", im.ReduceAll(tm, dst, src, blk, 12, 4, fnSumI64, 0, f), coll.ErrElemSize},
			{"src not a multiple of elem_size", im.ReduceAll(tm, dst, src[:13], blk, 8, 6, fnSumI64, 0, f), coll.ErrBufferLength},
			{"dst not a multiple of elem_size", im.ReduceAll(tm, make([]byte, 12), src, blk, 8, 6, fnSumI64, 0, f), coll.ErrBufferLength},
			{"src too short for the layout", im.ReduceAll(tm, dst, src[:8], blk, 8, 6, fnSumI64, 0, f), coll.ErrShortBuffer},
			{"dst too short for the layout", im.PrefixReduce(tm, dst, blk, src, blk, 8, 6, fnSumI64, 0, f), coll.ErrShortBuffer},
			{"nil dst", im.ReduceAll(tm, nil, src, blk, 8, 6, fnSumI64, 0, f), coll.ErrNilBuffer},
			{"dst image out of range", im.Reduce(tm, P, dst, src, blk, 8, 6, fnSumI64, 0, f), coll.ErrRoot},
			{"indefinite layout beyond the images", im.ReduceAll(tm, dst, src, coll.OnImage(P), 8, 6, fnSumI64, 0, f), coll.ErrLayout},
			{"negative offset", im.ReduceAll(tm, dst, src, coll.Layout{BlockSize: 1, Offset: -1}, 8, 6, fnSumI64, 0, f), coll.ErrLayout},
			{"negative block size", im.ReduceAll(tm, dst, src, coll.Layout{BlockSize: -2}, 8, 6, fnSumI64, 0, f), coll.ErrLayout},
			{"dst layout beyond the images", im.PrefixReduce(tm, src, coll.OnImage(-1), src, blk, 8, 6, fnSumI64, 0, f), coll.ErrLayout},
			{"bad flags", im.ReduceAll(tm, dst, src, blk, 8, 6, fnSumI64, 0, gsync.InMySync|gsync.Local), gsync.ErrNoOutSync},
			{"Aggregate on a blocking reduction", im.ReduceAll(tm, dst, src, blk, 8, 6, fnSumI64, 0, f|gsync.Aggregate), gsync.ErrAggregateBlocking},
		}
		for _, c := range cases {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
			}
		}
		// Nothing left behind.
		r := reduction{kind: "all", fn: fnSumI64, es: 8, count: 6, src: blk}
		if err := r.run(im, f); err != nil {
			return err
		}
		if err := im.Barrier(tm); err != nil {
			return err
		}
		if n := im.Live(); n != 0 {
			return fmt.Errorf("image %d: %d operations left live", me, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
