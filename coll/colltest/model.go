package colltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// The model test: a random program of collectives, the same on every
// image (drawn from one seed), run against a sequential model of what each
// collective must leave in its destinations. Every operation picks a kind
// (the five data-movement collectives and the four reductions), a team
// (TeamAll or one of three split teams), a root, sizes, layouts, a form
// (AllThreads with single or m addresses, or a representative with an m
// form or a single address), one of the nine sync modes with either
// addressing mode, and blocking or not. Non-blocking handles stay
// outstanding and each image syncs them in an order of its own with Wait,
// Try, WaitAll, TryAll, WaitSome or TrySome.
//
// The program is legal under the spec's sync modes, so any failure is a
// bug. It runs in epochs between barriers on TeamAll:
//
//   - An IN_NOSYNC operation may move data as soon as any image entered,
//     so its buffers are written before the barrier that opens the epoch
//     and were not used in the epoch before it.
//   - IN_MYSYNC and IN_ALLSYNC operations have their buffers written by
//     their own image just before the call (only local writes).
//   - After an image synced an OUT_MYSYNC or OUT_ALLSYNC operation its
//     destinations are checked at once and its buffers may be reused by a
//     later IN_MYSYNC or IN_ALLSYNC operation of the epoch.
//   - An OUT_NOSYNC operation's memory is synchronized once every image
//     synced it: its destinations are checked, and its buffers reused,
//     only after the barrier that closes the epoch.
//
// Values depend on the operation, the team and the rank or element, so a
// block from another operation, team instance or place shows.

// ModelConfig sizes a model run.
type ModelConfig struct {
	// Seed draws the program; every image must give the same one.
	Seed uint64
	// Ops is the number of operations (default 10000).
	Ops int
	// MaxOutstanding bounds an image's unsynced handles (default 6).
	MaxOutstanding int
	// MaxEpoch bounds the operations between two barriers (default 12).
	MaxEpoch int
	// MaxBlock bounds a data-movement block in bytes (default 300).
	MaxBlock int
}

// The model's function table (ModelFuncs): Init must be given it.
const (
	modelSum    = iota // int64 sum, lane by lane: commutative
	modelAffine        // composition of x -> a*x + b over int64: non-commutative
	modelXor           // bytewise xor: commutative, one-byte scalars
)

// ModelFuncs is the function table Model's reductions use; pass it to
// coll.Init (or RunImages).
var ModelFuncs = []reducefn.Entry{
	modelSum:    reducefn.Sum[int64](),
	modelAffine: {Fn: affineFn, Flags: reducefn.NonComm},
	modelXor:    reducefn.BitXor[uint8](),
}

// affineFn composes maps (a, b), x -> a*x + b, the left one applied
// first, in the callback's prefix shape.
func affineFn(results, left, right []byte, es int, _ reducefn.Flags, _ int) {
	var acc []byte
	for i := 0; i+es <= len(left); i += es {
		acc = affineOp(acc, left[i:i+es])
	}
	for i := 0; i+es <= len(right); i += es {
		acc = affineOp(acc, right[i:i+es])
		copy(results[i:i+es], acc)
	}
}

// affineOp is x then y (x nil: y alone), in a new slice.
func affineOp(x, y []byte) []byte {
	if x == nil {
		return slices.Clone(y)
	}
	a1, b1 := int64(binary.LittleEndian.Uint64(x)), int64(binary.LittleEndian.Uint64(x[8:]))
	a2, b2 := int64(binary.LittleEndian.Uint64(y)), int64(binary.LittleEndian.Uint64(y[8:]))
	out := make([]byte, 16)
	binary.LittleEndian.PutUint64(out, uint64(a2*a1))
	binary.LittleEndian.PutUint64(out[8:], uint64(a2*b1+b2))
	return out
}

// modelCombine is the model's own x op y for function fn, written apart
// from the callbacks so that the engine is checked against arithmetic, not
// against itself.
func modelCombine(fn int, x, y []byte) []byte {
	switch fn {
	case modelAffine:
		return affineOp(x, y)
	case modelSum:
		out := make([]byte, len(x))
		for k := 0; k < len(x); k += 8 {
			binary.LittleEndian.PutUint64(out[k:], binary.LittleEndian.Uint64(x[k:])+binary.LittleEndian.Uint64(y[k:]))
		}
		return out
	default:
		out := make([]byte, len(x))
		for k := range x {
			out[k] = x[k] ^ y[k]
		}
		return out
	}
}

// modelKinds: the five data-movement kinds (index into kinds) and then
// the reductions.
const (
	mReduce = iota + 5
	mReduceAll
	mPrefix
	mExPrefix
	mKinds
)

var reductionNames = [...]string{"reduce", "reduce_all", "prefix_reduce", "exclusive_prefix_reduce"}

// mop is one operation of the program, as every image draws it.
type mop struct {
	i      int
	kind   int
	team   int // index into the model's teams
	root   int // taken modulo the team instance's size
	n      int // block size (data movement)
	fn, es int // reductions
	count  int
	sl, dl coll.Layout // layouts, BlockSize 0: indefinite (Offset taken modulo the size)
	f      gsync.Flags
	form   Form
	nb     bool
	plan   bool // made as a plan (coll.Plan), then started
	v      bool // a data-movement op other than broadcast, in a single-address form: made by its v-variant
	seed   uint64
}

func (o *mop) String() string {
	var what string
	if o.kind < len(kinds) {
		what = fmt.Sprintf("%s n=%d", kinds[o.kind].name, o.n)
	} else {
		what = fmt.Sprintf("%s fn=%d es=%d count=%d src=%+v dst=%+v", reductionNames[o.kind-mReduce], o.fn, o.es, o.count, o.sl, o.dl)
	}
	nb := "blocking"
	if o.nb {
		nb = "NB"
	}
	if o.v {
		nb += " v"
	}
	if o.plan {
		nb += " plan"
	}
	return fmt.Sprintf("op %d: %s team %d root %d %v %v %s", o.i, what, o.team, o.root, o.f, o.form, nb)
}

// modelTeam is one of the model's teams as this image sees it.
type modelTeam struct {
	t       *images.Team // nil: not a member
	members []int        // images by team rank, as the model expects
}

// pending is an operation this image called and has not finished with:
// its handle (until synced), its members' buffers, and its check.
type pending struct {
	op       *mop
	h        gsync.Handle
	plan     *coll.Plan // the plan started, freed once synced
	synced   bool
	dst, src [][]byte // by entry of ranks
	ranks    []int
	tm       *modelTeam
	root     int
}

// modelImage is one image's run of the model.
type modelImage struct {
	im    *coll.Image
	nd    *Node
	cfg   ModelConfig
	local *rand.Rand // choices of this image alone: offsets, sync order
	teams []modelTeam
	// buffers by length: clean ones were last used before the latest
	// barrier, dirty ones in this epoch
	clean, dirty map[int][][]byte
	out          []*pending // called, not yet synced
	held         []*pending // synced OUT_NOSYNC: checked and freed at the epoch's end
}

// Model runs the model program of cfg on im; every image of the job calls
// it (on its own goroutine), nd being its node (NewNode), after Init with
// ModelFuncs. The error names the operation that failed.
func Model(im *coll.Image, nd *Node, cfg ModelConfig) error {
	if cfg.Ops == 0 {
		cfg.Ops = 10000
	}
	if cfg.MaxOutstanding == 0 {
		cfg.MaxOutstanding = 6
	}
	if cfg.MaxEpoch == 0 {
		cfg.MaxEpoch = 12
	}
	if cfg.MaxBlock == 0 {
		cfg.MaxBlock = 300
	}
	m := &modelImage{im: im, nd: nd, cfg: cfg,
		local: rand.New(rand.NewPCG(cfg.Seed, uint64(im.ImageNum())+1)),
		clean: map[int][][]byte{}, dirty: map[int][][]byte{}}
	global := rand.New(rand.NewPCG(cfg.Seed, 0))
	if err := m.makeTeams(global); err != nil {
		return err
	}
	all := im.TeamAll()
	for i := 0; i < cfg.Ops; {
		epoch := make([]*mop, min(1+global.IntN(cfg.MaxEpoch), cfg.Ops-i))
		for k := range epoch {
			epoch[k] = draw(global, i+k, im.Images() == im.Table().Nodes(), len(m.teams), cfg.MaxBlock)
		}
		i += len(epoch)
		// IN_NOSYNC operations: buffers written before the opening barrier.
		early := map[*mop]*pending{}
		for _, o := range epoch {
			if o.f&gsync.InNoSync != 0 {
				early[o] = m.prepare(o, m.clean)
			}
		}
		if err := im.Barrier(all); err != nil {
			return fmt.Errorf("seed %d: barrier before op %d: %w", cfg.Seed, epoch[0].i, err)
		}
		for _, o := range epoch {
			if err := m.step(o, early[o]); err != nil {
				return fmt.Errorf("seed %d: %v (image %d): %w", cfg.Seed, o, im.ImageNum(), err)
			}
		}
		if err := m.syncAll(); err != nil {
			return fmt.Errorf("seed %d: epoch ending at op %d (image %d): %w", cfg.Seed, i-1, im.ImageNum(), err)
		}
		if err := im.Barrier(all); err != nil {
			return fmt.Errorf("seed %d: barrier after op %d: %w", cfg.Seed, i-1, err)
		}
		for _, p := range m.held {
			if err := m.check(p); err != nil {
				return fmt.Errorf("seed %d: %v (image %d, checked after the barrier): %w", cfg.Seed, p.op, im.ImageNum(), err)
			}
			m.free(p, m.clean)
		}
		m.held = m.held[:0]
		for n, bs := range m.dirty {
			m.clean[n] = append(m.clean[n], bs...)
			delete(m.dirty, n)
		}
	}
	return nil
}

// makeTeams makes the model's teams on every image: TeamAll; the images
// of each parity (by image number, so team 1 has two instances); a random
// subset in random order (TeamFromImages); and team 1 again in a random
// order (Split of team 1 with random keys). Each team's members are
// checked against what the model expects.
func (m *modelImage) makeTeams(g *rand.Rand) error {
	im := m.im
	N, me := im.Images(), im.ImageNum()
	all := make([]int, N)
	for i := range all {
		all[i] = i
	}
	m.teams = []modelTeam{{t: im.TeamAll(), members: all}}

	var parity []int
	for i := me % 2; i < N; i += 2 {
		parity = append(parity, i)
	}
	t1, err := im.Split(im.TeamAll(), me%2, me)
	if err != nil {
		return err
	}
	m.teams = append(m.teams, modelTeam{t1, parity})

	subset := g.Perm(N)[:1+g.IntN(N)]
	var t2 *images.Team
	if t2, err = im.TeamFromImages(im.TeamAll(), subset); err != nil {
		return err
	}
	if !slices.Contains(subset, me) {
		subset = nil
	}
	m.teams = append(m.teams, modelTeam{t2, subset})

	perm := g.Perm(N) // keys, by image
	t3, err := im.Split(t1, 0, perm[me])
	if err != nil {
		return err
	}
	reordered := slices.Clone(parity)
	slices.SortFunc(reordered, func(a, b int) int { return perm[a] - perm[b] })
	m.teams = append(m.teams, modelTeam{t3, reordered})

	for i, tm := range m.teams {
		if (tm.t == nil) != (tm.members == nil) {
			return fmt.Errorf("team %d: membership %v, model %v", i, tm.t != nil, tm.members)
		}
		if tm.t != nil && !slices.Equal(tm.t.Images(), tm.members) {
			return fmt.Errorf("team %d: images %v, model %v", i, tm.t.Images(), tm.members)
		}
	}
	return nil
}

// draw is operation i of the program, on one of teams teams, with blocks
// up to maxBlock; the single-address form without AllThreads only where
// every node has one image.
func draw(g *rand.Rand, i int, onePerNode bool, teams, maxBlock int) *mop {
	o := &mop{i: i, kind: g.IntN(mKinds), seed: g.Uint64(), root: g.IntN(1 << 20)}
	if g.IntN(2) == 0 {
		o.team = 1 + g.IntN(teams-1)
	}
	sizes := []int{1, 2, 3, 7, 8, 16, 33, 64, 100, maxBlock}
	o.n = sizes[g.IntN(len(sizes))]
	o.f = []gsync.Flags{gsync.InNoSync, gsync.InMySync, gsync.InAllSync}[g.IntN(3)] |
		[]gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync}[g.IntN(3)] |
		[]gsync.Flags{gsync.Single, gsync.Local}[g.IntN(2)]
	forms := []Form{EveryImage, Representative}
	if o.f&gsync.Single != 0 {
		forms = append(forms, EveryImageM)
	}
	if onePerNode {
		forms = append(forms, RepresentativeSingle)
	}
	o.form = forms[g.IntN(len(forms))]
	if o.form == EveryImage || o.form == EveryImageM {
		o.f |= gsync.AllThreads
	}
	o.nb = g.IntN(3) != 0
	o.fn = g.IntN(len(ModelFuncs))
	switch o.fn {
	case modelSum:
		o.es = 8 * (1 + g.IntN(3))
	case modelAffine:
		o.es = 16
	default:
		o.es = 1 + g.IntN(5)
	}
	o.count = 1 + g.IntN(40)
	layout := func() coll.Layout {
		b := []int{0, 1, 1, 2, 3, 5, 40}[g.IntN(7)]
		if b == 0 {
			return coll.Layout{Offset: g.IntN(1 << 20)} // an image: modulo the size
		}
		return coll.Layout{BlockSize: b, Offset: g.IntN(3 * b)}
	}
	o.sl, o.dl = layout(), layout()
	if g.IntN(4) == 0 || o.kind == mReduceAll && g.IntN(2) == 0 {
		// The commonest call: one element per image in rank order (count
		// 0 stands for the team's size, known once the team is).
		o.sl, o.count = coll.Cyclic, 0
	}
	o.plan = g.IntN(4) == 0
	o.v = g.IntN(3) == 0 && o.kind < len(kinds) && kinds[o.kind].name != "broadcast" &&
		(o.form == EveryImage || o.form == RepresentativeSingle || o.form == Representative && kinds[o.kind].name != "exchange")
	return o
}

// layoutOn is l for a team of P images.
func layoutOn(l coll.Layout, P int) coll.Layout {
	if l.BlockSize == 0 {
		l.Offset %= P
	}
	return l
}

// elem is element j of o's array on the team whose first image is first.
func (o *mop) elem(j, first int) []byte {
	r := rand.New(rand.NewPCG(o.seed^uint64(first)*0x9e3779b97f4a7c15, uint64(j)))
	e := make([]byte, o.es)
	switch o.fn {
	case modelAffine:
		binary.LittleEndian.PutUint64(e, uint64([]int64{-2, -1, 1, 2, 3}[r.IntN(5)]))
		binary.LittleEndian.PutUint64(e[8:], uint64(r.Int64N(101)-50))
	case modelSum:
		for k := 0; k < o.es; k += 8 {
			binary.LittleEndian.PutUint64(e[k:], uint64(r.Int64N(2001)-1000))
		}
	default:
		for k := range e {
			e[k] = byte(r.Uint32())
		}
	}
	return e
}

// it is o's iteration number for the data-movement values on the team
// instance whose first image is first.
func (o *mop) it(first int) int { return int(uint32(o.seed) ^ uint32(first)*40503) }

// Place is where element j of layout l lives among P images: team rank
// and local index (the spec's rule, written apart from coll's, for tests
// to check coll against).
func Place(l coll.Layout, P, j int) (rank, local int) {
	if l.BlockSize == 0 {
		return l.Offset, j
	}
	g := l.Offset + j
	b := g / l.BlockSize
	return b % P, b/P*l.BlockSize + g%l.BlockSize
}

// localLen is how many elements team rank r holds under l.
func localLen(l coll.Layout, P, count, r int) int {
	n := 0
	for j := range count {
		if img, loc := Place(l, P, j); img == r {
			n = max(n, loc+1)
		}
	}
	return n
}

// take is a buffer of n bytes from pool (or, failing that, from the other
// pool when pool is dirty, or new at an offset of its own).
func (m *modelImage) take(n int, pool map[int][][]byte) []byte {
	for _, p := range []map[int][][]byte{pool, m.clean} {
		if bs := p[n]; len(bs) > 0 {
			b := bs[len(bs)-1]
			p[n] = bs[:len(bs)-1]
			return b
		}
	}
	off := m.local.IntN(17)
	return make([]byte, off+n)[off:]
}

// free returns p's buffers to pool.
func (m *modelImage) free(p *pending, pool map[int][][]byte) {
	for _, l := range [][][]byte{p.dst, p.src} {
		for _, b := range l {
			if b != nil {
				pool[len(b)] = append(pool[len(b)], b)
			}
		}
	}
	p.dst, p.src = nil, nil
}

// caller reports whether this image calls o, and for which team ranks.
func (m *modelImage) caller(o *mop) (tm *modelTeam, ranks []int) {
	tm = &m.teams[o.team]
	if tm.t == nil {
		return nil, nil
	}
	me := tm.t.Rank(m.im.ImageNum())
	if o.form == EveryImage || o.form == EveryImageM {
		return tm, []int{me}
	}
	local := tm.t.Members(tm.t.NodeRank(m.im.Node()))
	if local[0] != me {
		return nil, nil // another image of the node represents it
	}
	return tm, local
}

// prepare allocates and fills the buffers of o's members that this image
// calls for (nil if it calls for none), from pool.
func (m *modelImage) prepare(o *mop, pool map[int][][]byte) *pending {
	tm, ranks := m.caller(o)
	if tm == nil {
		return nil
	}
	P := len(tm.members)
	if o.kind >= mReduce && o.count == 0 { // one element per image (draw)
		oc := *o
		oc.count = P
		o = &oc
	}
	p := &pending{op: o, ranks: ranks, tm: tm, root: o.root % P}
	single := o.f&gsync.Single != 0
	first := tm.members[0]
	alloc := func(n int, applies bool) []byte {
		if !applies && !single {
			return nil
		}
		return m.take(n, pool)
	}
	for _, r := range ranks {
		var dst, src []byte
		if o.kind < len(kinds) {
			k := &kinds[o.kind]
			isRoot := r == p.root
			full := func(b func(int, bool) int) int { return max(b(P, true), b(P, false)) }
			src = alloc(full(k.src)*o.n, k.src(P, isRoot) > 0)
			dst = alloc(full(k.dst)*o.n, k.dst(P, isRoot) > 0)
			for b := 0; b < len(src)/o.n; b++ {
				for i := range o.n {
					src[b*o.n+i] = k.srcVal(o.it(first), r, b, i)
				}
			}
		} else {
			sl := layoutOn(o.sl, P)
			ns := localLen(sl, P, o.count, r)
			src = alloc(ns*o.es, ns > 0)
			for j := range o.count {
				if img, loc := Place(sl, P, j); img == r {
					copy(src[loc*o.es:], o.elem(j, first))
				}
			}
			switch o.kind {
			case mReduce, mReduceAll:
				dst = alloc(o.es, true)
			default:
				nd := localLen(layoutOn(o.dl, P), P, o.count, r)
				dst = alloc(nd*o.es, nd > 0)
			}
		}
		for i := range dst {
			dst[i] = 0xEE // an unwritten destination shows
		}
		p.dst, p.src = append(p.dst, dst), append(p.src, src)
	}
	return p
}

// step runs operation o on this image: syncs some outstanding handles,
// calls o if it takes part, and syncs o if it is blocking.
func (m *modelImage) step(o *mop, p *pending) error {
	if err := m.syncSome(false); err != nil {
		return err
	}
	rep := o.form == Representative || o.form == RepresentativeSingle
	if rep && m.nd.Images() > 1 {
		// No other goroutine of the node may start a collective while a
		// representative does: the node's images meet around the call,
		// and representatives of different teams take turns.
		const group = "model"
		m.nd.Rendezvous(group, m.nd.Images())
		defer m.nd.Rendezvous(group, m.nd.Images())
	}
	if p == nil {
		p = m.prepare(o, m.dirty)
		if p == nil {
			return nil
		}
	}
	if rep && m.nd.Images() > 1 {
		m.nd.turn.Lock()
	}
	h, err := m.start(p)
	if rep && m.nd.Images() > 1 {
		m.nd.turn.Unlock()
	}
	if err != nil {
		return err
	}
	p.h = h
	m.out = append(m.out, p)
	if !o.nb {
		// the blocking form is the NB form and Wait (api.go); a
		// representative waits outside its turn so as not to hold up
		// another team's representative its peers wait for
		return m.syncOne(len(m.out)-1, 0)
	}
	return nil
}

// vCallM is vCall for an m form (a representative's), non-blocking:
// gather, scatter and gather_all.
func vCallM(im *coll.Image, t *images.Team, o *mop, root int, dsts [][]byte, rootDst []byte, srcs [][]byte, rootSrc []byte) (gsync.Handle, error) {
	counts, displs := inRankOrder(t.Size(), o.n)
	switch kinds[o.kind].name {
	case "scatter":
		return im.ScatterVMNB(t, dsts, root, rootSrc, counts, displs, o.f)
	case "gather":
		return im.GatherVMNB(t, root, rootDst, counts, displs, srcs, o.f)
	}
	return im.GatherAllVMNB(t, dsts, counts, displs, srcs, o.f)
}

// inRankOrder are P blocks of n, in rank order.
func inRankOrder(P, n int) (counts, displs []int) {
	counts, displs = make([]int, P), make([]int, P)
	for r := range P {
		counts[r], displs[r] = n, r*n
	}
	return counts, displs
}

// blocking makes o's call, a single-address form, in its blocking form.
func blocking(im *coll.Image, t *images.Team, o *mop, root int, dst, src []byte, sl, dl coll.Layout) error {
	switch o.kind {
	case mReduce:
		return im.Reduce(t, root, dst, src, sl, o.es, o.count, o.fn, 0, o.f)
	case mReduceAll:
		return im.ReduceAll(t, dst, src, sl, o.es, o.count, o.fn, 0, o.f)
	case mPrefix:
		return im.PrefixReduce(t, dst, dl, src, sl, o.es, o.count, o.fn, 0, o.f)
	case mExPrefix:
		return im.ExclusivePrefixReduce(t, dst, dl, src, sl, o.es, o.count, o.fn, 0, o.f)
	}
	switch kinds[o.kind].name {
	case "broadcast":
		return im.Broadcast(t, dst, root, src, o.n, o.f)
	case "scatter":
		return im.Scatter(t, dst, root, src, o.n, o.f)
	case "gather":
		return im.Gather(t, root, dst, src, o.n, o.f)
	case "gather_all":
		return im.GatherAll(t, dst, src, o.n, o.f)
	}
	return im.Exchange(t, dst, src, o.n, o.f)
}

// vCall makes o's call, a single-address data-movement one, by its
// v-variant, with o.n bytes for every rank in rank order: the same data
// movement, by the v-variants' checks and schedules; in the blocking form
// if blocking.
func vCall(im *coll.Image, t *images.Team, o *mop, root int, dst, src []byte, blocking bool) (gsync.Handle, error) {
	counts, displs := inRankOrder(t.Size(), o.n)
	var h gsync.Handle
	var err error
	switch name := kinds[o.kind].name; {
	case name == "scatter" && blocking:
		err = im.ScatterV(t, dst, root, src, counts, displs, o.f)
	case name == "scatter":
		h, err = im.ScatterVNB(t, dst, root, src, counts, displs, o.f)
	case name == "gather" && blocking:
		err = im.GatherV(t, root, dst, counts, displs, src, o.f)
	case name == "gather":
		h, err = im.GatherVNB(t, root, dst, counts, displs, src, o.f)
	case name == "gather_all" && blocking:
		err = im.GatherAllV(t, dst, counts, displs, src, o.f)
	case name == "gather_all":
		h, err = im.GatherAllVNB(t, dst, counts, displs, src, o.f)
	case blocking:
		err = im.ExchangeV(t, dst, counts, displs, src, counts, displs, o.f)
	default:
		h, err = im.ExchangeVNB(t, dst, counts, displs, src, counts, displs, o.f)
	}
	return h, err
}

// start calls p's operation in its form, or makes a plan of that call
// and starts it.
func (m *modelImage) start(p *pending) (gsync.Handle, error) {
	if !p.op.plan {
		return m.call(p)
	}
	pl, err := m.im.NewPlan(func() error {
		_, err := m.call(p)
		return err
	})
	if err != nil {
		return gsync.Handle{}, err
	}
	p.plan = pl
	return pl.Start()
}

// call makes p's operation in its form.
func (m *modelImage) call(p *pending) (gsync.Handle, error) {
	o, im, t := p.op, m.im, p.tm.t
	P := t.Size()
	if o.form == EveryImage || o.form == RepresentativeSingle {
		dst, src := p.dst[0], p.src[0]
		sl, dl := layoutOn(o.sl, P), layoutOn(o.dl, P)
		if o.v {
			return vCall(im, t, o, p.root, dst, src, !o.nb && m.nd.Images() == 1)
		}
		if !o.nb && m.nd.Images() == 1 {
			// The blocking form itself, not NB and Wait: on a node of
			// one image it may run its schedule alone (package coll's
			// selector, "alone") while its peers run it in their engines.
			return gsync.Handle{}, blocking(im, t, o, p.root, dst, src, sl, dl)
		}
		switch o.kind {
		case mReduce:
			return im.ReduceNB(t, p.root, dst, src, sl, o.es, o.count, o.fn, 0, o.f)
		case mReduceAll:
			return im.ReduceAllNB(t, dst, src, sl, o.es, o.count, o.fn, 0, o.f)
		case mPrefix:
			return im.PrefixReduceNB(t, dst, dl, src, sl, o.es, o.count, o.fn, 0, o.f)
		case mExPrefix:
			return im.ExclusivePrefixReduceNB(t, dst, dl, src, sl, o.es, o.count, o.fn, 0, o.f)
		}
		return kinds[o.kind].nb(im, t, dst, p.root, src, o.n, o.f)
	}
	// m forms: NImages entries with Single, the node's images with Local;
	// the root's single argument as it is (any buffer with Single).
	size, base := im.Images(), 0
	if o.f&gsync.Single == 0 {
		size, base = im.Table().On(im.Node()), im.Table().First(im.Node())
	}
	dsts, srcs := make([][]byte, size), make([][]byte, size)
	var rootDst, rootSrc []byte
	for i, r := range p.ranks {
		dsts[t.Image(r)-base], srcs[t.Image(r)-base] = p.dst[i], p.src[i]
		if r == p.root || (o.f&gsync.Single != 0 && rootDst == nil) {
			rootDst, rootSrc = p.dst[i], p.src[i]
		}
	}
	if o.v {
		return vCallM(im, t, o, p.root, dsts, rootDst, srcs, rootSrc)
	}
	sl, dl := layoutOn(o.sl, P), layoutOn(o.dl, P)
	switch o.kind {
	case mReduce:
		return im.ReduceMNB(t, p.root, rootDst, srcs, sl, o.es, o.count, o.fn, 0, o.f)
	case mReduceAll:
		return im.ReduceAllMNB(t, dsts, srcs, sl, o.es, o.count, o.fn, 0, o.f)
	case mPrefix:
		return im.PrefixReduceMNB(t, dsts, dl, srcs, sl, o.es, o.count, o.fn, 0, o.f)
	case mExPrefix:
		return im.ExclusivePrefixReduceMNB(t, dsts, dl, srcs, sl, o.es, o.count, o.fn, 0, o.f)
	}
	return kinds[o.kind].nbm(im, t, dsts, rootDst, p.root, srcs, rootSrc, o.n, o.f)
}

// synced does what the sync of p allows: with OUT_MYSYNC or OUT_ALLSYNC
// check the destinations and free the buffers for reuse in the epoch;
// with OUT_NOSYNC hold them to the epoch's end.
func (m *modelImage) synced(p *pending) error {
	p.synced = true
	if p.plan != nil {
		if err := p.plan.Free(); err != nil {
			return err
		}
	}
	if p.op.f&gsync.OutNoSync != 0 {
		m.held = append(m.held, p)
		return nil
	}
	if err := m.check(p); err != nil {
		return err
	}
	m.free(p, m.dirty)
	return nil
}

// check compares p's destinations with the model.
func (m *modelImage) check(p *pending) error {
	o := p.op
	P := len(p.tm.members)
	first := p.tm.members[0]
	for i, r := range p.ranks {
		dst := p.dst[i]
		if o.kind < len(kinds) {
			k := &kinds[o.kind]
			for b := range k.dst(P, r == p.root) {
				for j := range o.n {
					if got, want := dst[b*o.n+j], k.dstVal(o.it(first), r, p.root, b, j); got != want {
						return fmt.Errorf("rank %d (image %d) dst block %d byte %d = %#x, want %#x",
							r, p.tm.members[r], b, j, got, want)
					}
				}
			}
			continue
		}
		if err := m.checkReduction(p, r, dst); err != nil {
			return fmt.Errorf("rank %d (image %d): %w", r, p.tm.members[r], err)
		}
	}
	return nil
}

// checkReduction checks team rank r's destination of a reduction against
// the sequential left fold of the array.
func (m *modelImage) checkReduction(p *pending, r int, dst []byte) error {
	o := p.op
	P, first := len(p.tm.members), p.tm.members[0]
	prefix := make([][]byte, o.count) // fold of elements 0..j
	var acc []byte
	for j := range o.count {
		e := o.elem(j, first)
		if acc == nil {
			acc = e
		} else {
			acc = modelCombine(o.fn, acc, e)
		}
		prefix[j] = acc
	}
	switch o.kind {
	case mReduce, mReduceAll:
		if (o.kind == mReduceAll || r == p.root) && !bytes.Equal(dst, acc) {
			return fmt.Errorf("result %x, want %x", dst, acc)
		}
		return nil
	}
	dl := layoutOn(o.dl, P)
	for j := range o.count {
		img, loc := Place(dl, P, j)
		if img != r || (o.kind == mExPrefix && j == 0) {
			continue
		}
		want := prefix[j]
		if o.kind == mExPrefix {
			want = prefix[j-1]
		}
		if got := dst[loc*o.es : (loc+1)*o.es]; !bytes.Equal(got, want) {
			return fmt.Errorf("element %d = %x, want %x", j, got, want)
		}
	}
	return nil
}

// syncOne syncs outstanding handle i with a method chosen by how (0: Wait,
// 1: a Try loop).
func (m *modelImage) syncOne(i, how int) error {
	p := m.out[i]
	m.out = slices.Delete(m.out, i, i+1)
	if how == 0 {
		if err := p.h.Wait(context.Background()); err != nil {
			return fmt.Errorf("%v: wait: %w", p.op, err)
		}
	} else if err := tryLoop(p.h.Try, func() error { return p.h.Wait(context.Background()) }); err != nil {
		return fmt.Errorf("%v: try: %w", p.op, err)
	}
	if p.h.Valid() {
		// Try may say "not yet" while another image holds the engine;
		// it must end with the dead handle's error.
		for {
			ok, err := p.h.Try()
			if ok {
				return fmt.Errorf("%v: a synced handle synced again", p.op)
			}
			if err != nil {
				break
			}
		}
	}
	return m.synced(p)
}

// syncSome syncs some of the image's outstanding handles, in an order of
// its own: all of them when all is set, else at random and at least
// enough to keep fewer than MaxOutstanding.
func (m *modelImage) syncSome(all bool) error {
	for len(m.out) > 0 {
		must := all || len(m.out) >= m.cfg.MaxOutstanding
		if !must && m.local.IntN(3) != 0 {
			return nil
		}
		switch how := m.local.IntN(6); how {
		case 0, 1: // one handle, any of them
			if err := m.syncOne(m.local.IntN(len(m.out)), how); err != nil {
				return err
			}
		default: // a random subset with WaitAll, TryAll, WaitSome or TrySome
			sub := m.local.Perm(len(m.out))[:1+m.local.IntN(len(m.out))]
			hs := make([]gsync.Handle, len(sub))
			for k, i := range sub {
				hs[k] = m.out[i].h
			}
			var err error
			switch how {
			case 2:
				err = gsync.WaitAll(context.Background(), hs)
			case 3:
				err = tryLoop(func() (bool, error) { return gsync.TryAll(hs) },
					func() error { return gsync.WaitAll(context.Background(), hs) })
			case 4:
				err = gsync.WaitSome(context.Background(), hs)
			case 5:
				err = tryLoop(func() (bool, error) { return gsync.TrySome(hs) },
					func() error { return gsync.WaitSome(context.Background(), hs) })
			}
			if err != nil {
				return fmt.Errorf("sync of %d handles: %w", len(hs), err)
			}
			// The handles that synced became the invalid handle.
			done := map[*pending]bool{}
			var order []*pending
			for k, i := range sub {
				if !hs[k].Valid() {
					done[m.out[i]] = true
					order = append(order, m.out[i])
				}
			}
			if how <= 3 && len(done) != len(sub) {
				return fmt.Errorf("all of %d handles synced, %d invalid", len(sub), len(done))
			}
			if len(done) == 0 {
				return fmt.Errorf("some of %d handles synced, none invalid", len(sub))
			}
			var rest []*pending
			for _, p := range m.out {
				if !done[p] {
					rest = append(rest, p)
				}
			}
			m.out = rest
			for _, p := range order {
				if err := m.synced(p); err != nil {
					return fmt.Errorf("%v: %w", p.op, err)
				}
			}
		}
	}
	return nil
}

// tryGiveUp is how long a Try loop of the model spins before it gives up.
// An operation of the model takes milliseconds; a loop of tries that never
// succeeds is a livelock of its own (tries starved of the engine's lock by
// other images' loops once made the model at np 8 spin until the test's
// timeout), or a stall, which only a wait can name (GOCOLL_STALL).
const tryGiveUp = 30 * time.Second

// tryLoop calls try until it says done or fails. After tryGiveUp it fails,
// saying whether wait, the waiting form, then completes (tries alone do
// not progress) or what it fails with.
func tryLoop(try func() (bool, error), wait func() error) error {
	start := time.Now()
	for n := 1; ; n++ {
		ok, err := try()
		if ok || err != nil {
			return err
		}
		// Yield as Wait's spinner does: with more images than cores, a
		// loop that does not takes the processor from the images it
		// waits for (10,000 operations of 1,3,2,4,1,2,3 took 20 minutes
		// instead of 20 s).
		runtime.Gosched()
		if n%1024 == 0 && time.Since(start) > tryGiveUp {
			if err := wait(); err != nil {
				return fmt.Errorf("tries did not complete in %v, and then a wait failed: %w", tryGiveUp, err)
			}
			return fmt.Errorf("tries did not complete in %v, a wait then did: tries alone make no progress", tryGiveUp)
		}
	}
}

// syncAll syncs every outstanding handle (the epoch's end).
func (m *modelImage) syncAll() error { return m.syncSome(true) }

// EnvInt is the integer in environment variable name, def when it is
// unset: the model and soak tests' sizes and seeds.
func EnvInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", name, v, err)
	}
	return n, nil
}
