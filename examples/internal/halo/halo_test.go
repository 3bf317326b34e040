package halo

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
)

// Every image of lines of 1 to 5 images (some nodes hosting two) sends
// its rank and the side to each neighbour, three times, and finds the
// neighbours' values in its halos; the ends have no neighbour there.
func TestLine(t *testing.T) {
	for _, perNode := range [][]int{{1}, {1, 1}, {1, 1, 1}, {2, 1, 2}, {1, 1, 1, 1, 1}} {
		t.Run(fmt.Sprint(perNode), func(t *testing.T) {
			err := colltest.RunImages(perNode, colltest.Options{MaxDelay: 50 * time.Microsecond}, coll.Options{}, nil, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					all := im.TeamAll()
					r, P := all.Rank(im.ImageNum()), all.Size()
					const n = 3
					l, err := NewLine(im, all, n)
					if err != nil {
						return err
					}
					for round := range 3 {
						if l.Has(Below) != (r > 0) || l.Has(Above) != (r < P-1) {
							return fmt.Errorf("rank %d of %d: Has below %v, above %v", r, P, l.Has(Below), l.Has(Above))
						}
						for s, e := range [][]float64{l.Edge(Below), l.Edge(Above)} {
							for i := range e {
								e[i] = float64(1000*round + 100*r + 10*s + i)
							}
						}
						if err := l.Start(); err != nil {
							return err
						}
						if err := l.Wait(context.Background()); err != nil {
							return err
						}
						// Below's halo is what rank r-1 sent Above (side 1), and
						// the other way round.
						for s, nb := range []int{r - 1, r + 1} {
							h := l.Halo(Side(s))
							if nb < 0 || nb >= P {
								if h != nil {
									return fmt.Errorf("rank %d: a halo on side %d without a neighbour", r, s)
								}
								continue
							}
							for i, v := range h {
								if want := float64(1000*round + 100*nb + 10*(1-s) + i); v != want {
									return fmt.Errorf("rank %d round %d side %d: halo[%d] = %v, want %v", r, round, s, i, v, want)
								}
							}
						}
					}
					if err := l.Close(); err != nil {
						return err
					}
					return im.Barrier(all)
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
