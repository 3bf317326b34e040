// Package mpi is gocoll's own Go binding of the MPI subset that gocoll
// needs, and the only package of gocoll that uses cgo; it links Open MPI
// found with `pkg-config ompi-c`, or, with the build tag mpich, MPICH found
// with `pkg-config mpich` (openmpi.go and mpich.go hold what differs:
// how handles cross cgo, the environment set before Init; Library names
// the one linked). It imports nothing of gocoll; the conduit built on it is
// package mpiconduit.
//
// A process calls Init once, then any number of operations, then Finalize.
//
// Conventions, and where each lives:
//
//   - Every MPI return code is checked. A failing MPI call comes back as an
//     *Error carrying MPI's error class and string (errors.go);
//     MPI_ERRORS_RETURN is set on every communicator and window this package
//     creates, so MPI never aborts the job silently.
//   - Misuse is reported before MPI is called, with errors that errors.Is
//     matches: ErrNotInitialized, ErrFinalized, ErrNilBuffer, ErrShortBuffer,
//     ErrCount, ErrRank, ErrTag, ErrFreed and others (errors.go; the checks
//     sit beside each call).
//   - Byte-level operations are methods (Comm.Send, Comm.Bcast, ...); typed
//     operations are generic functions over Element (Send, Bcast, Allreduce
//     ...; datatype.go maps Go types to MPI datatypes).
//   - Go memory that MPI keeps after a call returns (nonblocking and
//     one-sided operations) is pinned with runtime.Pinner until the
//     operation completes, or for a persistent request until it is freed
//     (request.go, window.go).
//   - Calls are shaped for cgo's cost (gc.h): handles cross as integers,
//     buffers as char *, results come back by value, and work that would take
//     several cgo calls is done in one C helper.
//
// The files: mpi.go (init, thread levels, world), comm.go (communicators),
// p2p.go and request.go (point-to-point, requests and their tests),
// coll.go and icoll.go (the native collectives, the benchmark baseline),
// pcoll.go (their persistent forms: set up once, started many times),
// vcoll.go (their v forms: a count and a displacement per rank, and
// Reduce_scatter), cart.go (Cartesian grids and the neighbour exchange),
// op.go and userop.go (operators, Go functions as MPI operators),
// window.go (one-sided windows and epochs), and batch.go: the batched
// nonblocking layer for a caller with its own table of transfers (bare
// handles, C bounce buffers, start-and-test and Testsome in one cgo call
// each), which mpiconduit's hot path uses, with the shared windows of
// window.go (WinAllocateShared, Win.SharedMem).
package mpi
