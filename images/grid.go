package images

import (
	"errors"
	"fmt"
	"slices"
)

// ErrGrid reports a Cartesian grid that does not fit its team: dimensions
// that are not positive or do not multiply to the team's size, or a list
// of periodicities of another length.
var ErrGrid = errors.New("gocoll: grid dimensions do not fit the team")

// NoNeighbor is the neighbour rank past the edge of a dimension that is
// not periodic (MPI_PROC_NULL).
const NoNeighbor = -1

// Grid lays a team's ranks on a Cartesian grid, as MPI_Cart_create does
// without reordering: rank r sits at the coordinates of r in row-major
// order (the last dimension varies fastest), and a periodic dimension
// wraps around. It is immutable and makes no communication; every image
// of the team makes the same grid.
type Grid struct {
	team     *Team
	dims     []int
	periodic []bool
}

// NewGrid is the grid of team t with dims and, for each dimension,
// whether it is periodic.
func NewGrid(t *Team, dims []int, periodic []bool) (*Grid, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil team", ErrGrid)
	}
	if len(periodic) != len(dims) || len(dims) == 0 {
		return nil, fmt.Errorf("%w: %d dimensions, %d periodicities", ErrGrid, len(dims), len(periodic))
	}
	n := 1
	for _, d := range dims {
		if d <= 0 || n > t.Size()/d {
			return nil, fmt.Errorf("%w: dims %v for a team of %d", ErrGrid, dims, t.Size())
		}
		n *= d
	}
	if n != t.Size() {
		return nil, fmt.Errorf("%w: dims %v make %d places for a team of %d", ErrGrid, dims, n, t.Size())
	}
	return &Grid{team: t, dims: slices.Clone(dims), periodic: slices.Clone(periodic)}, nil
}

// Team is the grid's team.
func (g *Grid) Team() *Team { return g.team }

// Dims are the grid's dimensions.
func (g *Grid) Dims() []int { return slices.Clone(g.dims) }

// Coords are rank's coordinates.
func (g *Grid) Coords(rank int) []int {
	c := make([]int, len(g.dims))
	for i := len(g.dims) - 1; i >= 0; i-- {
		c[i] = rank % g.dims[i]
		rank /= g.dims[i]
	}
	return c
}

// Rank is the rank at coords, wrapped in periodic dimensions; NoNeighbor
// when a coordinate of a dimension that is not periodic is outside it.
func (g *Grid) Rank(coords []int) int {
	r := 0
	for i, c := range coords {
		d := g.dims[i]
		if c < 0 || c >= d {
			if !g.periodic[i] {
				return NoNeighbor
			}
			c = ((c % d) + d) % d
		}
		r = r*d + c
	}
	return r
}

// Shift is MPI_Cart_shift: the ranks disp steps below (src) and above
// (dst) rank along dimension dim, NoNeighbor past an edge that is not
// periodic.
func (g *Grid) Shift(rank, dim, disp int) (src, dst int) {
	return g.step(rank, dim, -disp), g.step(rank, dim, disp)
}

// step is the rank by steps along dimension dim from rank (wrapped in a
// periodic dimension), NoNeighbor past an edge that is not periodic;
// by arithmetic on the rank, without its coordinates.
func (g *Grid) step(rank, dim, by int) int {
	stride := 1
	for _, n := range g.dims[dim+1:] {
		stride *= n
	}
	n, c := g.dims[dim], rank/stride%g.dims[dim]
	to := c + by
	if to < 0 || to >= n {
		if !g.periodic[dim] {
			return NoNeighbor
		}
		to = (to%n + n) % n
	}
	return rank + (to-c)*stride
}

// Neighbors are rank's neighbours in MPI's order for a Cartesian
// communicator: for each dimension, the one below, then the one above
// (NoNeighbor past an edge that is not periodic; a periodic dimension of
// two gives the same rank twice).
func (g *Grid) Neighbors(rank int) []int {
	ns := make([]int, 2*len(g.dims))
	for i := range ns {
		ns[i] = g.Neighbor(rank, i)
	}
	return ns
}

// NumNeighbors is the length of Neighbors' list: two per dimension.
func (g *Grid) NumNeighbors() int { return 2 * len(g.dims) }

// Neighbor is Neighbors(rank)[i], without making the list: the neighbour
// below (i even) or above (i odd) rank in dimension i/2.
func (g *Grid) Neighbor(rank, i int) int {
	if i%2 == 0 {
		return g.step(rank, i/2, -1)
	}
	return g.step(rank, i/2, 1)
}

// Dim is the size of dimension i and whether it is periodic.
func (g *Grid) Dim(i int) (n int, periodic bool) { return g.dims[i], g.periodic[i] }
