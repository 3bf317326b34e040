package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gocoll/gocoll/examples/internal/job"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// TestMain runs the program itself: without mpirun as a job of one image,
// under mpirun (scripts/mpirun-tests.sh) on every rank, image 0 checking
// what it printed.
func TestMain(m *testing.M) {
	// MPI first, for the rank and size (gocoll.Start takes MPI as it
	// finds it; gocoll.Stop finalizes it).
	if _, err := mpi.Init(mpi.ThreadSerialized); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rank, P := mpi.World().Rank(), mpi.World().Size()
	out := job.Capture(main)
	if rank == 0 {
		want := fmt.Sprintf("%d images, sum: [%d %d %d]\n", P, P, 2*P, P*(P-1)/2)
		if out != want {
			fmt.Fprintf(os.Stderr, "the program printed %q, want %q\n", out, want)
			os.Exit(1)
		}
	} else if out != "" {
		fmt.Fprintf(os.Stderr, "image %d printed %q\n", rank, out)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestReadmeShowsMain checks that README.md's first Go program is main.go.
func TestReadmeShowsMain(t *testing.T) {
	if err := readmeShowsMain(); err != nil {
		t.Fatal(err)
	}
}

// readmeShowsMain compares README.md with main.go, found beside this file
// (mpirun may start the test elsewhere).
func readmeShowsMain() error {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	readme, err := os.ReadFile(filepath.Join(dir, "../../README.md"))
	if err != nil {
		return err
	}
	prog, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		return err
	}
	_, block, ok := strings.Cut(string(readme), "```go\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 || block != string(prog) {
		return fmt.Errorf("README.md's first Go program is not examples/sum/main.go:\n%s", block)
	}
	return nil
}
