package mpiconduit

import (
	"os"
	"testing"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// TestMain runs every test inside one MPI session. Without mpirun the process
// is an MPI singleton (np 1) and tests that need more ranks skip.
func TestMain(m *testing.M) { os.Exit(mpi.RunTests(m)) }
