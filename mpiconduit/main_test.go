package mpiconduit

import (
	"fmt"
	"os"
	"testing"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// TestMain runs every test inside one MPI session. Without mpirun the process
// is an MPI singleton (np 1) and tests that need more ranks skip.
func TestMain(m *testing.M) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: Init:", err)
		os.Exit(1)
	}
	code := m.Run()
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: Finalize:", err)
		code = 1
	}
	os.Exit(code)
}
