// Package mpitest runs the coarray face's conformance checks
// (coarray/coarraytest) over MPI. scripts/mpirun-tests.sh runs it at several
// rank counts; under plain `go test` it runs as a one-process MPI job.
package mpitest
