// Package mpiconduit is gocoll's conduit over MPI: Conduit carries gocoll's
// collectives (it implements coll.Conduit without importing coll) on a
// duplicate of a communicator. It is pure Go: every MPI call goes through
// gocoll's binding, package mpiconduit/mpi, the only cgo package, which
// this package imports and nothing else of gocoll.
//
// Where each rule lives:
//
//   - conduit.go: the transfers and their completion. Between processes of
//     one node, transfers of up to ShmMax bytes go through the rings of
//     shm.go; other transfers of up to BounceMax bytes through C memory,
//     started and tested in one cgo call (mpi.Comm.IsendBounce); larger ones
//     through MPI_Isend/MPI_Irecv on pinned Go memory, which Open MPI moves
//     with a single copy within a node. One MPI_Testsome per Poll finds
//     every completion (mpi.TestsomeHandles); a Poll with no MPI request
//     still lets MPI progress now and then, for peers' one-sided
//     operations on this process's windows (MPICH needs it).
//   - shm.go: the shared-memory path, rings in an MPI shared window
//     (MPI_Win_allocate_shared) with loads, stores and atomics and no MPI or
//     cgo call, as GASNet's PSHM does (the flags' and tails' stores in
//     publish_plain.go and publish_atomic.go); GOCOLL_SHM=0 in the
//     environment (or ConduitOptions) turns it off, and
//     ConduitOptions.MaxNodeSize splits a host into smaller nodes.
//   - segment.go: segments and one-sided transfers (coll.OneSided:
//     AllocSegment, PutNotify, Get). Within a node a copy into or out of
//     the peer's shared segment, the notification through the ring; between
//     nodes an MPI window in a passive-target epoch, MPI_Put with
//     MPI_Win_flush and a notification message, MPI_Get with
//     MPI_Win_flush_local, one cgo call each (mpi.Win.PutNotify,
//     mpi.Win.GetNow). Passive target was chosen over
//     post/start/complete/wait by BenchmarkOneSided (segment.go).
//     Without RMA (Open MPI's osc/pt2pt under
//     MPI_THREAD_MULTIPLE, btl/tcp between hosts) AllocSegment returns
//     ErrNoRMA.
//
// MPI's own misuse errors (mpi.ErrRank, mpi.ErrTag, mpi.ErrFreed ...) come
// back unchanged from the conduit's calls.
package mpiconduit
