package protocol

// receiveCancelMarker handles the upstream's announcement that checkpoint id
// was abandoned. The marker is forwarded once, so every task downstream
// stops waiting; older checkpoints still waiting on this input are dead too
// (ids on a channel only increase).
func (t *taskState) receiveCancelMarker(now Time, input int, id CheckpointID) error {
	if id == 0 {
		return ErrBadInput
	}
	t.abortOlderUnseen(now, id, input, ReasonCanceled)
	if a := t.findAlignment(id); a != nil {
		t.abortAlignment(a, ReasonCanceled, false)
		return nil
	}
	if id > t.staleUpTo {
		t.staleUpTo = id
		t.send(CancelMarker(id), false)
	}
	return nil
}

// endOfPartition closes an input. Alignments stop waiting for it, which may
// complete them: a finished upstream must not hold a checkpoint hostage.
func (t *taskState) endOfPartition(now Time, input int) {
	t.inputOpen[input] = false
	t.inputDrained[input] = true
	t.openInputs--
	t.action[input] = inputProcess
	var done []*alignment
	for _, a := range t.alignments {
		if !a.seen[input] {
			a.seen[input] = true // the closed input no longer counts
			a.missing--
			if a.missing == 0 {
				done = append(done, a)
			}
		}
	}
	for _, a := range done {
		if t.findAlignment(a.id) == a {
			t.alignmentDone(now, a)
		}
	}
}
