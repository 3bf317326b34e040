package main

// The only file of the runtime that calls the MPI binding (Init, Finalize,
// World, Abort) and makes the conduit.

import (
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
)

// mpiStart initializes MPI and returns the conduit of MPI_COMM_WORLD.
func mpiStart() (coll.Conduit, error) {
	if _, err := mpiconduit.Init(mpiconduit.ThreadMultiple); err != nil {
		return nil, err
	}
	return mpiconduit.NewConduit(mpiconduit.World())
}

// mpiStop finalizes MPI.
func mpiStop() error { return mpiconduit.Finalize() }

// mpiAbort ends every image of the job with code (ERROR STOP).
func mpiAbort(code int) { _ = mpiconduit.Abort(mpiconduit.World(), code) }
