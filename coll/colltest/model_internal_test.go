package colltest

import (
	"math/rand/v2"
	"testing"

	gsync "github.com/gocoll/gocoll/sync"
)

// TestModelDraws: 10,000 draws of the model's program (one seed's run)
// make every kind in every one of the nine sync modes, with both
// addressings, in every form, blocking and not, and on every team, so a
// full run covers what the model claims.
func TestModelDraws(t *testing.T) {
	for _, onePerNode := range []bool{true, false} {
		type combo struct {
			kind   int
			in     gsync.Flags
			out    gsync.Flags
			single bool
		}
		seen := map[combo]bool{}
		forms, teams, nb := map[Form]bool{}, map[int]bool{}, map[bool]bool{}
		g := rand.New(rand.NewPCG(1, 0))
		for i := range 10000 {
			o := draw(g, i, onePerNode, 4, 300)
			seen[combo{o.kind, o.f.In(), o.f.Out(), o.f&gsync.Single != 0}] = true
			forms[o.form], teams[o.team], nb[o.nb] = true, true, true
			if (o.form == EveryImage || o.form == EveryImageM) != (o.f&gsync.AllThreads != 0) {
				t.Fatalf("%v: AllThreads does not match the form", o)
			}
			if o.form == EveryImageM && o.f&gsync.Single == 0 || o.form == RepresentativeSingle && !onePerNode {
				t.Fatalf("%v: a form the addressing or the table forbids", o)
			}
		}
		if want := mKinds * 3 * 3 * 2; len(seen) != want {
			t.Errorf("one image per node %v: %d of %d kind x sync mode x addressing combinations", onePerNode, len(seen), want)
		}
		wantForms := 3
		if onePerNode {
			wantForms = 4
		}
		if len(forms) != wantForms || len(teams) != 4 || len(nb) != 2 {
			t.Errorf("one image per node %v: forms %v, teams %v, blocking/NB %v", onePerNode, forms, teams, nb)
		}
	}
}
