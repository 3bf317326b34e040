package main

// The only file of the runtime that calls the MPI binding (Init, Finalize,
// World, Abort, and SYNC IMAGES' messages) and makes the conduit.

import (
	"errors"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// mpiStart initializes MPI and returns the conduit of MPI_COMM_WORLD.
func mpiStart() (coll.Conduit, error) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		return nil, err
	}
	var err error
	if syncComm, err = mpi.World().Dup(); err != nil {
		return nil, err
	}
	return mpiconduit.NewConduit(mpi.World())
}

// mpiStop finalizes MPI.
func mpiStop() error {
	var err error
	if syncComm != nil {
		err = syncComm.Free()
	}
	return errors.Join(err, mpi.Finalize())
}

// mpiAbort ends every image of the job with code (ERROR STOP).
func mpiAbort(code int) { _ = mpi.Abort(mpi.World(), code) }

// syncComm carries SYNC IMAGES' messages, apart from the conduit's.
var syncComm *mpi.Comm

// syncTag is the tag of SYNC IMAGES' messages.
const syncTag = 1

// syncWith is SYNC IMAGES with the processes of ranks: one empty message
// to each and one from each. MPI keeps the messages of a pair in order, so
// the k-th SYNC IMAGES of one image with another matches the other's k-th
// with it, as the standard says.
func syncWith(ranks []int) error {
	if len(ranks) == 0 {
		return nil
	}
	var none [0]byte
	reqs := make([]*mpi.Request, 0, 2*len(ranks))
	var err error
	for _, r := range ranks {
		var q *mpi.Request
		if q, err = syncComm.Isend(none[:], r, syncTag); err != nil {
			break
		}
		reqs = append(reqs, q)
		if q, err = syncComm.Irecv(none[:], r, syncTag); err != nil {
			break
		}
		reqs = append(reqs, q)
	}
	for _, q := range reqs {
		if _, werr := q.Wait(); err == nil {
			err = werr
		}
	}
	return err
}
