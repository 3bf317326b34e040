package mpi

import (
	"fmt"
	"strings"
)

// Known defects of the MPI libraries the binding links that its tests of
// the native collectives step around, each naming what it leaves out. Each
// is MPI's, not the binding's: the same calls on other types are tested as
// everywhere. (The defects the binding works around itself are tested in
// full: see gc_coll.c and gc_win.c.)

// mpichVersion is MPICH's version ("4.0.2"), "" for another library.
func mpichVersion() string {
	if Library != "mpich" {
		return ""
	}
	v := LibraryVersion()
	if _, after, ok := strings.Cut(v, "MPICH Version:"); ok {
		v = after
	}
	return strings.Fields(v + " ?")[0]
}

// mpichBefore reports whether the binding links an MPICH older than
// major.minor.
func mpichBefore(major, minor int) bool {
	var a, b int
	if _, err := fmt.Sscanf(mpichVersion(), "%d.%d", &a, &b); err != nil {
		return false
	}
	return a < major || a == major && b < minor
}

// mpichUnsignedMinMax reports whether op on T meets MPICH's MPI_MIN and
// MPI_MAX on unsigned integers, computed as if signed before 4.1
// (pmodels/mpich#6083).
func mpichUnsignedMinMax[T Element](op Op) bool {
	switch DatatypeOf[T]() {
	case Uint8, Uint16, Uint32, Uint64, DatatypeOf[uint]():
		return (op == OpMin || op == OpMax) && mpichBefore(4, 1)
	}
	return false
}
