package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// Liveness checks that the job makes progress once faults stop. From the start of the
// liveness phase (or of the heal phase, when the trace has no liveness phase event; or the
// first event of a trace without phases):
//
//   - a checkpoint (not a savepoint) completes within ref.Liveness.CheckpointAfterHealNanos,
//     unless every task of a bounded job finished first;
//   - a bounded job (ref.Liveness.FinishTasks) ends with each of those tasks finished
//     (task.finish is its last lifecycle event), and with every record of ref.Output
//     committed at least as often as expected; where the engine traces its report of the
//     end (Liveness.JobFinishTraced), job.finish follows the last task's finish, and
//     never comes before it;
//   - no task stays in alignment for a checkpoint (from its first barrier.recv, or from heal
//     if later; a barrier after the task's own snapshot.taken of that checkpoint starts
//     none) past ref.Liveness.AlignmentMaxNanos without its snapshot.taken, a
//     snapshot.decline, a newer snapshot, a crash, a restore or a finish, unless that
//     checkpoint aborted: an aborted checkpoint's alignment is released by the protocol's
//     own timeout, which the coordinator bounds.
//
// A missed deadline is pinned to the first event after it (or to the last event, when the
// trace ends exactly at the deadline, as it does when the liveness phase's end is the bound);
// a deadline beyond the end of the trace cannot be judged, which makes the verdict unknown
// rather than pass. A trace with a fault phase that never heals is not judged.
func Liveness(events []trace.Event, ref Reference) Result {
	ix := newTraceIndex(events)
	ref = stoppedReference(ix, ref).ref
	return liveness(ix, ref, newReplay(ix, ref))
}

func liveness(ix *traceIndex, ref Reference, sinks *replay) Result {
	events := ix.events
	bounds := ref.Liveness
	if bounds.CheckpointAfterHealNanos <= 0 && bounds.AlignmentMaxNanos <= 0 && len(bounds.FinishTasks) == 0 {
		return unknownResult(PropLiveness, "the reference sets no liveness bound (checkpoint after heal, alignment, bounded tasks)")
	}
	if len(events) == 0 {
		return unknownResult(PropLiveness, "the trace holds no events")
	}
	start := livenessStart(ix)
	if start < 0 {
		return unknownResult(PropLiveness, "the fault phase never healed (phase=fault without a later heal or liveness phase)")
	}
	l := &livenessJudge{ix: ix, events: events, ref: ref, start: start, sinks: sinks}
	l.judgeCheckpointAfterHeal()
	l.judgeFinish()
	l.judgeJobFinish()
	l.judgeStop()
	l.judgeAlignment()
	res := newResult(PropLiveness, l.violations)
	if len(l.unjudged) > 0 {
		res.Note = strings.Join(l.unjudged, "; ")
		if res.Verdict == VerdictPass {
			res.Verdict = VerdictUnknown
		}
	}
	if res.Verdict == VerdictPass && l.judged == 0 {
		// Only the alignment bound applies, and no task aligned after the start.
		return unexercisedResult(PropLiveness, "no alignment to judge (none began, or each ended before "+l.startName()+
			" or was of an aborted checkpoint) and no other bound in the reference")
	}
	return res
}

// The kinds the passes of livenessJudge react to.
var (
	checkpointEndKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete)
	taskLifecycleKinds = kindsOf(trace.KindTaskRestore, trace.KindTaskCrash, trace.KindTaskFinish)
	alignmentEndKinds  = taskLifecycleKinds | kindsOf(trace.KindBarrierRecv, trace.KindSnapshotTaken,
		trace.KindSnapshotDecline, trace.KindNotifyAbort, trace.KindCheckpointAbort, trace.KindJobResubmit)
)

type livenessJudge struct {
	ix         *traceIndex
	events     []trace.Event
	ref        Reference
	start      int // index at which liveness begins
	sinks      *replay
	violations []Violation
	unjudged   []string
	judged     int // deadlines and ends judged, kept or missed
}

// pastDeadline pins an absence to the first event after deadline (or the last event),
// naming task and cp rather than that event's own, which has nothing to do with the absence.
func (l *livenessJudge) pastDeadline(rule string, deadline int64, task string, cp uint64, format string, args ...any) {
	e := lastEvent(l.events)
	if i := firstAfter(l.events, deadline); i < len(l.events) {
		e = &l.events[i]
	}
	l.violations = append(l.violations, Violation{
		Property: PropLiveness, Message: oneLine(fmt.Sprintf(format, args...)),
		Seq: e.Seq, T: e.T, Task: task, CP: cp, Rule: rule,
	})
}

// startName names the event liveness is measured from, for messages.
func (l *livenessJudge) startName() string {
	if phase := phaseOf(&l.events[l.start]); phase != "" {
		return phase
	}
	return "the first event"
}

func (l *livenessJudge) endT() int64 { return lastEvent(l.events).T }

func (l *livenessJudge) judgeCheckpointAfterHeal() {
	bound := l.ref.Liveness.CheckpointAfterHealNanos
	if bound <= 0 {
		return
	}
	startT := l.events[l.start].T
	deadline := startT + bound
	savepoints := make(map[uint64]bool)
	for i := range l.ix.only(checkpointEndKinds) {
		e := &l.events[i]
		if e.Kind == trace.KindCheckpointTrigger && isPlainSavepointTrigger(e) {
			savepoints[e.CP] = true
		}
		if i > l.start && e.T <= deadline && e.Kind == trace.KindCheckpointComplete && !savepoints[e.CP] {
			l.judged++
			return
		}
	}
	if finishedAt, ok := l.jobFinishedAt(); ok && finishedAt <= deadline {
		l.judged++
		return
	}
	if l.endT() < deadline {
		l.unjudged = append(l.unjudged, fmt.Sprintf(
			"trace ends at t=%d, before the checkpoint deadline t=%d", l.endT(), deadline))
		return
	}
	l.judged++
	l.pastDeadline(ruleCheckpointAfterHeal, deadline, "", 0, "no checkpoint completed within %dns after %s at t=%d",
		bound, l.startName(), startT)
}

// lastLifecycle returns, per task, the index of its last task.restore, task.crash or
// task.finish.
func (l *livenessJudge) lastLifecycle() map[string]int {
	last := make(map[string]int)
	for i := range l.ix.only(taskLifecycleKinds) {
		last[l.events[i].Task] = i
	}
	return last
}

// jobFinishedAt returns when the last of FinishTasks finished for good, if all did.
func (l *livenessJudge) jobFinishedAt() (int64, bool) {
	tasks := l.finishTasks()
	if len(tasks) == 0 {
		return 0, false
	}
	last := l.lastLifecycle()
	var at int64
	for _, task := range tasks {
		i, ok := last[task]
		if !ok || l.events[i].Kind != trace.KindTaskFinish {
			return 0, false
		}
		at = max(at, l.events[i].T)
	}
	return at, true
}

func (l *livenessJudge) judgeFinish() {
	tasks := l.finishTasks()
	if len(tasks) == 0 {
		return
	}
	l.judged++
	end := lastEvent(l.events)
	last := l.lastLifecycle()
	for _, task := range tasks {
		i, ok := last[task]
		switch {
		case !ok:
			l.flagAtEnd(end, task, "bounded job: %s never finished", task)
		case l.events[i].Kind != trace.KindTaskFinish:
			l.flagAtEnd(end, task, "bounded job: %s did not finish (its last lifecycle event is %s at seq %d)",
				task, l.events[i].Kind, l.events[i].Seq)
		}
	}
	if l.ref.Output == nil {
		return
	}
	out := l.sinks.output()
	var missing []string
	for k := range out.records {
		if r := &out.records[k]; r.count < r.want.Count {
			missing = append(missing, r.id)
		}
	}
	if len(missing) == 0 {
		return
	}
	slices.Sort(missing)
	shown := strings.Join(missing[:min(len(missing), 3)], ", ")
	if len(missing) > 3 {
		shown += ", ..."
	}
	l.flagAtEnd(end, "", "the trace ends with %d expected records of the bounded job uncommitted (%s)", len(missing), shown)
}

func (l *livenessJudge) flagAtEnd(end *trace.Event, task string, format string, args ...any) {
	l.violations = append(l.violations, Violation{
		Property: PropLiveness, Message: oneLine(fmt.Sprintf(format, args...)),
		Seq: end.Seq, T: end.T, Task: task, Rule: ruleBoundedJobFinishes,
	})
}

// alignment is one task's wait for the barriers of one checkpoint.
type alignment struct {
	task   string
	cp     uint64
	first  int // index of its first barrier.recv
	closed bool
	endT   int64 // when it ended, once closed
}

func (l *livenessJudge) judgeAlignment() {
	bound := l.ref.Liveness.AlignmentMaxNanos
	if bound <= 0 {
		return
	}
	var all []*alignment
	byKey := make(map[taskCheckpoint]*alignment)
	// snapped: the task's snapshot for the checkpoint is taken, so a barrier that comes after
	// it starts no alignment (a Chandy-Lamport initiator, or an engine that traces its snapshot
	// when it takes it, hears markers after its own snapshot).
	snapped := make(map[taskCheckpoint]bool)
	openByTask := make(map[string][]*alignment)
	aborted := make(map[uint64]bool)
	var job map[string]bool // the last rescale's tasks: a gone task aligns no more
	closeWhere := func(task string, t int64, done func(a *alignment) bool) { closeAlignments(openByTask, task, t, done) }
	for i := range l.ix.only(alignmentEndKinds) {
		e := &l.events[i]
		switch e.Kind {
		case trace.KindBarrierRecv:
			key := taskCheckpoint{e.Task, e.CP}
			if byKey[key] == nil && !snapped[key] && (job == nil || job[e.Task]) {
				a := &alignment{task: e.Task, cp: e.CP, first: i}
				byKey[key] = a
				all = append(all, a)
				openByTask[e.Task] = append(openByTask[e.Task], a)
			}
		case trace.KindSnapshotTaken:
			snapped[taskCheckpoint{e.Task, e.CP}] = true
			closeWhere(e.Task, e.T, func(a *alignment) bool { return a.cp <= e.CP })
		case trace.KindSnapshotDecline, trace.KindNotifyAbort:
			closeWhere(e.Task, e.T, func(a *alignment) bool { return a.cp == e.CP })
		case trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish:
			closeWhere(e.Task, e.T, func(*alignment) bool { return true })
		case trace.KindCheckpointAbort:
			aborted[e.CP] = true
		case trace.KindJobResubmit:
			job = closeGone(e, openByTask, job)
		}
	}
	startT := l.events[l.start].T
	for _, a := range all {
		if aborted[a.cp] || (a.closed && a.endT <= startT) {
			continue
		}
		since := max(l.events[a.first].T, startT)
		deadline := since + bound
		if a.closed && a.endT <= deadline || l.endT() >= deadline {
			l.judged++
		}
		switch {
		case a.closed && a.endT <= deadline:
		case l.endT() < deadline:
			l.unjudged = append(l.unjudged, fmt.Sprintf(
				"trace ends at t=%d, before %s's alignment deadline t=%d for checkpoint %d", l.endT(), a.task, deadline, a.cp))
		default:
			l.pastDeadline(ruleAlignmentEnds, deadline, a.task, a.cp,
				"%s blocked in alignment for checkpoint %d for more than %dns (first barrier at seq %d)",
				a.task, a.cp, bound, l.events[a.first].Seq)
		}
	}
}

// closeGone ends, at a rescale, the alignments of the tasks it did away with, and returns
// the rescaled job's tasks (job, if e is no rescale): a gone task that still takes in a
// barrier before the failover that cancels it starts no alignment.
func closeGone(e *trace.Event, open map[string][]*alignment, job map[string]bool) map[string]bool {
	tasks, ok := rescaleTasks(e)
	if !ok {
		return job
	}
	for task := range open {
		if !tasks[task] {
			closeAlignments(open, task, e.T, func(*alignment) bool { return true })
		}
	}
	return tasks
}

// closeAlignments ends, at t, the open alignments of task that done accepts.
func closeAlignments(open map[string][]*alignment, task string, t int64, done func(*alignment) bool) {
	still := open[task][:0]
	for _, a := range open[task] {
		if done(a) {
			a.closed, a.endT = true, t
		} else {
			still = append(still, a)
		}
	}
	open[task] = still
}
