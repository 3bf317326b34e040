package main

// The only file of the runtime that calls the MPI binding (Init, Finalize,
// World, Abort) and makes the conduit.

import (
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// mpiStart initializes MPI and returns the conduit of MPI_COMM_WORLD.
func mpiStart() (coll.Conduit, error) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		return nil, err
	}
	return mpiconduit.NewConduit(mpi.World())
}

// mpiStop finalizes MPI.
func mpiStop() error { return mpi.Finalize() }

// mpiAbort ends every image of the job with code (ERROR STOP).
func mpiAbort(code int) { _ = mpi.Abort(mpi.World(), code) }
