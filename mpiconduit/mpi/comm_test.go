package mpi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDupSplitCreateFree(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()

	d, err := w.Dup()
	require.NoError(t, err)
	require.Equal(t, p, d.Size())
	require.Equal(t, me, d.Rank())
	// A message on the duplicate does not match a receive on World.
	r, err := Isend(d, []int32{int32(me)}, me, 5)
	require.NoError(t, err)
	_, found, err := w.Iprobe(me, 5)
	require.NoError(t, err)
	require.False(t, found, "Dup must give a separate message space")
	got := []int32{-1}
	_, err = Recv(d, got, me, 5)
	require.NoError(t, err)
	_, err = r.Wait()
	require.NoError(t, err)
	require.Equal(t, int32(me), got[0])

	// Split by parity, ordered by descending rank.
	s, err := w.Split(me%2, -me)
	require.NoError(t, err)
	var mates []int
	for q := p - 1; q >= 0; q-- {
		if q%2 == me%2 {
			mates = append(mates, q)
		}
	}
	require.Equal(t, len(mates), s.Size())
	require.Equal(t, mates[s.Rank()], me)
	sum := []int64{int64(me)}
	require.NoError(t, Allreduce(s, sum, sum, OpSum))
	want := int64(0)
	for _, q := range mates {
		want += int64(q)
	}
	require.Equal(t, want, sum[0], "Split communicator sums its members")

	// Undefined color gives nil.
	color := 0
	if me == p-1 && p > 1 {
		color = Undefined
	}
	u, err := w.Split(color, 0)
	require.NoError(t, err)
	if color == Undefined {
		require.Nil(t, u)
	} else {
		require.Equal(t, max(1, p-1), u.Size())
		require.NoError(t, u.Free())
	}

	// Create from the reversed list of even ranks.
	var evens []int
	for q := p - 1; q >= 0; q-- {
		if q%2 == 0 {
			evens = append(evens, q)
		}
	}
	c, err := w.Create(evens)
	require.NoError(t, err)
	if me%2 == 1 {
		require.Nil(t, c)
	} else {
		require.Equal(t, len(evens), c.Size())
		require.Equal(t, me, evens[c.Rank()])
		require.NoError(t, c.Barrier())
		require.NoError(t, c.Free())
		require.ErrorIs(t, c.Barrier(), ErrFreed)
		require.ErrorIs(t, c.Free(), ErrFreed)
		_, err = c.Dup()
		require.ErrorIs(t, err, ErrFreed)
		require.ErrorIs(t, c.Send([]byte{1}, 0, 0), ErrFreed)
	}

	_, err = w.Create([]int{0, 0})
	require.ErrorIs(t, err, ErrArg)
	_, err = w.Create([]int{p})
	require.ErrorIs(t, err, ErrRank)
	_, err = w.Split(-4, 0)
	require.ErrorIs(t, err, ErrArg)

	require.NoError(t, s.Free())
	require.NoError(t, d.Free())
	require.NoError(t, w.Barrier())
}
