package coll

// A collective that fails on a node part way (its reduction function
// panicked or called gocoll, a message of another collective arrived, or a
// wait gave up on it) is over on that node: the engine steps it no more
// and its handles return the error. Receives it posted and sends it
// started may still be in flight, and the conduit cannot take them back:
// the engine keeps its slot until they complete (engine.Quieter), so that
// their completions find it and its buffers are not reused, and meanwhile
// it no longer counts as live or unfinished (engine.Abandoner), so that
// Destroy and Close do not wait for it. Its peers are not told; they see
// the collective stop, a stall (ErrStalled when a stall timeout is set).

// Quiet implements engine.Quieter: no transfer of the run is in flight.
func (o *schedOp) Quiet() bool { return o.left == 0 }

// Abandon implements engine.Abandoner.
func (o *schedOp) Abandon() { o.countFinished(true) }

// Quiet implements engine.Quieter.
func (a *aggOp) Quiet() bool {
	for _, o := range a.subs {
		if !o.Quiet() {
			return false
		}
	}
	return true
}

// Abandon implements engine.Abandoner.
func (a *aggOp) Abandon() {
	if !a.finished {
		a.finished = true
		a.tn.count(-1)
	}
}

// Quiet implements engine.Quieter.
func (r *arrival) Quiet() bool {
	if r.agg != nil {
		return r.agg.Quiet()
	}
	op := r.inner.Load()
	return op == nil || op.Quiet()
}

// Abandon implements engine.Abandoner.
func (r *arrival) Abandon() {
	if r.agg != nil {
		r.agg.Abandon()
		return
	}
	if !r.finished {
		r.finished = true
		r.tn.count(-1)
	}
}
