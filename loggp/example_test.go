package loggp_test

import (
	"fmt"

	"github.com/gocoll/gocoll/loggp"
)

// Parameters print in microseconds, as collbench reports a fit.
func ExampleParams_String() {
	m := loggp.Params{L: 1.5, O: 0.25, Gap: 0.3, G: 0.0001, Fold: 0.00005}
	fmt.Println(m)
	fmt.Printf("a 1 KiB message arrives after %.3f us\n", m.Deliver(1024))
	// Output:
	// L 1.500 us, o 0.250 us, g 0.300 us, G 0.000100 us/B, Fold 0.000050 us/B
	// a 1 KiB message arrives after 2.102 us
}
