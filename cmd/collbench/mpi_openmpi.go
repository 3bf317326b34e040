//go:build !mpich

package main

// The C loops link the MPI library the binding links: Open MPI by
// default, MPICH with the build tag mpich (mpi_mpich.go).

// #cgo pkg-config: ompi-c
import "C"
