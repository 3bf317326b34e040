package main

// The runtime's CPU profile (GOCOLL_CAF_CPUPROFILE), and the profile it is
// built with: default.pgo, beside this file, is a CPU profile of
// coarray/fortran/bench/bench.f90 on this runtime, which go build uses for
// profile-guided optimization of this package and everything under it
// (inlining along the hot calls of a collective), which makes a small
// CO_SUM measurably faster (scripts/cosum-rounds.sh with and without
// -pgo=off). scripts/pgo-profile.sh makes it anew;
// the code it was taken from may have changed since, which costs PGO only
// some of its gain, never correctness.

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profile is the CPU profile being written, nil if none.
var profile *os.File

// startProfile starts the CPU profile of the Go side of this process when
// GOCOLL_CAF_CPUPROFILE names a path: it goes to that path with ".N"
// appended, N the image index in the initial team, and ends at
// finalization (a job ended by ERROR STOP leaves it unfinished).
func startProfile(image int) error {
	path := os.Getenv("GOCOLL_CAF_CPUPROFILE")
	if path == "" {
		return nil
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", path, image))
	if err != nil {
		return fmt.Errorf("GOCOLL_CAF_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return fmt.Errorf("GOCOLL_CAF_CPUPROFILE: %w", err)
	}
	profile = f
	return nil
}

// stopProfile ends the CPU profile, if one is being written.
func stopProfile() error {
	if profile == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := profile.Close()
	profile = nil
	if err != nil {
		return fmt.Errorf("GOCOLL_CAF_CPUPROFILE: %w", err)
	}
	return nil
}
