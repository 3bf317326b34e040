package coll_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// Four in-process nodes broadcast from image 2, then gather_all their ranks
// with a non-blocking call.
func Example() {
	err := colltest.Run(4, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		team := im.TeamAll()
		f := gsync.InMySync | gsync.OutMySync | gsync.Local

		msg := make([]byte, 5)
		var src []byte
		if im.ImageNum() == 2 {
			src = []byte("hello")
		}
		if err := im.Broadcast(team, msg, 2, src, 5, f); err != nil {
			return err
		}

		ranks := make([]int32, im.Images())
		h, err := coll.GatherAllOfNB(im, team, ranks, []int32{int32(im.ImageNum())}, 1, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(string(msg), ranks)
		}
		return im.Barrier(team)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: hello [0 1 2 3]
}
