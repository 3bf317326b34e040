package exec

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
func (o *Sched) Quiet() bool { return o.left == 0 }

// Abandon implements engine.Abandoner.
func (o *Sched) Abandon() { o.countFinished(true) }

// Quiet implements engine.Quieter.
func (a *AggOp) Quiet() bool {
	for _, o := range a.subs {
		if !o.Quiet() {
			return false
		}
	}
	return true
}

// Abandon implements engine.Abandoner.
func (a *AggOp) Abandon() {
	if !a.finished {
		a.finished = true
		a.tn.Count(-1)
	}
}
