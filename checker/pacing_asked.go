package checker

import (
	"github.com/ckptsim/ckptsim/trace"
)

// ruleWhenAsked names the rule that a checkpoint outside the schedule was asked for.
const ruleWhenAsked = "trigger.when-asked"

// askedKinds are the kinds judgeAsked reads.
var askedKinds = kindsOf(trace.KindFault, trace.KindCheckpointRequest, trace.KindCheckpointTrigger,
	trace.KindSnapshotAck)

// faultTriggerCheckpoint is the fault (a request from outside) that asks for a checkpoint.
const faultTriggerCheckpoint = "trigger.checkpoint"

// judgeAsked judges trigger.when-asked: a checkpoint that is neither periodic nor a
// savepoint answers a request (a trigger.checkpoint fault or a checkpoint.request) not yet
// answered, or is the job's final checkpoint, which the coordinator takes once every task
// has finished its input. The trace says a task had not when its snapshot of the checkpoint
// is not final (snapshot.ack without final=true, as a task that finished acks). Requests
// are counted, not matched: a coordinator may answer two with one checkpoint, so a count
// left over excuses a later trigger rather than flag a correct one. With a periodic
// schedule but no trigger marked periodic, the trace cannot tell the schedule's triggers
// from the others, and the rule judges nothing.
func judgeAsked(ix *traceIndex, p Policy) []Violation {
	if p.IntervalNanos == nil || *p.IntervalNanos > 0 && !anyPeriodicTrigger(ix) {
		return nil
	}
	unasked := map[uint64]*trace.Event{} // unrequested triggers, not yet shown final
	var violations []Violation
	requests := 0
	for i := range ix.only(askedKinds) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindFault:
			if e.Fault == faultTriggerCheckpoint {
				requests++
			}
		case trace.KindCheckpointRequest:
			requests++
		case trace.KindCheckpointTrigger:
			switch {
			case isPeriodicTrigger(e), isSavepointTrigger(e), unasked[e.CP] != nil:
			case requests > 0:
				requests--
			default:
				unasked[e.CP] = e
			}
		case trace.KindSnapshotAck:
			trigger := unasked[e.CP]
			if final, _ := e.Attr(trace.AttrFinal); trigger == nil || final == "true" {
				continue
			}
			v := violationAt(PropTriggerPacing, trigger,
				"checkpoint %d was triggered outside the schedule with no request, and not as the final checkpoint: %s had not finished its input (its snapshot.ack at seq %d is not final)",
				e.CP, e.Task, e.Seq)
			v.Rule = ruleWhenAsked
			violations = append(violations, v)
			delete(unasked, e.CP)
		}
	}
	return violations
}

// anyPeriodicTrigger reports whether some checkpoint.trigger says periodic=true.
func anyPeriodicTrigger(ix *traceIndex) bool {
	for i := range ix.only(kindsOf(trace.KindCheckpointTrigger)) {
		if isPeriodicTrigger(&ix.events[i]) {
			return true
		}
	}
	return false
}
