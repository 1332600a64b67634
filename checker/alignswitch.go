package checker

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// AlignmentTimeout checks that a job aligning with a timeout (Reference.Policy
// AlignmentTimeoutNanos) switches to unaligned in time: a task that received the first
// barrier of a checkpoint (not a savepoint: savepoints always align) snapshots or forwards
// the barrier within the alignment timeout plus Reference.Liveness.SwitchMaxNanos: an
// aligned snapshot is traced (snapshot.taken) when the alignment completes, and a task that
// switches sends the barrier ahead of its output at once (barrier.send; its unaligned
// snapshot is traced only when its channel state is sealed), unless the checkpoint ends
// for it first (it declines it, is told it aborted, the coordinator ends it, a newer barrier
// comes) or the task stops (crash, restore, finish). A barrier that comes after its
// checkpoint ended (the coordinator completed or aborted it) owes nothing: a task told of
// the abort drops it as stale, and one that is not yet may align for nothing. A task that still holds
// the barrier past that deadline never switched: the timer watched another checkpoint
// (FLINK-22596), or none. Only tasks that send (seen tracing record.send or barrier.send)
// are judged: nothing in the trace says when a task without outputs switched. An alignment is
// judged only when no fault was in force until its deadline and the trace reaches it. Without
// the timeout (a job without one) or the bound, the verdict is unknown; with no alignment
// judged, unexercised.
func AlignmentTimeout(events []trace.Event, ref Reference) Result {
	return alignmentTimeout(newTraceIndex(events), ref)
}

// alignmentKinds are the kinds AlignmentTimeout reacts to; senderKinds those that show a
// task sends.
var (
	alignmentKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindBarrierRecv,
		trace.KindBarrierSend, trace.KindSnapshotTaken, trace.KindSnapshotDecline, trace.KindNotifyAbort,
		trace.KindCheckpointAbort, trace.KindCheckpointComplete,
		trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish, trace.KindJobFailover, trace.KindCoordinatorCrash)
	senderKinds = kindsOf(trace.KindRecordSend, trace.KindBarrierSend)
)

func alignmentTimeout(ix *traceIndex, ref Reference) Result {
	events := ix.events
	timeout, slack := ref.Policy.AlignmentTimeoutNanos, ref.Liveness.SwitchMaxNanos
	switch {
	case timeout <= 0:
		return unknownResult(PropAlignmentTimeout, "the reference gives no alignment timeout (policy.alignment_timeout_ns): the job does not align with one")
	case slack <= 0:
		return unknownResult(PropAlignmentTimeout, "the reference gives no bound on the switch (liveness.switch_max_ns)")
	}
	j := &switchJudge{
		timeout: timeout, bound: timeout + slack, faults: ix.faults(), senders: map[string]bool{},
		savepoints: map[uint64]bool{}, ended: map[uint64]bool{}, aligning: map[alignKey]*trace.Event{}, seen: map[alignKey]bool{},
	}
	for i := range ix.only(senderKinds) {
		j.senders[events[i].Task] = true
	}
	relevant := ix.of(alignmentKinds)
	for i := 0; i < len(events); i++ {
		if len(j.aligning) == 0 {
			// No deadline runs, so only the events of alignmentKinds change anything.
			if i = relevant.next(i); i == len(events) {
				break
			}
		}
		e := &events[i]
		if e.T > j.firstDeadline() {
			j.overdue(e)
		}
		j.observe(e)
	}
	return j.result()
}

// alignKey is one task's alignment for one checkpoint.
type alignKey struct {
	task string
	cp   uint64
}

// switchJudge follows the alignments AlignmentTimeout judges.
type switchJudge struct {
	timeout, bound int64 // the alignment timeout, and it plus the slack
	faults         *faultSpans
	senders        map[string]bool
	savepoints     map[uint64]bool
	ended          map[uint64]bool           // checkpoints completed or aborted: no switch is owed for them
	aligning       map[alignKey]*trace.Event // first barrier.recv of an alignment being judged
	seen           map[alignKey]bool         // alignments started, so a later barrier starts none
	violations     []Violation
	judged         int
	excused        int
	// first is the earliest deadline of the alignments being judged, recomputed only after
	// they changed (stale), so that an event before it costs no pass over them.
	first int64
	stale bool
}

// firstDeadline is the earliest deadline of the alignments being judged.
func (j *switchJudge) firstDeadline() int64 {
	if len(j.aligning) == 0 {
		j.stale, j.first = false, math.MaxInt64
	} else if j.stale {
		j.stale, j.first = false, math.MaxInt64
		for _, first := range j.aligning {
			j.first = min(j.first, first.T+j.bound)
		}
	}
	return j.first
}

// overdue flags the alignments that e finds past their deadline, in the order they began.
func (j *switchJudge) overdue(e *trace.Event) {
	byStart := func(x, y alignKey) int { return int(j.aligning[x].Seq) - int(j.aligning[y].Seq) }
	for _, k := range slices.SortedFunc(maps.Keys(j.aligning), byStart) {
		first := j.aligning[k]
		if e.T > first.T+j.bound {
			j.violations = append(j.violations, Violation{
				Property: PropAlignmentTimeout,
				Message: oneLine(fmt.Sprintf("%s has not forwarded checkpoint %d's barrier %dns after the first one came at seq %d (alignment timeout %dns): it never switched to unaligned",
					k.task, k.cp, e.T-first.T, first.Seq, j.timeout)),
				Seq: e.Seq, T: e.T, Task: k.task, CP: k.cp,
			})
			delete(j.aligning, k)
		}
	}
	j.stale = true
}

// endWhere ends the alignments done reports.
func (j *switchJudge) endWhere(done func(k alignKey) bool) {
	for k := range j.aligning {
		if done(k) {
			delete(j.aligning, k)
			j.stale = true
		}
	}
}

// observe takes the next event of the trace.
func (j *switchJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		if isSavepointTrigger(e) {
			j.savepoints[e.CP] = true
		}
	case trace.KindBarrierRecv:
		// A newer barrier ends the older alignments at the task: it moved past them.
		j.endWhere(func(k alignKey) bool { return k.task == e.Task && k.cp < e.CP })
		j.begin(e)
	case trace.KindBarrierSend, trace.KindSnapshotTaken, trace.KindSnapshotDecline, trace.KindNotifyAbort:
		delete(j.aligning, alignKey{e.Task, e.CP})
		j.stale = true
	case trace.KindCheckpointAbort, trace.KindCheckpointComplete:
		j.ended[e.CP] = true
		j.endWhere(func(k alignKey) bool { return k.cp == e.CP })
	case trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish:
		j.endWhere(func(k alignKey) bool { return k.task == e.Task })
	case trace.KindJobFailover, trace.KindCoordinatorCrash:
		clear(j.aligning)
		j.stale = true
	}
}

// begin starts judging the alignment a barrier.recv opens, if it is one to judge.
func (j *switchJudge) begin(e *trace.Event) {
	k := alignKey{e.Task, e.CP}
	if j.seen[k] || j.savepoints[e.CP] || j.ended[e.CP] || !j.senders[e.Task] {
		return
	}
	j.seen[k] = true
	if !j.faults.quietAtTheTask(e.T, e.T+j.bound) {
		j.excused++
		return
	}
	j.aligning[k] = e
	j.stale = true
	j.judged++
}

// result is the verdict once the trace is read.
func (j *switchJudge) result() Result {
	return deadlineResult(PropAlignmentTimeout, j.violations, j.judged, j.excused, len(j.aligning), "alignment", "no barrier received")
}

// deadlineResult is the verdict of a rule that judges each of its occasions (aborts,
// alignments) by a deadline: judged were started, excused had a fault in force before
// theirs, and unreached were still running when the trace ended, which means the trace
// does not reach their deadline (any later event would have found them overdue), so they
// are not judged either. With none judged, a pass is unexercised, and none says why.
func deadlineResult(p Property, violations []Violation, judged, excused, unreached int, what, none string) Result {
	res := newResult(p, violations)
	if excused > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d %s(s) with a fault in force before the deadline: not judged", excused, what))
	}
	if unreached > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d %s(s) whose deadline the trace does not reach: not judged", unreached, what))
	}
	if res.Verdict == VerdictPass && judged-unreached == 0 {
		return unexercisedResult(p, fmt.Sprintf("no %s judged: %s", what, cmpOrNote(res.Note, none)))
	}
	return res
}
