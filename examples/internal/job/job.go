// Package job starts and ends the examples' MPI job: MPI, the MPI conduit
// over MPI_COMM_WORLD and gocoll's image of this process. It is the only
// place where the examples use the MPI binding; everything else they do goes
// through gocoll's collectives.
package job

import (
	"errors"
	"fmt"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/reducefn"
)

// Job is this process's part of an MPI job running gocoll, one image per
// process.
type Job struct {
	Image *coll.Image
	cd    *mpiconduit.Conduit
}

// Start initializes MPI and gocoll (collective: every process calls it),
// with the reduction functions fns.
func Start(fns []reducefn.Entry) (*Job, error) {
	if _, err := mpiconduit.Init(mpiconduit.ThreadMultiple); err != nil {
		return nil, fmt.Errorf("MPI init: %w", err)
	}
	cd, err := mpiconduit.NewConduit(mpiconduit.World())
	if err != nil {
		return nil, err
	}
	im, err := coll.Init(cd, nil, 0, fns, 0, coll.Options{})
	if err != nil {
		return nil, err
	}
	return &Job{Image: im, cd: cd}, nil
}

// Close ends gocoll and MPI (collective). The image makes the progress it
// still owes its peers first.
func (j *Job) Close() error {
	err := j.Image.Close()
	err = errors.Join(err, j.cd.Close())
	return errors.Join(err, mpiconduit.Finalize())
}

// Abort ends every process of the job (MPI_Abort), for an error on one
// process that may leave the others waiting in a collective.
func (j *Job) Abort(code int) {
	_ = mpiconduit.Abort(mpiconduit.World(), code)
}
