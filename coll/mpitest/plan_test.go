package mpitest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestPlansMPI runs colltest.Plans under mpirun with one, two, four and an
// uneven number of images per rank, in two pairs of sync modes.
func TestPlansMPI(t *testing.T) {
	for _, per := range tables(mpi.World().Size()) {
		for _, mode := range []gsync.Flags{gsync.InMySync | gsync.OutMySync, gsync.InAllSync | gsync.OutNoSync} {
			t.Run(fmt.Sprint(per, mode), func(t *testing.T) {
				f := mode | gsync.Local
				if slices.Max(per) > 1 {
					f |= gsync.AllThreads
				}
				err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
					return errors.Join(colltest.Plans(im, f, 20), im.Close())
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
