package protocol

// endOfPartition closes an input. Alignments stop waiting for it, which may
// complete them: a finished upstream must not hold a checkpoint hostage.
func (t *taskState) endOfPartition(now Time, input int) {
	t.inputOpen[input] = false
	t.inputDrained[input] = true
	t.openInputs--
	t.action[input] = inputProcess
	var newest *alignment
	for _, a := range t.alignments {
		if !a.seen[input] {
			a.seen[input] = true // the closed input no longer counts
			a.missing--
			if a.missing == 0 {
				newest = a // alignments are ordered by id
			}
		}
	}
	if newest != nil {
		t.completeOnEndOfPartition(now, newest)
	}
}

// completeOnEndOfPartition finishes the alignments that the closed input
// completed, newest being the newest of them. Several can complete at once
// only when the others inputs carried the barriers of several checkpoints
// (at-least-once, which never blocks). As Flink's barrier tracker does, only
// the newest is snapshotted: the older ones are given up and declined, as
// when a newer barrier overtakes them. An older one whose snapshot was taken
// already (unaligned) only waited for its channel state, now complete.
// Every older alignment left is complete: one still missing another input
// would have been ended when newest's barrier came on that input.
func (t *taskState) completeOnEndOfPartition(now Time, newest *alignment) {
	for len(t.alignments) > 0 && t.alignments[0] != newest {
		older := t.alignments[0]
		if older.missing != 0 {
			assertionFailed(string(t.cfg.ID), "alignment "+older.id.String()+
				" still waits for a barrier that newer "+newest.id.String()+" passed")
		}
		if older.snapshotTaken {
			t.alignmentDone(now, older)
			continue
		}
		t.abortAlignment(older, ReasonNewerBarrier, true)
	}
	t.alignmentDone(now, newest)
}
