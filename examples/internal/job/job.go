// Package job starts and ends the examples' MPI job (gocoll.Start and
// Stop), reports their errors, and aborts the job on one. It is the only
// place where the examples use the MPI binding (MPI_Abort); everything else
// they do goes through gocoll's collectives.
package job

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// Job is this process's part of an MPI job running gocoll, one image per
// process.
type Job struct {
	Image *coll.Image
}

// Start initializes MPI and gocoll (collective: every process calls it).
func Start() (*Job, error) {
	im, err := gocoll.Start()
	if err != nil {
		return nil, err
	}
	return &Job{Image: im}, nil
}

// Close ends gocoll and MPI (collective). The image makes the progress it
// still owes its peers first.
func (j *Job) Close() error { return gocoll.Stop(j.Image) }

// Abort ends every process of the job (MPI_Abort), for an error on one
// process that may leave the others waiting in a collective.
func (j *Job) Abort(code int) {
	_ = mpi.Abort(mpi.World(), code)
}

// ErrUsage marks an error in a program's input, the same on every process
// (see Usage): Main reports it once and exits with 2, without aborting the
// job.
var ErrUsage = errors.New("bad input")

// Usage marks err as an error in the program's input; its message is err's.
func Usage(err error) error { return usageError{err} }

type usageError struct{ error }

func (usageError) Is(target error) bool { return target == ErrUsage }

func (e usageError) Unwrap() error { return e.error }

// Main is the body of an example program's main: it starts the job, runs
// solve on this process's image, prints its report (image 0) to
// stdout, ends the job, and returns the exit code. An error of solve that
// wraps ErrUsage is printed once and gives 2; any other is printed by the
// image that got it, aborts the job (the others may be waiting for this one
// in a collective) and gives 1. Errors of input say the program's name
// themselves.
func Main(name string, stdout, stderr io.Writer, solve func(im *coll.Image) (report string, err error)) int {
	j, err := Start()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	im := j.Image
	report, err := solve(im)
	switch {
	case errors.Is(err, ErrUsage):
		if im.ImageNum() == 0 {
			fmt.Fprintln(stderr, err)
		}
		j.Close()
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "%s: image %d: %v\n", name, im.ImageNum(), err)
		j.Abort(1)
		return 1
	}
	if im.ImageNum() == 0 {
		fmt.Fprint(stdout, report)
	}
	if err := j.Close(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}

// TestMain runs a test binary's tests inside one MPI job (a singleton
// under `go test`, np ranks under mpirun), with *j set to it, and returns
// the exit code.
func TestMain(m *testing.M, j **Job) int {
	var err error
	if *j, err = Start(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	code := m.Run()
	if err := (*j).Close(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	return code
}

// Capture runs f with the process's standard output gathered, for tests
// of programs that print.
func Capture(f func()) string {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, r)
		done <- b.String()
	}()
	f()
	os.Stdout = stdout
	w.Close()
	return <-done
}
