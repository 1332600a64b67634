package checker

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// result is BarrierHandling's verdict once the trace is read. Violations fail it; else
// missing evidence makes it unknown, naming the kind; else nothing to judge makes it
// unexercised.
func (j *handlingJudge) result(ix *traceIndex) Result {
	j.neverDeclined(ix)
	res := newResult(PropBarrierHandling, j.violations)
	if open := j.stillOwed(); open > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d answer(s) or cancel(s) still owed where the trace ends: not judged", open))
	}
	if res.Verdict == VerdictFail {
		return res
	}
	var missing string
	if trigger := ix.of(kindsOf(trace.KindCheckpointTrigger)).next(0); trigger < len(ix.events) && !ix.any(kindsOf(trace.KindTriggerRecv)) {
		missing = joinNote(missing, fmt.Sprintf("checkpoint.trigger at seq %d, but no trigger.recv in the trace: what tasks did with their triggers is not traced", ix.events[trigger].Seq))
	}
	if e := j.markerless; e != nil {
		missing = joinNote(missing, fmt.Sprintf("%s at seq %d owes a cancel marker, but the trace has no marker.send or marker.recv at all", e.Kind, e.Seq))
	}
	if e := untracedMarkerReceipt(ix); e != nil {
		missing = joinNote(missing, fmt.Sprintf("the cancel marker %s sent to %s at seq %d was taken in (a newer barrier followed it), but the trace has no marker.recv", e.Task, e.To, e.Seq))
	}
	switch {
	case missing != "" && res.Note != "":
		return unknownResult(PropBarrierHandling, joinNote(missing, res.Note))
	case missing != "":
		return unknownResult(PropBarrierHandling, missing)
	case j.occasions == 0:
		return unexercisedResult(PropBarrierHandling, "no task took a trigger or cancel marker in, or sent a barrier or cancel marker")
	}
	return res
}

// neverDeclined judges the alignments a newer barrier overtook that are still not declined
// where the trace ends, later than the barrier came (alignment.newer-barrier): a task whose
// every input the two alignments block takes nothing in again, so no next input shows the
// decline missing, and the trace going on without it does. Names are sorted for a stable
// order.
func (j *handlingJudge) neverDeclined(ix *traceIndex) {
	if len(ix.events) == 0 {
		return
	}
	last := &ix.events[len(ix.events)-1]
	names := make([]string, 0, len(j.tasks))
	for name := range j.tasks {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		th := j.tasks[name]
		for _, o := range th.overtaken {
			if last.T > o.by.T {
				j.violate(ruleNewerBarrier, o.by, th.name, o.cp,
					"%s took the barrier of checkpoint %d from %s in at seq %d while aligning %d, whose barrier had not come from %s, and never declined %d (the trace goes on to seq %d)",
					th.name, o.by.CP, o.by.From, o.by.Seq, o.cp, o.by.From, o.cp, last.Seq)
			}
		}
		th.overtaken = nil
	}
}

// stillOwed counts what the tasks owe when the trace ends.
func (j *handlingJudge) stillOwed() int {
	n := 0
	for _, th := range j.tasks {
		n += len(th.owedDeclines) + len(th.owedCancels)
		if th.owedTrigger != nil {
			n++
		}
	}
	return n
}

// untracedMarkerReceipt returns a marker.send that its receiver evidently took in (a newer
// barrier on the same channel reached it, and channels are FIFO) in a trace without any
// marker.recv, or nil. Without that evidence a trace without receipts may just have sent
// its markers into a failover.
func untracedMarkerReceipt(ix *traceIndex) *trace.Event {
	if !ix.any(kindsOf(trace.KindMarkerSend)) || ix.any(kindsOf(trace.KindMarkerRecv)) {
		return nil
	}
	type channel struct{ from, to string }
	sentOn := map[channel]*trace.Event{} // the first marker on each channel of live incarnations
	kinds := kindsOf(trace.KindMarkerSend, trace.KindBarrierRecv, trace.KindTaskCrash, trace.KindTaskRestore, trace.KindJobFailover)
	for i := range ix.only(kinds) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindMarkerSend:
			if ch := (channel{e.Task, e.To}); sentOn[ch] == nil {
				sentOn[ch] = e
			}
		case trace.KindBarrierRecv:
			if m := sentOn[channel{e.From, e.Task}]; m != nil && m.CP < e.CP {
				return m
			}
		case trace.KindJobFailover:
			clear(sentOn)
		default: // a crash or restore ends the task's channels both ways
			for ch := range sentOn {
				if ch.from == e.Task || ch.to == e.Task {
					delete(sentOn, ch)
				}
			}
		}
	}
	return nil
}
