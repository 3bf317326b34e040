// Command collbench is gocoll's main benchmark job: under mpirun it times MPI
// point-to-point and the native MPI collectives through gocoll's Go binding
// (mpiconduit/mpi) and, in the same run, the same MPI calls from a C loop, and
// prints an OSU-style latency table with the Go/C ratio (the cost of the Go
// layer). See `collbench --help`.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/gocoll/gocoll/loggp"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// The benchmark runs on the main goroutine, kept on the main OS thread: MPI
// is initialized, used and finalized from one thread, as the C loops are.
func init() { runtime.LockOSThread() }

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

// realMain runs collbench and returns the exit code: 0, 1 for a failure
// (after MPI_Abort when MPI is up), 2 for bad flags.
func realMain(args []string, stdout, stderr io.Writer) int {
	var msg bytes.Buffer
	cfg, err := parseArgs(args, &msg)
	// Every rank parses the same flags; only the first prints about them.
	quiet := launcherRank() != 0
	switch {
	case errors.Is(err, errHelp):
		if !quiet {
			io.Copy(stdout, &msg)
		}
		return 0
	case err != nil:
		if !quiet {
			fmt.Fprintf(stderr, "collbench: %v\nRun 'collbench --help' for usage.\n", err)
		}
		return 2
	}

	if cfg.predict { // no measurement, no MPI
		fmt.Fprintf(stdout, "# loggp.Default: %v\n", loggp.Default)
		printPredicted(stdout, loggp.Default)
		return 0
	}
	if cfg.fromCSV != "" { // no measurement, no MPI
		if quiet {
			return 0
		}
		if err := plotFromCSV(cfg.plot, cfg.fromCSV); err != nil {
			fmt.Fprintf(stderr, "collbench: %v\n", err)
			return 1
		}
		return 0
	}
	if !quiet {
		cfg.status = statusWriter(cfg.quiet, stderr)
	}

	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintf(stderr, "collbench: %v\n", err)
		return 1
	}
	world := mpi.World()
	if err := bench1(cfg, world, stdout); err != nil {
		fmt.Fprintf(stderr, "collbench: rank %d of %d: %v\n", world.Rank(), world.Size(), err)
		mpi.Abort(world, 1) // the other ranks may wait for this one in a collective
		return 1
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintf(stderr, "collbench: %v\n", err)
		return 1
	}
	return 0
}

// bench1 runs the benchmark on comm with rank 0's outputs (CSV file, CPU
// profile) open around it.
func bench1(cfg config, comm *mpi.Comm, stdout io.Writer) (err error) {
	var csvOut io.Writer
	if comm.Rank() == 0 {
		// Fail before measuring, not after, when the figures cannot be written.
		if cfg.plot != "" {
			lat, rat := plotFiles(cfg.plot)
			for _, name := range []string{lat, rat} {
				if err := writeFile(name, func(io.Writer) error { return nil }); err != nil {
					return fmt.Errorf("--plot: %w", err)
				}
			}
		}
		if cfg.csv != "" {
			f, err := os.Create(cfg.csv)
			if err != nil {
				return fmt.Errorf("--csv: %w", err)
			}
			defer func() {
				if cerr := f.Close(); err == nil && cerr != nil {
					err = fmt.Errorf("--csv: %w", cerr)
				}
			}()
			csvOut = f
		}
	}
	// Every rank profiles when the name has %r (replaced by the rank):
	// in a pipelined collective the slowest rank sets the pace.
	if name := cfg.cpuProfile; name != "" && (comm.Rank() == 0 || strings.Contains(name, "%r")) {
		f, err := os.Create(strings.ReplaceAll(name, "%r", strconv.Itoa(comm.Rank())))
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if cfg.overlap {
		return runOverlap(cfg, comm, stdout)
	}
	return run(cfg, comm, stdout, csvOut)
}
