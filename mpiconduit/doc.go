// Package mpiconduit is gocoll's own Go binding of the MPI subset that gocoll
// needs, and the conduit built on it. It is the only package of gocoll that
// uses cgo; it links Open MPI found with `pkg-config ompi-c`.
//
// Conventions:
//
//   - Every MPI return code is checked. A failing MPI call comes back as an
//     *Error carrying MPI's error class and string; MPI_ERRORS_RETURN is set on
//     every communicator and window this package creates, so MPI never aborts
//     the job silently.
//   - Misuse is reported before MPI is called, with errors that errors.Is
//     matches: ErrNotInitialized, ErrFinalized, ErrNilBuffer, ErrShortBuffer,
//     ErrCount, ErrRank, ErrTag, ErrFreed and others.
//   - Byte-level operations are methods (Comm.Send, Comm.Bcast, ...); typed
//     operations are generic functions over Element (Send, Bcast, Allreduce ...).
//   - Go memory that MPI keeps after a call returns (nonblocking and one-sided
//     operations) is pinned with runtime.Pinner until the operation completes.
//
// A process calls Init once, then any number of operations, then Finalize.
//
// # The conduit
//
// Conduit carries gocoll's collectives on a duplicate of a communicator.
// Between processes of one node, transfers of up to ShmMax bytes go
// through rings in an MPI shared-memory window (MPI_Win_allocate_shared),
// with loads, stores and atomics and no MPI or cgo call, as GASNet's PSHM
// does; GOCOLL_SHM=0 in the environment (or ConduitOptions) turns that off.
// Other small transfers go through C memory, started and tested in one cgo
// call; large ones through MPI_Isend/MPI_Irecv on pinned Go memory, which
// Open MPI moves with a single copy within a node.
package mpiconduit
