package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// BarrierHandling checks what a task does with the checkpoint traffic that reaches it, the
// rules T5 to T10 and T12 of the specification, judged per task incarnation from its own events in
// trace order. It answers a trigger at once, by a snapshot or a decline
// (task.answers-trigger). The barriers and cancel markers it sends on one channel never go
// back (channel.ids-increase). When it gives up a checkpoint whose barrier it took part in
// (it declines it, or is told it aborted while still aligning it), it cancels that
// checkpoint on every output still waiting for it (cancel.on-give-up). A cancel marker ends
// the checkpoint it names and every older one at the task: a new one is declined and passed
// on at once, and nothing of them is snapshotted or forwarded after it (cancel.on-marker).
// A barrier, trigger or cancel marker of a checkpoint the task was told aborted is
// cancelled on its outputs at once, never forwarded (cancel.on-known-abort). A newer barrier
// on an input an alignment still waits on ends that alignment: the task declines it at once
// and never snapshots it (alignment.newer-barrier). A checkpoint the task declined, or was
// told aborted, is never acknowledged after (ack.not-after-giving-up).
//
// "At once" means before the task takes in anything else: a trigger, barrier, cancel
// marker, notification or record of its own. A cancel marker may wait while an older
// checkpoint the task still aligns has not gone to that output (or while a newer marker
// owed there waits so, which settles it too), and is due at once after. What is still
// owed when the incarnation ends (crash, restore, finish, failover) is owed no more; what
// is owed when the trace ends is not judged. Without trigger.recv in a trace that triggers
// checkpoints, or without any marker.send or marker.recv where a rule needs one, the
// verdict is unknown, naming the kind; with nothing to judge, unexercised.
func BarrierHandling(events []trace.Event) Result { return barrierHandling(newTraceIndex(events)) }

// The names of the rules BarrierHandling judges, as the specification gives them.
const (
	ruleAnswersTrigger = "task.answers-trigger"
	ruleIDsIncrease    = "channel.ids-increase"
	ruleCancelOnGiveUp = "cancel.on-give-up"
	ruleCancelOnMarker = "cancel.on-marker"
	ruleCancelOnAbort  = "cancel.on-known-abort"
	ruleNewerBarrier   = "alignment.newer-barrier"
	ruleNoLateAck      = "ack.not-after-giving-up"
)

// handlingKinds are the kinds BarrierHandling reacts to; inputKinds those that show a task
// taking something in, which ends every "at once".
var (
	handlingKinds = kindsOf(trace.KindTriggerRecv, trace.KindBarrierRecv, trace.KindMarkerRecv,
		trace.KindNotifyComplete, trace.KindNotifyAbort, trace.KindRecordRecv,
		trace.KindBarrierSend, trace.KindMarkerSend, trace.KindSnapshotTaken, trace.KindSnapshotDecline, trace.KindSnapshotAck,
		trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish, trace.KindJobFailover)
	inputKinds = kindsOf(trace.KindTriggerRecv, trace.KindBarrierRecv, trace.KindMarkerRecv,
		trace.KindNotifyComplete, trace.KindNotifyAbort, trace.KindRecordRecv)
)

func barrierHandling(ix *traceIndex) Result {
	j := &handlingJudge{
		outputs:       channelOutputs(ix),
		tasks:         map[string]*taskHandling{},
		markersTraced: ix.any(kindsOf(trace.KindMarkerSend, trace.KindMarkerRecv)),
	}
	for i := range ix.only(handlingKinds) {
		j.at = i
		j.observe(&ix.events[i])
	}
	return j.result(ix)
}

// handlingJudge follows every task's incarnation through the trace.
type handlingJudge struct {
	outputs *jobOutputs // per job and task, the tasks its channels lead to, sorted
	at      int         // index of the event observed
	tasks   map[string]*taskHandling
	// markersTraced: the trace holds a marker.send or a marker.recv, so a missing cancel
	// marker is evidence, not a trace that leaves markers out.
	markersTraced bool
	// markerless is the first occasion that needed a cancel marker in a trace without any.
	markerless *trace.Event
	occasions  int // triggers, sends and obligations judged
	violations []Violation
}

// task returns the state of name's current incarnation.
func (j *handlingJudge) task(name string) *taskHandling {
	th := j.tasks[name]
	if th == nil {
		th = newTaskHandling(name)
		j.tasks[name] = th
	}
	return th
}

// observe takes the next event of a kind BarrierHandling reacts to.
func (j *handlingJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindJobFailover:
		clear(j.tasks) // every incarnation ends; nothing they owed is owed any more
		return
	case trace.KindTaskCrash, trace.KindTaskFinish:
		delete(j.tasks, e.Task)
		return
	case trace.KindTaskRestore:
		th := newTaskHandling(e.Task)
		th.restoredFrom = e.CP
		j.tasks[e.Task] = th
		return
	}
	th := j.task(e.Task)
	if inputKinds.has(e.Kind) {
		j.overdue(th, e)
	}
	switch e.Kind {
	case trace.KindTriggerRecv:
		j.triggerIn(th, e)
	case trace.KindBarrierRecv:
		j.barrierIn(th, e)
	case trace.KindMarkerRecv:
		j.markerIn(th, e)
	case trace.KindNotifyAbort:
		j.toldAborted(th, e)
	case trace.KindNotifyComplete:
		th.lastNotified = max(th.lastNotified, e.CP)
		th.endUpTo(e.CP)
	case trace.KindBarrierSend, trace.KindMarkerSend:
		j.sent(th, e)
	case trace.KindSnapshotTaken:
		j.snapshotTaken(th, e)
	case trace.KindSnapshotDecline:
		j.declined(th, e)
	case trace.KindSnapshotAck:
		j.acked(th, e)
		if v, _ := e.Attr(trace.AttrFinal); v == "true" && th.finalFor == 0 {
			th.finalFor = e.CP
		}
	}
}

// overdue reports, at input e, everything th still owed: e came first.
func (j *handlingJudge) overdue(th *taskHandling, e *trace.Event) {
	if t := th.owedTrigger; t != nil {
		j.violate(ruleAnswersTrigger, e, th.name, t.CP,
			"%s took the trigger of checkpoint %d in at seq %d and then %s before it snapshotted or declined it",
			th.name, t.CP, t.Seq, inputText(e))
	}
	for _, d := range th.owedDeclines {
		j.violate(ruleCancelOnMarker, e, th.name, d.CP,
			"%s took a cancel marker of checkpoint %d in at seq %d and then %s before it declined %d",
			th.name, d.CP, d.Seq, inputText(e), d.CP)
	}
	for _, o := range th.overtaken {
		j.violate(ruleNewerBarrier, e, th.name, o.cp,
			"%s took the barrier of checkpoint %d from %s in at seq %d while aligning %d, whose barrier had not come from %s, and then %s before it declined %d",
			th.name, o.by.CP, o.by.From, o.by.Seq, o.cp, o.by.From, inputText(e), o.cp)
	}
	newest := map[string]uint64{} // per output, the newest cancel marker owed there
	for _, c := range th.owedCancels {
		for _, to := range c.outputs {
			newest[to] = max(newest[to], c.cp)
		}
	}
	var held []owedCancel
	for _, c := range th.owedCancels {
		var waiting []string
		for _, to := range c.outputs {
			// A newer marker owed there would settle this one too: while it may wait,
			// so may this.
			if c.flinkMayWait || th.heldBack(to, newest[to]) {
				waiting = append(waiting, to)
				continue
			}
			j.violate(c.rule, e, th.name, c.cp, "%s %s at seq %d and then %s before a cancel marker of %d (or anything newer) went to %s",
				th.name, c.why, c.cause.Seq, inputText(e), c.cp, to)
		}
		if len(waiting) > 0 {
			c.outputs = waiting
			held = append(held, c)
		}
	}
	th.owedTrigger, th.owedDeclines, th.overtaken, th.owedCancels = nil, nil, nil, held
}

// violate records a violation of rule, pinned to e but naming task and cp.
func (j *handlingJudge) violate(rule string, e *trace.Event, task string, cp uint64, format string, args ...any) {
	v := violationAt(PropBarrierHandling, e, format, args...)
	v.Task, v.CP, v.Rule = task, cp, rule
	j.violations = append(j.violations, v)
}

// inputText names what a task took in, for a message.
func inputText(e *trace.Event) string {
	switch e.Kind {
	case trace.KindBarrierRecv, trace.KindMarkerRecv, trace.KindRecordRecv:
		what := fmt.Sprintf("%s of %d", e.Kind, e.CP)
		if e.Kind == trace.KindRecordRecv {
			what = fmt.Sprintf("%s %s", e.Kind, e.RID)
		}
		return fmt.Sprintf("took %s from %s in (seq %d)", what, e.From, e.Seq)
	}
	return fmt.Sprintf("took %s of %d in (seq %d)", e.Kind, e.CP, e.Seq)
}
