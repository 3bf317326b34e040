//go:build mpich

package main

// The C loops link the MPI library the binding links: MPICH with the build
// tag mpich, Open MPI by default (mpi_openmpi.go).

// #cgo pkg-config: mpich
import "C"
