package gocoll

import (
	"fmt"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The operations of the reductions (package coll's).
var (
	Sum    = coll.Sum
	Prod   = coll.Prod
	Min    = coll.Min
	Max    = coll.Max
	BitAnd = coll.BitAnd
	BitOr  = coll.BitOr
	BitXor = coll.BitXor
	LogAnd = coll.LogAnd
	LogOr  = coll.LogOr
	LogXor = coll.LogXor
	MinLoc = coll.MinLoc
	MaxLoc = coll.MaxLoc
)

// An Option adjusts one collective: OnTeam, WithFlags.
type Option struct {
	team     *images.Team
	flags    gsync.Flags
	hasFlags bool
}

// OnTeam runs the collective on team t (made by coll's Split or
// TeamFromImages) instead of every image; roots are ranks in t.
func OnTeam(t *images.Team) Option { return Option{team: t} }

// WithFlags gives the collective's sync and addressing modes (one input
// and one output sync mode, one addressing mode, and AllThreads where a
// node has several images; package sync), instead of
// IN_MYSYNC|OUT_MYSYNC|LOCAL|ALLTHREADS.
func WithFlags(f gsync.Flags) Option { return Option{flags: f, hasFlags: true} }

// defaultFlags are the sync and addressing modes of a call without
// WithFlags. Every image calls for itself (AllThreads): on a node of one
// image that is the same call as without it, on a node of several the
// only one a single-address form may make.
const defaultFlags = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

// config is a call's team and flags: the defaults, then opts. (Options are
// values, not functions of a config, which would move it to the heap on
// every call.)
func config(im *coll.Image, opts []Option) (*images.Team, gsync.Flags) {
	t, f := im.TeamAll(), defaultFlags
	for _, o := range opts {
		if o.team != nil {
			t = o.team
		}
		if o.hasFlags {
			f = o.flags
		}
	}
	return t, f
}

// ReduceAll sets dst on every image to the element-by-element fold by op of
// every image's src, in rank order (MPI_Allreduce). dst and src have the
// same length, on every image.
func ReduceAll[T any](im *coll.Image, dst, src []T, op coll.Op, opts ...Option) error {
	t, f := config(im, opts)
	return coll.ReduceAllOf(im, t, dst, src, op, f)
}

// Reduce sets dst on the image of rank root to the fold by op of every
// image's src (MPI_Reduce); the other images may pass a nil dst.
func Reduce[T any](im *coll.Image, root int, dst, src []T, op coll.Op, opts ...Option) error {
	t, f := config(im, opts)
	return coll.ReduceOf(im, t, root, dst, src, op, f)
}

// PrefixReduce sets dst on the image of rank r to the fold by op of the
// src of ranks 0..r (MPI_Scan).
func PrefixReduce[T any](im *coll.Image, dst, src []T, op coll.Op, opts ...Option) error {
	t, f := config(im, opts)
	return coll.PrefixReduceOf(im, t, dst, src, op, f)
}

// ExclusivePrefixReduce sets dst on the image of rank r > 0 to the fold by
// op of the src of ranks 0..r-1 (MPI_Exscan); rank 0's dst is not written.
func ExclusivePrefixReduce[T any](im *coll.Image, dst, src []T, op coll.Op, opts ...Option) error {
	t, f := config(im, opts)
	return coll.ExclusivePrefixReduceOf(im, t, dst, src, op, f)
}

// Broadcast copies the root's src into dst on every image (MPI_Bcast, with
// the destination apart from the source); len(dst) elements, the same on
// every image. Images other than the root may pass a nil src; the root may
// pass its src as dst.
func Broadcast[T any](im *coll.Image, dst []T, root int, src []T, opts ...Option) error {
	t, f := config(im, opts)
	return coll.BroadcastOf(im, t, dst, root, src, len(dst), f)
}

// Scatter sets dst on the image of rank r to block r of the root's src
// (MPI_Scatter): blocks of len(dst) elements.
func Scatter[T any](im *coll.Image, dst []T, root int, src []T, opts ...Option) error {
	t, f := config(im, opts)
	return coll.ScatterOf(im, t, dst, root, src, len(dst), f)
}

// Gather sets block r of dst on the image of rank root to the src of rank r
// (MPI_Gather): blocks of len(src) elements.
func Gather[T any](im *coll.Image, root int, dst, src []T, opts ...Option) error {
	t, f := config(im, opts)
	return coll.GatherOf(im, t, root, dst, src, len(src), f)
}

// GatherAll sets block r of dst on every image to the src of rank r
// (MPI_Allgather): blocks of len(src) elements.
func GatherAll[T any](im *coll.Image, dst, src []T, opts ...Option) error {
	t, f := config(im, opts)
	return coll.GatherAllOf(im, t, dst, src, len(src), f)
}

// Exchange sends block q of src to the image of rank q, and sets block q of
// dst to what rank q sent (MPI_Alltoall): src holds one block per image of
// the team, of len(src)/size elements.
func Exchange[T any](im *coll.Image, dst, src []T, opts ...Option) error {
	t, f := config(im, opts)
	count := 0
	if t != nil {
		n := t.Size()
		if len(src)%n != 0 {
			return fmt.Errorf("%w: %d elements is not a block for each of %d images", coll.ErrLength, len(src), n)
		}
		count = len(src) / n
	}
	return coll.ExchangeOf(im, t, dst, src, count, f)
}
