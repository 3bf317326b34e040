package mpi

import (
	"fmt"
	"os"
)

// RunTests runs a test binary's tests (m is its *testing.M) inside one MPI
// session: Init with MPI_THREAD_MULTIPLE before them, Finalize after. It
// returns the exit code, for a TestMain to end with:
//
//	func TestMain(m *testing.M) { os.Exit(mpi.RunTests(m)) }
//
// Without mpirun the process is an MPI singleton (np 1), where tests that
// need more ranks should skip.
func RunTests(m interface{ Run() int }) int {
	if _, err := Init(ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: MPI init:", err)
		return 1
	}
	code := m.Run()
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: MPI finalize:", err)
		code = 1
	}
	return code
}
