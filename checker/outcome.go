package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// CheckpointOutcome checks that no checkpoint vanishes: every checkpoint asked for
// (checkpoint.request, or checkpoint.trigger for an engine that traces no requests) ends in
// the trace with checkpoint.complete or with checkpoint.abort and a reason. A checkpoint that
// is asked for and then neither completes nor aborts leaves nobody knowing what became of it:
// the coordinator dropped it, or it is still running.
//
// Two ends are legitimate without either event, and only they:
//
//   - coordinator.crash: the incarnation that asked for the checkpoint is gone with everything
//     it had pending (its successor restores from the store and asks for checkpoints of its
//     own). Such checkpoints are dropped, not judged.
//   - the end of a trace in which the job is still running: a checkpoint still in progress
//     when a run is cut off has not vanished. Only when the trace shows the job ended (every
//     task it names has task.finish as its last lifecycle event) is a checkpoint still pending
//     at the end a violation, pinned to the last event, since only there did its absence
//     become final.
//
// A request of a checkpoint whose earlier request is still pending, in the same coordinator
// incarnation, is a violation too (the id was handed out twice), pinned to the second
// request, as is an abort without a reason.
//
// With nothing asked for there is nothing to judge: the verdict is unknown. When no
// checkpoint asked for ended in the trace (all dropped by a crash, or cut off by its end),
// the trace gave the rule no occasion: the verdict is unexercised.
func CheckpointOutcome(events []trace.Event) Result {
	return checkpointOutcome(newTraceIndex(events))
}

// outcomeKinds are the kinds outcomeJudge.observe reacts to.
var outcomeKinds = kindsOf(trace.KindCheckpointRequest, trace.KindCheckpointTrigger, trace.KindCheckpointComplete,
	trace.KindCheckpointAbort, trace.KindCoordinatorCrash, trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish,
	trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindSnapshotDecline, trace.KindBarrierSend,
	trace.KindBarrierRecv, trace.KindNotifyComplete, trace.KindNotifyAbort)

func checkpointOutcome(ix *traceIndex) Result {
	events := ix.events
	o := &outcomeJudge{pending: make(map[uint64]*trace.Event), lastLifecycle: make(map[string]string)}
	for i := range ix.only(outcomeKinds) {
		o.observe(&events[i])
	}
	if o.asked == 0 {
		return unknownResult(PropCheckpointOutcome, "no checkpoint.request or checkpoint.trigger in the trace")
	}
	var notes []string
	if len(o.pending) > 0 {
		if o.jobEnded() {
			o.flagPendingAtEnd(lastEvent(events))
		} else {
			notes = append(notes, fmt.Sprintf("%d checkpoint(s) still pending when the trace ends with the job running: not judged", len(o.pending)))
		}
	}
	if o.dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d checkpoint(s) dropped by a coordinator crash: not judged", o.dropped))
	}
	res := newResult(PropCheckpointOutcome, o.violations)
	res.Note = strings.Join(notes, "; ")
	if res.Verdict == VerdictPass && o.ended == 0 {
		return unexercisedResult(PropCheckpointOutcome, "no checkpoint asked for ended in the trace: "+res.Note)
	}
	return res
}

// outcomeJudge follows the checkpoints asked for, in one pass over the trace.
type outcomeJudge struct {
	pending       map[uint64]*trace.Event // checkpoint -> the event that asked for it
	asked         int
	ended         int // checkpoints asked for that completed or aborted
	dropped       int
	lastLifecycle map[string]string // task -> kind of its last task.restore, task.crash or task.finish
	violations    []Violation
}

func (o *outcomeJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointRequest:
		if first, ok := o.pending[e.CP]; ok {
			o.violations = append(o.violations, violationAt(PropCheckpointOutcome, e,
				"checkpoint %d requested again while its request at seq %d is still pending", e.CP, first.Seq))
			return
		}
		o.ask(e)
	case trace.KindCheckpointTrigger:
		// The start of a checkpoint asked for, or, from an engine that traces no
		// requests, the request itself.
		if _, ok := o.pending[e.CP]; !ok {
			o.ask(e)
		}
	case trace.KindCheckpointComplete:
		o.end(e.CP)
	case trace.KindCheckpointAbort:
		if e.Reason == "" {
			o.violations = append(o.violations, violationAt(PropCheckpointOutcome, e, "checkpoint %d aborted without a reason", e.CP))
		}
		o.end(e.CP)
	case trace.KindCoordinatorCrash:
		o.dropped += len(o.pending)
		clear(o.pending)
	case trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish:
		o.lastLifecycle[e.Task] = e.Kind
	case trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindSnapshotDecline, trace.KindBarrierSend,
		trace.KindBarrierRecv, trace.KindNotifyComplete, trace.KindNotifyAbort:
		// A task seen at work counts as running until it traces task.finish, whether or not
		// its engine traces a fresh start: the job has not ended while it may still run.
		if _, seen := o.lastLifecycle[e.Task]; !seen {
			o.lastLifecycle[e.Task] = e.Kind
		}
	}
}

func (o *outcomeJudge) ask(e *trace.Event) {
	o.pending[e.CP] = e
	o.asked++
}

func (o *outcomeJudge) end(cp uint64) {
	if _, ok := o.pending[cp]; ok {
		delete(o.pending, cp)
		o.ended++
	}
}

// jobEnded reports whether the trace shows the job over: it names tasks, and each one's
// last lifecycle event is task.finish.
func (o *outcomeJudge) jobEnded() bool {
	if len(o.lastLifecycle) == 0 {
		return false
	}
	for _, kind := range o.lastLifecycle {
		if kind != trace.KindTaskFinish {
			return false
		}
	}
	return true
}

// flagPendingAtEnd reports every checkpoint still pending at the end of a trace whose job
// ended, in id order, pinned to the last event but naming the checkpoint.
func (o *outcomeJudge) flagPendingAtEnd(last *trace.Event) {
	for _, cp := range slices.Sorted(maps.Keys(o.pending)) {
		asked := o.pending[cp]
		o.violations = append(o.violations, Violation{
			Property: PropCheckpointOutcome,
			Message: oneLine(fmt.Sprintf("checkpoint %d, asked for by %s at seq %d (t=%d), neither completed nor aborted, and the job ended",
				cp, asked.Kind, asked.Seq, asked.T)),
			Seq: last.Seq, T: last.T, Task: asked.Task, CP: cp,
		})
	}
}
