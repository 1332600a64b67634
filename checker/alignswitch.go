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
	type key struct {
		task string
		cp   uint64
	}
	faults := ix.faults()
	senders := map[string]bool{}
	for i := range ix.only(senderKinds) {
		senders[events[i].Task] = true
	}
	savepoints := map[uint64]bool{}
	ended := map[uint64]bool{}         // checkpoints completed or aborted: no switch is owed for them
	aligning := map[key]*trace.Event{} // first barrier.recv of an alignment being judged
	seen := map[key]bool{}             // alignments started, so a later barrier starts none
	var violations []Violation
	judged, excused := 0, 0
	// firstDeadline is the earliest deadline of the alignments being judged, recomputed only
	// after they changed (stale), so that an event before it costs no pass over them.
	firstDeadline, stale := int64(0), false
	endTask := func(task string) {
		for k := range aligning {
			if k.task == task {
				delete(aligning, k)
				stale = true
			}
		}
	}
	relevant := ix.of(alignmentKinds)
	for i := 0; i < len(events); i++ {
		if len(aligning) == 0 {
			// No deadline runs, so only the events of alignmentKinds change anything.
			if i = relevant.next(i); i == len(events) {
				break
			}
		}
		e := &events[i]
		if len(aligning) == 0 {
			stale = false
			firstDeadline = math.MaxInt64
		} else if stale {
			stale = false
			firstDeadline = math.MaxInt64
			for _, first := range aligning {
				firstDeadline = min(firstDeadline, first.T+timeout+slack)
			}
		}
		if e.T > firstDeadline {
			// Some alignment has outlived its deadline: judge them in the order they began.
			for _, k := range slices.SortedFunc(maps.Keys(aligning), func(x, y key) int { return int(aligning[x].Seq) - int(aligning[y].Seq) }) {
				first := aligning[k]
				if e.T > first.T+timeout+slack {
					violations = append(violations, Violation{
						Property: PropAlignmentTimeout,
						Message: oneLine(fmt.Sprintf("%s has not forwarded checkpoint %d's barrier %dns after the first one came at seq %d (alignment timeout %dns): it never switched to unaligned",
							k.task, k.cp, e.T-first.T, first.Seq, timeout)),
						Seq: e.Seq, T: e.T, Task: k.task, CP: k.cp,
					})
					delete(aligning, k)
				}
			}
			stale = true
		}
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			if isSavepointTrigger(e) {
				savepoints[e.CP] = true
			}
		case trace.KindBarrierRecv:
			// A newer barrier ends the older alignments at the task: it moved past them.
			for k := range aligning {
				if k.task == e.Task && k.cp < e.CP {
					delete(aligning, k)
					stale = true
				}
			}
			k := key{e.Task, e.CP}
			if seen[k] || savepoints[e.CP] || ended[e.CP] || !senders[e.Task] {
				continue
			}
			seen[k] = true
			if !faults.quiet(e.T, e.T+timeout+slack) {
				excused++
				continue
			}
			aligning[k] = e
			stale = true
			judged++
		case trace.KindBarrierSend, trace.KindSnapshotTaken, trace.KindSnapshotDecline, trace.KindNotifyAbort:
			delete(aligning, key{e.Task, e.CP})
			stale = true
		case trace.KindCheckpointAbort, trace.KindCheckpointComplete:
			ended[e.CP] = true
			for k := range aligning {
				if k.cp == e.CP {
					delete(aligning, k)
					stale = true
				}
			}
		case trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish:
			endTask(e.Task)
		case trace.KindJobFailover, trace.KindCoordinatorCrash:
			clear(aligning)
			stale = true
		}
	}
	res := newResult(PropAlignmentTimeout, violations)
	// An alignment still running when the trace ends ran until past its end (any later event
	// would have found it overdue): the trace does not reach its deadline.
	judged -= len(aligning)
	if excused > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d alignment(s) with a fault in force before the deadline: not judged", excused))
	}
	if len(aligning) > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d alignment(s) whose deadline the trace does not reach: not judged", len(aligning)))
	}
	if res.Verdict == VerdictPass && judged == 0 {
		return unexercisedResult(PropAlignmentTimeout, "no alignment judged: "+cmpOrNote(res.Note, "no barrier received"))
	}
	return res
}
