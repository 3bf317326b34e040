// Package mpitest runs gocoll's collective conformance suite
// (coll/colltest.Suite) on the MPI conduit. Its tests need mpirun for more
// than one node: scripts/mpirun-tests.sh runs them at np 1..8; under plain
// `go test` they run as a one-process MPI job.
package mpitest
