package checker

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleFailoverHasCause is the specification's name of the rule FailoverCause judges.
const ruleFailoverHasCause = "failover.has-cause"

// The failover reasons FailoverCause pairs with their causes, as protocol.Reason renders them.
const (
	reasonTaskFailure         = "task-failure"
	reasonCoordinatorRecovery = "coordinator-recovery"
	reasonDrainFailed         = "drain-failed"
)

// FailoverCause checks that the job fails over only for a cause, and that a checkpoint's
// failure at a task stays a checkpoint failure. Two things are violations:
//
//   - a job.failover with no cause since the job last failed over: a task-failure failover
//     with no task.crash, a coordinator-recovery failover with no coordinator.crash, a
//     failover without a reason with neither, a drain-failed failover with no
//     stop-with-savepoint with drain aborted (checkpoint.abort). A failover for tolerable-failures-exceeded
//     has its cause in the failure count, which failure-accounting judges. A failover with
//     a reason of another engine's is not judged.
//   - a task that fails by itself (task.crash with a reason) while a snapshot it took in
//     this incarnation is still uploading (snapshot.taken, with no snapshot.ack,
//     snapshot.decline, notify.abort, newer notify.complete or state.release of it yet), with
//     a fault in force meanwhile that fails storage writes (storage.fail,
//     storage.unavailable), and nothing else in force that could fail the task (a fault of
//     the external system or on its host or links). Its upload failed, and it failed instead
//     of declining: in Flink an asynchronous snapshot failure declines the checkpoint
//     (CHECKPOINT_ASYNC_EXCEPTION), the failure manager counts it, and the job fails over
//     only once the budget is exceeded. With an external fault in force as well, the crash
//     may be the sink's, and it is not judged.
//
// Without a failover and without a task failing by itself while it uploads, unexercised;
// with only what is not judged, unknown.
func FailoverCause(events []trace.Event) Result {
	return failoverCause(newTraceIndex(events))
}

// failoverCauseKinds are the kinds failoverJudge.observe reacts to.
var failoverCauseKinds = kindsOf(trace.KindJobFailover, trace.KindTaskCrash, trace.KindCoordinatorCrash,
	trace.KindTaskRestore, trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindSnapshotDecline,
	trace.KindNotifyAbort, trace.KindNotifyComplete, trace.KindStateRelease, trace.KindFault,
	trace.KindCheckpointTrigger, trace.KindCheckpointAbort)

func failoverCause(ix *traceIndex) Result {
	j := &failoverJudge{uploading: map[string]map[uint64]*trace.Event{}, began: map[string]int64{}, drains: map[uint64]bool{}}
	for i := range ix.only(failoverCauseKinds) {
		j.observe(&ix.events[i])
	}
	var note string
	if len(j.notJudged) > 0 {
		note = "not judged: " + summarise(j.notJudged)
	}
	switch {
	case len(j.violations) == 0 && j.judged == 0 && note != "":
		return unknownResult(PropFailoverCause, note)
	case len(j.violations) == 0 && j.judged == 0:
		return unexercisedResult(PropFailoverCause, "no job.failover, and no task failed by itself while it uploaded a snapshot")
	}
	res := newResult(PropFailoverCause, j.violations)
	res.Note = note
	return res
}

// failoverJudge follows the causes since the last failover and each task's uploads.
type failoverJudge struct {
	taskCrash, coordinatorCrash *trace.Event // the first of each since the last failover
	drainAborted                bool         // a drain aborted since the last failover
	drains                      map[uint64]bool
	uploading                   map[string]map[uint64]*trace.Event
	began                       map[string]int64 // when each task last restored
	restarted                   int64            // when the job last failed over
	writeFaults, externalFaults faultWindows
	judged                      int // failovers and failures while uploading that were judged
	notJudged                   []string
	violations                  []Violation
}

func (j *failoverJudge) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindFault:
		j.fault(e)
	case trace.KindCheckpointTrigger:
		if v, _ := e.Attr(trace.AttrDrain); v == "true" {
			j.drains[e.CP] = true
		}
	case trace.KindCheckpointAbort:
		j.drainAborted = j.drainAborted || j.drains[e.CP]
	case trace.KindJobFailover:
		j.failover(e)
	case trace.KindCoordinatorCrash:
		if j.coordinatorCrash == nil {
			j.coordinatorCrash = e
		}
	case trace.KindTaskCrash:
		if j.taskCrash == nil {
			j.taskCrash = e
		}
		if e.Reason != "" {
			j.selfFailure(e)
		}
		delete(j.uploading, e.Task)
	case trace.KindTaskRestore:
		delete(j.uploading, e.Task)
		j.began[e.Task] = e.T
	case trace.KindSnapshotTaken:
		if j.uploading[e.Task] == nil {
			j.uploading[e.Task] = map[uint64]*trace.Event{}
		}
		j.uploading[e.Task][e.CP] = e
	case trace.KindSnapshotAck, trace.KindSnapshotDecline, trace.KindNotifyAbort, trace.KindStateRelease:
		delete(j.uploading[e.Task], e.CP)
	case trace.KindNotifyComplete:
		// A newer completion ends what the task still took for older checkpoints.
		maps.DeleteFunc(j.uploading[e.Task], func(cp uint64, _ *trace.Event) bool { return cp <= e.CP })
	}
}

// failover judges a job.failover against the causes since the last one, and starts over:
// every task is replaced, uploads and all.
func (j *failoverJudge) failover(e *trace.Event) {
	j.judged++
	var missing string
	switch e.Reason {
	case reasonTolerableExceeded:
	case reasonTaskFailure:
		if j.taskCrash == nil {
			missing = "no task.crash"
		}
	case reasonCoordinatorRecovery:
		if j.coordinatorCrash == nil {
			missing = "no coordinator.crash"
		}
	case reasonDrainFailed:
		if !j.drainAborted {
			missing = "no stop-with-savepoint with drain aborted"
		}
	case "":
		if j.taskCrash == nil && j.coordinatorCrash == nil {
			missing = "neither a task.crash nor a coordinator.crash"
		}
	default:
		j.judged--
		j.notJudged = append(j.notJudged, fmt.Sprintf("the failover at seq %d, for reason %q", e.Seq, e.Reason))
	}
	if missing != "" {
		j.violations = append(j.violations, forRule(ruleFailoverHasCause, violationAt(PropFailoverCause, e,
			"the job failed over (%s) with %s since it last failed over", cmpOrNote(e.Reason, "no reason"), missing)))
	}
	j.taskCrash, j.coordinatorCrash, j.drainAborted = nil, nil, false
	clear(j.uploading)
	j.restarted = e.T
}

// selfFailure judges a task that failed by itself while it uploaded a snapshot.
func (j *failoverJudge) selfFailure(e *trace.Event) {
	pending := j.uploading[e.Task]
	if len(pending) == 0 {
		return
	}
	oldest := pending[slices.Min(slices.Collect(maps.Keys(pending)))]
	fault := j.writeFaults.overlapping(oldest.T, e.T)
	if fault == nil {
		j.judged++ // nothing could fail its upload: it failed for something else
		return
	}
	if other := j.externalFaults.overlapping(max(j.began[e.Task], j.restarted), e.T); other != nil {
		j.notJudged = append(j.notJudged, fmt.Sprintf("%s failed at seq %d while it uploaded, with %s at seq %d in force too", e.Task, e.Seq, other.Fault, other.Seq))
		return
	}
	j.judged++
	v := violationAt(PropFailoverCause, e,
		"%s failed (%s) while its snapshot for %d (seq %d) was uploading under %s (seq %d): a snapshot that cannot be uploaded declines its checkpoint (upload-failed), which the failure budget counts, and never fails the task",
		e.Task, e.Reason, oldest.CP, oldest.Seq, fault.Fault, fault.Seq)
	v.CP = oldest.CP
	j.violations = append(j.violations, forRule(ruleFailoverHasCause, v))
}

// fault keeps the windows of the faults that can fail an upload, and of those that can fail
// a task through the external system.
func (j *failoverJudge) fault(e *trace.Event) {
	switch {
	case e.Fault == "storage.fail" || e.Fault == "storage.unavailable":
		j.writeFaults.observe(e)
	case strings.HasPrefix(e.Fault, "storage."):
	case canFailTasks(e) || isFaultEnd(e):
		j.externalFaults.observe(e)
	}
}

// faultWindows are the windows of some faults, each from its fault event to the event that
// ends it (same id, end=true), or to the end of the trace; a fault without a window lasts an
// instant.
type faultWindows struct {
	starts []*trace.Event
	ends   []int64
	open   map[string]int // id -> index of a window not ended yet
}

func (w *faultWindows) observe(e *trace.Event) {
	id, _ := e.Attr("id")
	if isFaultEnd(e) {
		if at, ok := w.open[id]; ok {
			w.ends[at] = e.T
			delete(w.open, id)
		}
		return
	}
	end := e.T
	if _, windowed := e.Attr("window_ns"); windowed && id != "" {
		end = math.MaxInt64
		if w.open == nil {
			w.open = map[string]int{}
		}
		w.open[id] = len(w.starts)
	}
	w.starts = append(w.starts, e)
	w.ends = append(w.ends, end)
}

// overlapping returns the first fault whose window meets [from, to], or nil.
func (w *faultWindows) overlapping(from, to int64) *trace.Event {
	for i, start := range w.starts {
		if start.T <= to && w.ends[i] >= from {
			return start
		}
	}
	return nil
}

// isFaultEnd reports whether a fault event ends a windowed fault.
func isFaultEnd(e *trace.Event) bool {
	end, _ := e.Attr("end")
	return end == "true"
}
