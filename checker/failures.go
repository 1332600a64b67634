package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// failureCounts classifies the reasons of checkpoint.abort as Flink's checkpoint failure
// manager does, and as protocol.Reason.CountsAsFailure does (a test keeps the two in
// agreement): true for a failure that counts towards the tolerable checkpoint failures
// (expired; a snapshot that could not be written, an asynchronous failure; a decline because
// something is wrong at a task; metadata that could not be finalized; an id counter that
// could not be written, an I/O failure while triggering, Flink's IO_EXCEPTION), false for an
// end that says nothing about the job's health (subsumed; overtaken by a newer barrier;
// cancelled; a failover or a finished job). A reason not listed cannot be judged.
var failureCounts = map[string]bool{
	"expired":                true,
	"upload-failed":          true,
	"channel-state-overflow": true,
	"too-many-pending":       true,
	"persist-failed":         true,
	"trigger-failed":         true,
	"declined":               true, // a decline without a finer reason, as other engines trace it

	"newer-barrier":               false,
	"canceled":                    false,
	"aborted":                     false,
	"subsumed":                    false,
	"failover":                    false,
	"task-failure":                false,
	"tolerable-failures-exceeded": false,
	"coordinator-recovery":        false,
	"task-finished":               false,
	"job-finished":                false,
	"shared-state-gone":           false,
	"drain-failed":                false,
	"splits-in-flight":            false,
}

// The reasons of a job.failover that the failure count owes, and of the aborts a
// failover makes.
const (
	reasonTolerableExceeded = "tolerable-failures-exceeded"
	reasonFailover          = "failover"
)

// FailureAccounting checks the tolerable-failure rule (Reference.Policy.TolerableFailures):
// the job fails over exactly when its checkpoint failures in a row exceed the limit. A failure
// is a checkpoint.abort whose reason counts (failureCounts, Flink's classification), of a
// checkpoint (not a savepoint) with an id above the latest completed one, each id once. Only
// a checkpoint.trigger with savepoint=true marks a savepoint, so the abort of an id never
// triggered (its counter write failed, say) reads as a checkpoint's: an engine traces no
// such abort of a savepoint. A
// completion of a checkpoint newer than every completed one starts the count again; so do a
// job.failover (the restarted job counts afresh)
// and a coordinator.crash (its successor does). Two things are violations:
//
//   - a job.failover for tolerable-failures-exceeded when the count has not passed the limit
//     since the last failover (failures counted that should not be, or a limit miscounted),
//     pinned to the failover. A completion between the failure that passed the limit and
//     the failover does not make it wrong: the failover waits for the metadata writes in
//     flight, and one of them may land;
//   - the count above the limit, and a checkpoint triggered before any failover: the job
//     carried on checkpointing instead of failing over (a failure not counted, or the
//     failover forgotten), pinned to that trigger. A completion in between does not excuse
//     it: the metadata write in flight when the limit was passed may still land, and the
//     failover must follow all the same.
//
// A count above the limit when the trace ends is not judged (the failover may be on its way).
// Without the limit in the reference, or with an abort reason it cannot classify, the verdict
// is unknown; when no failure was judged and no such failover happened, unexercised.
func FailureAccounting(events []trace.Event, ref Reference) Result {
	return failureAccounting(newTraceIndex(events), ref)
}

// failureKinds are the kinds failureAccount.observe reacts to.
var failureKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort,
	trace.KindCoordinatorRecover, trace.KindJobFailover, trace.KindCoordinatorCrash)

func failureAccounting(ix *traceIndex, ref Reference) Result {
	events := ix.events
	if ref.Policy.TolerableFailures == nil {
		return unknownResult(PropFailureAccounting, "the reference gives no tolerable-failure limit (policy.tolerable_failures)")
	}
	a := &failureAccount{limit: *ref.Policy.TolerableFailures, counted: map[uint64]bool{}, savepoints: map[uint64]bool{}}
	for i := range ix.only(failureKinds) {
		if note := a.observe(&events[i]); note != "" {
			return unknownResult(PropFailureAccounting, note)
		}
	}
	res := newResult(PropFailureAccounting, a.violations)
	judged := a.failures
	if a.owed != nil {
		// The failures that took the count above the limit, and those after them, wait for a
		// failover the trace ends before: they are not judged.
		judged -= a.count - a.owedCount + 1
		res.Note = fmt.Sprintf("failures above the limit since seq %d and no failover yet when the trace ends: not judged", a.owed.Seq)
	}
	if res.Verdict == VerdictPass && judged == 0 && a.failovers == 0 {
		return unexercisedResult(PropFailureAccounting, "no checkpoint failure judged and no failover for exceeded tolerable failures: "+
			cmpOrNote(res.Note, "none counted"))
	}
	return res
}

type failureAccount struct {
	limit      int
	count      int
	counted    map[uint64]bool // ids counted since the count last started
	savepoints map[uint64]bool
	completed  uint64 // highest completed checkpoint
	// owed is the abort that took the count above the limit, while no failover followed,
	// and owedCount the count it took it to.
	owed      *trace.Event
	owedCount int
	// exceeded: the count passed the limit since the job last failed over. The failover
	// may come after completions that landed meanwhile (metadata writes in flight when the
	// limit was passed) and started the count again: it is owed all the same.
	exceeded   bool
	failures   int // failures counted in all
	failovers  int // failovers for exceeded tolerable failures
	violations []Violation
}

func (a *failureAccount) restart() {
	a.count, a.owed, a.exceeded = 0, nil, false
	clear(a.counted)
}

// observe takes one event; a non-empty result is why the trace cannot be judged.
func (a *failureAccount) observe(e *trace.Event) string {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		if v, _ := e.Attr(trace.AttrSavepoint); v == "true" {
			a.savepoints[e.CP] = true
		}
		if a.owed != nil {
			a.violations = append(a.violations, violationAt(PropFailureAccounting, e,
				"checkpoint %d triggered, but %d failures in a row (limit %d) were counted by checkpoint %d's abort (%s) at seq %d and the job did not fail over",
				e.CP, a.owedCount, a.limit, a.owed.CP, a.owed.Reason, a.owed.Seq))
			a.owed = nil // one violation per missed failover
		}
	case trace.KindCheckpointComplete:
		if !a.savepoints[e.CP] && e.CP > a.completed {
			a.completed = e.CP
			a.count = 0
			clear(a.counted)
		}
	case trace.KindCheckpointAbort:
		counts, known := failureCounts[e.Reason]
		if !known {
			return fmt.Sprintf("checkpoint %d aborted for reason %q at seq %d, which failure-accounting cannot classify", e.CP, e.Reason, e.Seq)
		}
		if !counts || a.savepoints[e.CP] || e.CP <= a.completed || a.counted[e.CP] {
			return ""
		}
		a.counted[e.CP] = true
		a.count++
		a.failures++
		if a.count > a.limit && a.owed == nil {
			a.owed, a.owedCount, a.exceeded = e, a.count, true
		}
	case trace.KindCoordinatorRecover:
		// The recovered incarnation counts only above what it read back from the store.
		a.completed = max(a.completed, e.CP)
	case trace.KindJobFailover:
		if e.Reason == reasonTolerableExceeded {
			a.failovers++
			if a.count <= a.limit && !a.exceeded {
				a.violations = append(a.violations, violationAt(PropFailureAccounting, e,
					"the job failed over for exceeded tolerable failures with %d failures in a row counted (limit %d)", a.count, a.limit))
			}
		}
		a.restart()
	case trace.KindCoordinatorCrash:
		a.restart()
	}
	return ""
}
