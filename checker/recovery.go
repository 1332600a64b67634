package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// RecoveryBound checks that the job recovers from every failover in time: after each
// job.failover a checkpoint (not a savepoint) completes within
// Reference.Liveness.RecoveryMaxNanos, or the job finishes (every job task traced
// task.finish). Liveness judges progress only after the faults heal; this judges every
// failover, so a restart that stalls for a while and then recovers, before the heal, is seen
// too. A failover is judged only when no fault was in force from it to its deadline (a fault
// may rightly hold up a restart), and when the trace reaches the deadline; the next
// job.failover or coordinator.crash before it starts a new restart, judged on its own.
//
// The bound allows for one checkpoint that expires before the next completes. A restarted
// job catching up may take longer than a short timeout allows, so each further checkpoint
// that expires extends the deadline by its own lifetime, from trigger to expiry, but never
// past the liveness bound (Liveness.CheckpointAfterHealNanos): a restart whose checkpoints
// keep expiring still fails. Without the bound the verdict is unknown; with no failover
// judged, unexercised.
func RecoveryBound(events []trace.Event, ref Reference) Result {
	return recoveryBound(newTraceIndex(events), ref)
}

// recoveryKinds are the kinds RecoveryBound reacts to (lifecycleKinds among them).
var recoveryKinds = lifecycleKinds | kindsOf(trace.KindJobFailover, trace.KindCoordinatorCrash, trace.KindCheckpointComplete,
	trace.KindCheckpointAbort, trace.KindTaskFinish)

// restartJudge follows the failover being judged.
type restartJudge struct {
	bound, most int64 // the bound, and how far expiries may extend it
	faults      *faultSpans
	restart     *trace.Event // the failover being judged, or nil
	deadline    int64
	expiries    int
	triggered   map[uint64]int64 // checkpoint -> when it was triggered
	judged      int
	excused     int
}

// failover starts judging e, unless a fault is in force before its deadline.
func (r *restartJudge) failover(e *trace.Event) {
	r.restart, r.expiries = nil, 0
	if !r.faults.quiet(e.T, e.T+r.bound) {
		r.excused++
		return
	}
	r.restart, r.deadline = e, e.T+r.bound
	r.judged++
}

// expired extends the deadline for a checkpoint that expired after the first.
func (r *restartJudge) expired(e *trace.Event) {
	if r.restart == nil {
		return
	}
	if r.expiries++; r.expiries < 2 {
		return
	}
	deadline := min(r.deadline+e.T-r.triggered[e.CP], r.restart.T+r.most)
	if !r.faults.quiet(r.restart.T, deadline) {
		r.restart = nil
		r.judged--
		r.excused++
		return
	}
	r.deadline = deadline
}

func recoveryBound(ix *traceIndex, ref Reference) Result {
	bound := ref.Liveness.RecoveryMaxNanos
	if bound <= 0 {
		return unknownResult(PropRecoveryBound, "the reference gives no recovery bound (liveness.recovery_max_ns)")
	}
	events := ix.events
	r := &restartJudge{bound: bound, most: max(bound, ref.Liveness.CheckpointAfterHealNanos), faults: ix.faults(), triggered: map[uint64]int64{}}
	lifecycle := newJobLifecycle(ix)
	var violations []Violation
	relevant := ix.of(recoveryKinds)
	for i := 0; i < len(events); i++ {
		if r.restart == nil {
			// No deadline runs, so only the events of recoveryKinds change anything.
			if i = relevant.next(i); i == len(events) {
				break
			}
		}
		e := &events[i]
		if r.restart != nil && e.T > r.deadline {
			violations = append(violations, violationAt(PropRecoveryBound, e,
				"no checkpoint completed within %dns of the failover at seq %d (t=%d)", r.deadline-r.restart.T, r.restart.Seq, r.restart.T))
			r.restart = nil
		}
		lifecycle.observe(e)
		switch e.Kind {
		case trace.KindJobFailover:
			r.failover(e)
		case trace.KindCheckpointTrigger:
			r.triggered[e.CP] = e.T
		case trace.KindCheckpointAbort:
			if e.Reason == "expired" {
				r.expired(e)
			}
		case trace.KindCoordinatorCrash:
			r.restart = nil
		case trace.KindCheckpointComplete:
			if !lifecycle.savepoint(e.CP) {
				r.restart = nil
			}
		case trace.KindTaskFinish:
			if lifecycle.allFinished() {
				r.restart = nil
			}
		}
	}
	return r.result(events, violations)
}

// result is the verdict once the trace is read.
func (r *restartJudge) result(events []trace.Event, violations []Violation) Result {
	res := newResult(PropRecoveryBound, violations)
	if r.restart != nil && len(events) > 0 && events[len(events)-1].T <= r.deadline {
		r.judged-- // the trace ends before its deadline
		res.Note = joinNote(res.Note, fmt.Sprintf("the trace ends before the deadline of the failover at seq %d: not judged", r.restart.Seq))
	}
	if r.excused > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d failover(s) with a fault in force before the deadline: not judged", r.excused))
	}
	if res.Verdict == VerdictPass && r.judged == 0 {
		return unexercisedResult(PropRecoveryBound, "no failover judged: "+cmpOrNote(res.Note, "none in the trace"))
	}
	return res
}

// lifecycle follows what several properties need of the job: which checkpoints are
// savepoints, and whether every job task has finished.
type lifecycle struct {
	savepoints map[uint64]bool
	last       map[string]string // task -> its last lifecycle event kind
	running    int
	job        map[string]bool // the tasks of the last rescale so far, nil before one
}

func newLifecycle() *lifecycle {
	return &lifecycle{savepoints: map[uint64]bool{}, last: map[string]string{}}
}

// workKinds are the kinds a job task traces while it runs (not snapshot.carried, which the
// coordinator traces for a task that finished, nor sink.read, which readers outside the job
// trace).
var workKinds = kindsOf(trace.KindBarrierSend, trace.KindBarrierRecv, trace.KindSnapshotTaken, trace.KindSnapshotAck,
	trace.KindSnapshotDecline, trace.KindNotifyComplete, trace.KindNotifyAbort, trace.KindRecordSend, trace.KindRecordRecv,
	trace.KindSinkWrite, trace.KindSinkWrites, trace.KindSinkPrecommit, trace.KindSinkCommit, trace.KindSinkAbort, trace.KindSinkUpsert)

// newJobLifecycle is a lifecycle that knows, from the start, every task the trace shows at
// work, each running until it traces task.finish. An engine need not trace a fresh start
// (task.restore of checkpoint 0): without this, the first task to finish would look like
// the whole job finishing.
func newJobLifecycle(ix *traceIndex) *lifecycle {
	l := newLifecycle()
	for _, w := range ix.workers() {
		l.last[w.task] = w.kind
		l.running++
	}
	return l
}

// worker is a job task the trace shows at work, with the kind of its first such event.
type worker struct{ task, kind string }

// workersOf lists the job tasks at work in ix, in the order of their first work event: what
// newJobLifecycle starts from. Four properties start a lifecycle of their own, so the trace
// index finds the workers once for all of them. A task's work events come in runs, so an
// event of the task before it costs a string comparison, not a map lookup.
func workersOf(ix *traceIndex) []worker {
	var workers []worker
	seen := map[string]bool{"": true, trace.CoordinatorTask: true}
	last := ""
	for i := range ix.only(workKinds) {
		e := &ix.events[i]
		if e.Task == last {
			continue
		}
		last = e.Task
		if !seen[e.Task] {
			seen[e.Task] = true
			workers = append(workers, worker{task: e.Task, kind: e.Kind})
		}
	}
	return workers
}

// lifecycleKinds are the kinds lifecycle.observe reacts to.
var lifecycleKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish,
	trace.KindJobResubmit)

func (l *lifecycle) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		if isPlainSavepointTrigger(e) {
			l.savepoints[e.CP] = true
		}
	case trace.KindJobResubmit:
		if tasks, ok := rescaleTasks(e); ok {
			l.rescaled(tasks)
		}
	case trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish:
		if l.job != nil && !l.job[e.Task] {
			return // a task a rescale did away with, finishing what it was doing
		}
		before, seen := l.last[e.Task]
		if seen && before != trace.KindTaskFinish {
			l.running--
		}
		l.last[e.Task] = e.Kind
		if e.Kind != trace.KindTaskFinish {
			l.running++
		}
	}
}

func (l *lifecycle) savepoint(cp uint64) bool { return l.savepoints[cp] }

// rescaled makes tasks the job's: the others are gone for good, and a listed task not seen
// yet runs until it finishes.
func (l *lifecycle) rescaled(tasks map[string]bool) {
	l.job = tasks
	for task, kind := range l.last {
		if !tasks[task] {
			if kind != trace.KindTaskFinish {
				l.running--
			}
			delete(l.last, task)
		}
	}
	for task := range tasks {
		if _, ok := l.last[task]; !ok {
			l.last[task] = trace.KindJobResubmit
			l.running++
		}
	}
}

// live reports whether task may still act: its last lifecycle event is not task.finish or
// task.crash (a task the trace shows no lifecycle of counts as live).
func (l *lifecycle) live(task string) bool {
	k := l.last[task]
	return k != trace.KindTaskFinish && k != trace.KindTaskCrash
}

// allFinished reports whether the trace names job tasks and every one's last lifecycle
// event is task.finish.
func (l *lifecycle) allFinished() bool { return len(l.last) > 0 && l.running == 0 }

func cmpOrNote(note, otherwise string) string {
	if note == "" {
		return otherwise
	}
	return note
}
