package protocol

import (
	"fmt"
	"slices"
)

// InvariantError is what a Coordinator or Task panics with when Config.CheckInvariants (or
// TaskConfig.CheckInvariants) is set and a call left its state broken: a bug in the
// protocol, or a host that broke the contract in a way the checks of the inputs missed.
// The state checked is internal, so the message names the invariant in words. The few
// assertions that guard a state the very next line relies on (assertionFailed) panic with
// one too, whatever the configuration: they are the same kind of check, always on.
type InvariantError struct {
	Who       string // "coordinator" or the task's id
	Invariant string
}

func (e *InvariantError) Error() string {
	return "protocol: invariant broken at " + e.Who + ": " + e.Invariant
}

// assertionFailed panics with an *InvariantError: an always-on assertion about who's
// internal state failed. A host that recovers panics can tell it, by its type, from a
// runtime error, and a simulation judges it as a broken invariant rather than a crash.
func assertionFailed(who, invariant string) {
	panic(&InvariantError{Who: who, Invariant: invariant})
}

// The invariants are checked after every call of the public API, and only when the
// configuration asks for it (the package documentation, "Invariant checks", says why a
// switch and not a build tag).

// verify panics with an *InvariantError if the coordinator asks for checks and one fails.
func (c *coordinatorState) verify() {
	if !c.cfg.CheckInvariants {
		return
	}
	if broken := c.invariants(); broken != "" {
		panic(&InvariantError{Who: "coordinator", Invariant: broken})
	}
}

// invariants returns the first broken invariant of the coordinator, "" if none.
func (c *coordinatorState) invariants() string {
	n := len(c.topo.Tasks)
	switch {
	case len(c.pending) > c.cfg.MaxPendingCheckpoints:
		return fmt.Sprintf("%d pending checkpoints, above MaxPendingCheckpoints %d", len(c.pending), c.cfg.MaxPendingCheckpoints)
	case c.slotsInUse() > c.cfg.MaxConcurrent && !c.savepointsForced():
		return fmt.Sprintf("%d checkpoints occupy a slot, above MaxConcurrent %d", c.slotsInUse(), c.cfg.MaxConcurrent)
	case c.checkpointsInFlight() > c.cfg.MaxConcurrent:
		return fmt.Sprintf("%d checkpoints in flight, above MaxConcurrent %d", c.checkpointsInFlight(), c.cfg.MaxConcurrent)
	case len(c.completed) > c.cfg.RetainedCheckpoints:
		return fmt.Sprintf("%d completed checkpoints retained, above RetainedCheckpoints %d", len(c.completed), c.cfg.RetainedCheckpoints)
	case c.counterWriting != 0 && c.counterWriting > c.highestID:
		return fmt.Sprintf("counter write of %d above the highest reserved id %d", c.counterWriting, c.highestID)
	case c.failures < 0:
		return fmt.Sprintf("failure count %d", c.failures)
	case c.failures > c.cfg.TolerableFailures && !c.failoverRequested && !c.failingOver && !c.jobFinished:
		return fmt.Sprintf("%d failures counted, above TolerableFailures %d, and no failover asked for", c.failures, c.cfg.TolerableFailures)
	}
	for i, cp := range c.completed {
		switch {
		case cp.Kind == KindSavepoint:
			return fmt.Sprintf("savepoint %d retained in the completed store", cp.ID)
		case i > 0 && cp.ID <= c.completed[i-1].ID:
			return fmt.Sprintf("completed store out of order: %d after %d", cp.ID, c.completed[i-1].ID)
		case cp.ID > c.highestCompleted:
			return fmt.Sprintf("retained checkpoint %d above the highest completed %d", cp.ID, c.highestCompleted)
		}
	}
	finished := 0
	for i := range n {
		if c.fullyFinishedTasks[i] {
			finished++
		}
	}
	if finished != c.fullyFinishedCount {
		return fmt.Sprintf("%d tasks fully finished, counted %d", finished, c.fullyFinishedCount)
	}
	for i, p := range c.pending {
		if broken := c.pendingInvariants(p); broken != "" {
			return fmt.Sprintf("checkpoint %d: %s", p.id, broken)
		}
		if i > 0 && p.id <= c.pending[i-1].id {
			return fmt.Sprintf("pending checkpoints out of order: %d after %d", p.id, c.pending[i-1].id)
		}
	}
	return ""
}

func (c *coordinatorState) pendingInvariants(p *pendingCheckpoint) string {
	switch {
	case p.id > c.highestID:
		return fmt.Sprintf("pending above the highest reserved id %d", c.highestID)
	case p.kind == KindCheckpoint && p.id <= c.highestCompleted && p.phase != phasePersisting:
		return fmt.Sprintf("still pending though %d completed after it was reserved", c.highestCompleted)
	case p.phase != phaseCollecting && p.phase != phasePersisting:
		return ""
	case p.deadline == NoDeadline:
		return "triggered but has no expiry"
	}
	remaining := 0
	for i := range p.expected {
		switch {
		case p.acked[i] && !p.expected[i] && !p.carried[i]:
			return fmt.Sprintf("acked by task %s, which does not take part", c.topo.Tasks[i])
		case p.carried[i] && !p.acked[i]:
			return fmt.Sprintf("carries task %s's final snapshot but does not count it acked", c.topo.Tasks[i])
		case p.expected[i] && !p.acked[i]:
			remaining++
		}
	}
	switch {
	case remaining != p.remaining:
		return fmt.Sprintf("%d snapshots missing, counted %d", remaining, p.remaining)
	case p.phase == phasePersisting && remaining != 0:
		return fmt.Sprintf("persisting with %d snapshots missing", remaining)
	}
	return ""
}

// verify panics with an *InvariantError if the task asks for checks and one fails.
func (t *taskState) verify() {
	if !t.cfg.CheckInvariants {
		return
	}
	if broken := t.invariants(); broken != "" {
		panic(&InvariantError{Who: string(t.cfg.ID), Invariant: broken})
	}
}

// invariants returns the first broken invariant of the task, "" if none.
func (t *taskState) invariants() string {
	limit := t.cfg.MaxPendingCheckpoints
	switch {
	case len(t.alignments) > limit:
		return fmt.Sprintf("%d alignments, above MaxPendingCheckpoints %d", len(t.alignments), limit)
	case len(t.inflight) > limit:
		return fmt.Sprintf("%d snapshots in flight, above MaxPendingCheckpoints %d", len(t.inflight), limit)
	case len(t.acked) > limit:
		return fmt.Sprintf("%d acked ids remembered, above MaxPendingCheckpoints %d", len(t.acked), limit)
	case t.exited && (len(t.alignments) > 0 || len(t.inflight) > 0):
		return fmt.Sprintf("exited with %d alignments and %d snapshots in flight", len(t.alignments), len(t.inflight))
	case t.lastNotified != 0 && t.lastNotified < t.restoredFrom:
		return fmt.Sprintf("last notified %d below the restored checkpoint %d", t.lastNotified, t.restoredFrom)
	case t.recording != nil && !slices.Contains(t.alignments, t.recording):
		return fmt.Sprintf("records channel state for %d, which is no alignment", t.recording.id)
	case t.sentUpTo > t.staleUpTo:
		return fmt.Sprintf("sent checkpoint %d downstream, above the highest id heard of %d", t.sentUpTo, t.staleUpTo)
	case t.heardInBandUpTo > t.staleUpTo:
		return fmt.Sprintf("heard of %d in band, above the highest id heard of %d", t.heardInBandUpTo, t.staleUpTo)
	case t.cancelOwed != 0 && (len(t.alignments) == 0 || t.alignments[0].id >= t.cancelOwed):
		return fmt.Sprintf("owes the cancel marker of %d with no older alignment to wait for", t.cancelOwed)
	}
	open := 0
	for _, o := range t.inputOpen {
		if o {
			open++
		}
	}
	if open != t.openInputs {
		return fmt.Sprintf("%d inputs open, counted %d", open, t.openInputs)
	}
	for i, a := range t.alignments {
		if i > 0 && a.id <= t.alignments[i-1].id {
			return fmt.Sprintf("alignments out of order: %d after %d", a.id, t.alignments[i-1].id)
		}
		if a.id > t.staleUpTo {
			return fmt.Sprintf("aligning for %d, above the highest id heard of %d", a.id, t.staleUpTo)
		}
		missing := 0
		for input, seen := range a.seen {
			if !seen && t.inputOpen[input] {
				missing++
			}
		}
		if missing != a.missing {
			return fmt.Sprintf("alignment %d: %d open inputs without its barrier, counted %d", a.id, missing, a.missing)
		}
	}
	for input, action := range t.action {
		switch {
		case action == inputBlock && !t.blockedBySomeAlignment(input):
			return fmt.Sprintf("input %d blocked with no aligned checkpoint whose barrier came on it", input)
		case action == inputRecord && (t.recording == nil || t.recording.seen[input]):
			return fmt.Sprintf("input %d recorded as channel state with no checkpoint still waiting for its barrier", input)
		}
	}
	for i, s := range t.inflight {
		if i > 0 && s.id <= t.inflight[i-1].id {
			return fmt.Sprintf("two snapshots for one checkpoint or out of order: %d after %d", s.id, t.inflight[i-1].id)
		}
		if slices.Contains(t.acked, s.id) {
			return fmt.Sprintf("snapshot %d in flight and acked", s.id)
		}
	}
	return ""
}

// checkpointsInFlight counts the checkpoints (not savepoints) that occupy a
// slot: MaxConcurrent bounds them even where savepoints go beyond it.
func (c *coordinatorState) checkpointsInFlight() int {
	n := 0
	for _, p := range c.pending {
		if p.kind == KindCheckpoint && p.occupiesSlot() {
			n++
		}
	}
	return n
}

// blockedBySomeAlignment reports whether an alignment that blocks inputs has its barrier
// from input and is still collecting barriers, the only reason to block it.
func (t *taskState) blockedBySomeAlignment(input int) bool {
	for _, a := range t.alignments {
		if a.blocking() && !a.snapshotTaken && a.seen[input] {
			return true
		}
	}
	return false
}
