package mpi_test

import (
	"fmt"
	"log"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// A program run with `mpirun -np 4 ./prog`: every rank sums its rank into an
// Allreduce and rank 0 sends a greeting to rank 1. (Compiled, not run: the
// package's tests already hold the MPI session.)
func Example() {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	world := mpi.World()

	sum := []float64{float64(world.Rank())}
	if err := mpi.Allreduce(world, sum, sum, mpi.OpSum); err != nil { // in place
		log.Fatal(err)
	}

	switch world.Rank() {
	case 0:
		if world.Size() > 1 {
			if err := world.Send([]byte("hello"), 1, 7); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Println("sum of ranks:", sum[0])
	case 1:
		buf := make([]byte, 5)
		st, err := world.Recv(buf, 0, 7)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("rank 1 got %q from rank %d\n", buf, st.Source)
	}
}
