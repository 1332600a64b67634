package checker

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// CheckpointTiming checks when the coordinator ends a checkpoint, as Flink's
// CheckpointCoordinator does (its canceller, scheduled at the pending checkpoint's
// creation, and receiveDeclineMessage):
//
//   - checkpoint.expires-at-timeout: a checkpoint.abort with reason expired comes no sooner
//     than Policy.TimeoutNanos after the checkpoint's trigger; and a checkpoint still
//     pending at its timeout, with no metadata write in flight (no checkpoint.persist by
//     then), has ended, or begun its own write, within Liveness.ReactionMaxNanos after
//     it. Another checkpoint's metadata write in flight at the timeout moves both to the
//     write's end: Flink's canceller waits for the lock the write holds (metadataWrites).
//   - checkpoint.decline-aborts: a checkpoint that a live task declined while it was
//     pending, and that the task had not acknowledged nor has its final snapshot carried
//     into, ends within Liveness.ReactionMaxNanos of the snapshot.decline; not by a
//     completion, nor by an abort for a reason no decline gave (a reason the coordinator
//     has of its own, such as a newer completion or the timeout, may come first).
//
// The bounds are judged only where no fault is in force (faultSpans) from the trigger, or
// the decline, to the bound: a skewed or paused coordinator host acts late, and a lost
// decline is never heard. An early expiry is judged everywhere: trace times are the
// coordinator's own clock, on which its timers run. A decline whose task finishes before
// the checkpoint ends is not judged: its final snapshot may stand in for it, which the
// trace says (snapshot.carried) only once the checkpoint's metadata is written. What the
// reference does not give is not judged, and leaves the verdict unknown unless a rule
// failed; with nothing judged it is unexercised.
func CheckpointTiming(events []trace.Event, ref Reference) Result {
	return checkpointTiming(newTraceIndex(events), ref)
}

// The rules CheckpointTiming judges, as their violations name them.
const (
	ruleExpiresAtTimeout = "checkpoint.expires-at-timeout"
	ruleDeclineAborts    = "checkpoint.decline-aborts"
)

// timingKinds are the kinds CheckpointTiming reacts to.
var timingKinds = lifecycleKinds | kindsOf(trace.KindCheckpointPersist, trace.KindCheckpointComplete,
	trace.KindCheckpointAbort, trace.KindCoordinatorCrash, trace.KindJobFailover, trace.KindSnapshotAck,
	trace.KindSnapshotDecline)

// timingMissing names what checkpoint-timing needs and ref does not give, as a reference
// file spells it.
func timingMissing(ref Reference) []string {
	var missing []string
	if ref.Policy.TimeoutNanos == 0 {
		missing = append(missing, "policy.timeout_ns")
	}
	if ref.Liveness.ReactionMaxNanos == 0 {
		missing = append(missing, "liveness.reaction_max_ns")
	}
	return missing
}

func checkpointTiming(ix *traceIndex, ref Reference) Result {
	missing := timingMissing(ref)
	if len(missing) == 2 {
		return unknownResult(PropCheckpointTiming, "the reference gives no "+strings.Join(missing, " nor ")+": no timing to judge")
	}
	j := newTimingJudge(ix, ref)
	for i := range ix.only(timingKinds) {
		j.observe(&ix.events[i])
	}
	for _, cp := range slices.Sorted(maps.Keys(j.pending)) {
		j.ended(j.pending[cp], nil)
	}
	return j.result(missing)
}

// timedCheckpoint is a checkpoint of the running coordinator incarnation, from its trigger
// to its end.
type timedCheckpoint struct {
	trigger *trace.Event
	persist *trace.Event // its first checkpoint.persist, if any
	// reasons are the reasons of the declines of it so far; decline is the decline
	// judged, and finished says its task finished before the checkpoint ended.
	reasons  []string
	decline  *trace.Event
	finished bool
}

// taskCP names a task's part in a checkpoint.
type taskCP struct {
	task string
	cp   uint64
}

// timingJudge follows the checkpoints of one trace.
type timingJudge struct {
	events            []trace.Event
	timeout, reaction int64
	faults            *faultSpans
	writes            *metadataWrites
	jobs              *lifecycle
	acked, carried    map[taskCP]bool
	pending           map[uint64]*timedCheckpoint
	violations        []Violation
	// judged counts the occasions judged, the others those left unjudged and why.
	judged, unreached int
	excusedExpiries   int
	excusedDeclines   int
	undecided         []string
}

func newTimingJudge(ix *traceIndex, ref Reference) *timingJudge {
	j := &timingJudge{
		events:   ix.events,
		timeout:  ref.Policy.TimeoutNanos,
		reaction: ref.Liveness.ReactionMaxNanos,
		faults:   ix.faults(),
		writes:   metadataWritesOf(ix),
		jobs:     newLifecycle(),
		acked:    map[taskCP]bool{},
		carried:  map[taskCP]bool{},
		pending:  map[uint64]*timedCheckpoint{},
	}
	// A carried snapshot is traced when the checkpoint's metadata is written, after any
	// decline of it: known from the start, it excuses the decline at once.
	for i := range ix.only(kindsOf(trace.KindSnapshotCarried)) {
		e := &ix.events[i]
		j.carried[taskCP{e.Task, e.CP}] = true
	}
	return j
}

func (j *timingJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		if j.pending[e.CP] == nil {
			j.pending[e.CP] = &timedCheckpoint{trigger: e}
		}
	case trace.KindCheckpointPersist:
		if p := j.pending[e.CP]; p != nil && p.persist == nil {
			p.persist = e
		}
	case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
		if e.Kind == trace.KindCheckpointAbort && e.Reason == "expired" {
			j.expired(e)
		}
		if p := j.pending[e.CP]; p != nil {
			j.ended(p, e)
			delete(j.pending, e.CP)
		}
	case trace.KindCoordinatorCrash, trace.KindJobFailover:
		// Either ends what the incarnation had pending: a crash drops it, a failover
		// aborts it (no-pending-across-failover judges that it says so).
		for _, cp := range slices.Sorted(maps.Keys(j.pending)) {
			j.ended(j.pending[cp], e)
		}
		clear(j.pending)
	case trace.KindSnapshotAck:
		j.acked[taskCP{e.Task, e.CP}] = true
	case trace.KindSnapshotDecline:
		j.declined(e)
	case trace.KindTaskFinish:
		for _, p := range j.pending {
			if p.decline != nil && p.decline.Task == e.Task {
				p.finished = true
			}
		}
	}
	j.jobs.observe(e)
}

// ended judges checkpoint p, which end ended (nil: the trace ended first).
func (j *timingJudge) ended(p *timedCheckpoint, end *trace.Event) {
	j.judgeExpiry(p, end)
	j.judgeDecline(p, end)
}

func (j *timingJudge) flag(at *trace.Event, rule, format string, args ...any) {
	v := violationAt(PropCheckpointTiming, at, format, args...)
	v.Rule = rule
	j.violations = append(j.violations, v)
}

// due returns the first event after t, to pin a missed bound on, and whether the trace
// reaches past t at all.
func (j *timingJudge) due(t int64) (*trace.Event, bool) {
	i := firstAfter(j.events, t)
	if i == len(j.events) {
		return nil, false
	}
	return &j.events[i], true
}

// expired judges an abort for expiry against the checkpoint's trigger.
func (j *timingJudge) expired(e *trace.Event) {
	if j.timeout == 0 {
		return
	}
	p := j.pending[e.CP]
	if p == nil {
		// A reservation never expires (its timeout starts with its trigger), and a new
		// incarnation knows nothing of the old one's checkpoints.
		j.flag(e, ruleExpiresAtTimeout, "checkpoint %d expired, but the running coordinator incarnation never triggered it: its timeout runs from the trigger", e.CP)
		return
	}
	j.judged++
	if age := e.T - p.trigger.T; age < j.timeout {
		j.flag(e, ruleExpiresAtTimeout, "checkpoint %d expired %dns after its trigger (seq %d), before its timeout of %dns",
			e.CP, age, p.trigger.Seq, j.timeout)
	}
}

// judgeExpiry judges a checkpoint that was still pending at its timeout: it must have
// ended within the reaction bound, unless its metadata write was in flight by then. A
// metadata write of any checkpoint in flight at the timeout moves both to its end.
func (j *timingJudge) judgeExpiry(p *timedCheckpoint, end *trace.Event) {
	if j.timeout == 0 || j.reaction == 0 {
		return
	}
	timeout := addSat(p.trigger.T, j.timeout)
	if end != nil && end.T <= addSat(timeout, j.reaction) {
		return
	}
	// The coordinator cannot act on the timeout while a metadata write holds it (see
	// metadataWrites): the deadline is when the last write in flight at the timeout ends.
	deadline := j.writes.freeAt(timeout)
	bound := addSat(deadline, j.reaction)
	// Beginning the write is a reaction too: a checkpoint whose acks were all in, queued
	// behind a write the trace does not show (one that only drops discarded checkpoints
	// from the store), begins as that write ends, as the canceller would have acted.
	if end != nil && end.T <= bound || p.persist != nil && p.persist.T <= bound {
		return
	}
	at, reached := j.due(bound)
	switch {
	case !reached:
		if lastEvent(j.events).T > deadline {
			j.unreached++
		}
		return
	case !j.faults.quiet(p.trigger.T, bound):
		j.excusedExpiries++
		return
	case p.persist == nil && end != nil && (end.Kind == trace.KindCheckpointComplete || end.Reason == "persist-failed"):
		j.undecided = append(j.undecided, fmt.Sprintf("checkpoint %d ended at seq %d, after its timeout, with a metadata write no checkpoint.persist says the start of", p.trigger.CP, end.Seq))
		return
	}
	j.judged++
	after := fmt.Sprintf("its timeout at t=%d", timeout)
	if deadline > timeout {
		after += fmt.Sprintf(" and the metadata write in flight then, which ended at t=%d", deadline)
	}
	j.flag(at, ruleExpiresAtTimeout, "checkpoint %d, triggered at seq %d, was still pending %dns after %s (%s)",
		p.trigger.CP, p.trigger.Seq, j.reaction, after, endedBy(end))
}

// endedBy says how a checkpoint ended, for messages.
func endedBy(end *trace.Event) string {
	switch {
	case end == nil:
		return "it never ended in the trace"
	case end.Kind == trace.KindCheckpointAbort:
		return fmt.Sprintf("aborted at seq %d, %s", end.Seq, cmp.Or(end.Reason, "without a reason"))
	}
	return fmt.Sprintf("ended by the %s at seq %d", end.Kind, end.Seq)
}

// result is the verdict once the trace is read.
func (j *timingJudge) result(missing []string) Result {
	res := newResult(PropCheckpointTiming, j.violations)
	if len(missing) > 0 {
		res.Note = "the reference gives no " + strings.Join(missing, ", ") + ": the rules that need it were not judged"
	}
	for _, c := range []struct {
		n    int
		what string
	}{
		{j.excusedExpiries, "checkpoint(s) pending at the timeout with a fault in force"},
		{j.excusedDeclines, "decline(s) with a fault in force, or whose task finished"},
		{j.unreached, "bound(s) the trace does not reach"},
	} {
		if c.n > 0 {
			res.Note = joinNote(res.Note, fmt.Sprintf("%d %s: not judged", c.n, c.what))
		}
	}
	switch {
	case res.Verdict == VerdictFail:
	case len(missing) > 0:
		res.Verdict = VerdictUnknown
	case len(j.undecided) > 0:
		res.Verdict, res.Note = VerdictUnknown, joinNote(res.Note, "not decided: "+summarise(j.undecided))
	case j.judged == 0:
		res.Verdict = VerdictUnexercised
		res.Note = joinNote(res.Note, "no checkpoint expired, outlived its timeout or was declined while pending")
	}
	return res
}
