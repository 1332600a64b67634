package checker

import (
	"fmt"

	"github.com/ckptsim/ckptsim/trace"
)

// incarnation is one life of a task, from its task.restore (or its first event) to its
// task.crash.
type incarnation struct {
	alive        bool
	finished     bool
	restored     uint64 // checkpoint it was restored from; 0 for a fresh start
	lastNotified uint64 // highest checkpoint a notify.complete named in this incarnation
	// finalTaken is the checkpoint of the task's final snapshot, as a snapshot.carried names
	// it (0: none seen). A notification of finalTaken or later lets the task exit.
	finalTaken uint64
	// replaced is the incarnation a job.failover replaced by this one, whose commits invoked
	// before the failover may be answered after it; nil for one begun by task.restore.
	replaced *incarnation
}

// exited reports whether the incarnation has exited: traced (task.finish), or told of a
// checkpoint that covers its final snapshot, which is when the protocol lets it go even
// though its host may trace the exit only once its last commits are done.
func (inc *incarnation) exited() bool {
	return inc.finished || inc.finalTaken > 0 && inc.lastNotified >= inc.finalTaken
}

// listenerState is what ListenerContract tracks across one pass over the trace.
type listenerState struct {
	ix            *traceIndex
	events        []trace.Event
	tasks         map[string]*incarnation
	completedAt   map[uint64]int // checkpoint -> index of its checkpoint.complete
	abortedAt     map[uint64]int // checkpoint -> index of its checkpoint.abort
	savepoints    map[uint64]bool
	abortNotices  map[uint64][]int // checkpoint -> notify.abort events not yet known to be wrong
	effectiveTxns map[string]int   // transaction -> index of its first commit with effect
	completions   []int            // checkpoint.complete events of checkpoints, in order
	violations    []Violation
	failoverT     int64 // when the latest job.failover happened
	// lastRestore is, per task, the index of its last task.restore in the trace.
	lastRestore map[string]int
	// jobTasks are the tasks of the job after its last rescale so far; nil before one.
	jobTasks map[string]bool
}

// ListenerContract checks the listener contract of package protocol, per task incarnation
// (an incarnation starts at task.restore and ends at task.crash):
//
//   - notify.complete ids strictly increase, each greater than the id restored from, so each
//     arrives at most once; notify.abort names no checkpoint at or below either, which a
//     completion the incarnation knows of subsumes;
//   - notify.complete n only after checkpoint.complete n, never for an aborted id or a
//     savepoint;
//   - no notification reaches an incarnation that exited: after its task.finish, or after a
//     notification of the checkpoint of its final snapshot (the one a snapshot.carried names)
//     or a later one, which is when a finished task may exit; its operators are closed, and
//     a listener call to a closed operator is a bug (FLINK-16383);
//   - notify.abort never names a completed id (before or after it completed), and no
//     checkpoint both completes and aborts;
//   - a sink.commit of checkpoint n's transaction only after notify.complete m >= n in the
//     same incarnation, or in an incarnation restored from a checkpoint m >= n (which holds
//     the transaction);
//   - a transaction's commit takes effect once: a second commit of the same transaction that
//     reports records > 0 made them visible again;
//   - once faults stop (see Liveness for when that is), every live task ends notified of (or
//     restored from) the latest completed checkpoint whose notification deadline
//     (ref.Liveness.NotifyMaxNanos after its completion; zero: not checked) lies inside the
//     trace.
//
// Each violation is pinned to the notification or commit that broke the rule; a task never
// notified is named on the checkpoint.complete it missed.
func ListenerContract(events []trace.Event, ref Reference) Result {
	return listenerContract(newTraceIndex(events), ref)
}

func listenerContract(ix *traceIndex, ref Reference) Result {
	events := ix.events
	s := &listenerState{
		ix:            ix,
		events:        events,
		tasks:         make(map[string]*incarnation),
		completedAt:   make(map[uint64]int),
		abortedAt:     make(map[uint64]int),
		savepoints:    make(map[uint64]bool),
		abortNotices:  make(map[uint64][]int),
		effectiveTxns: make(map[string]int),
		lastRestore:   make(map[string]int),
	}
	for i := range ix.only(kindsOf(trace.KindTaskRestore)) {
		s.lastRestore[events[i].Task] = i
	}
	for i := range ix.only(listenerKinds) {
		s.step(i)
	}
	s.judgeEventualNotification(ref.Liveness.NotifyMaxNanos)
	s.violations = append(s.violations, pendingTransactions(ix, ref.Policy.MaxPendingTransactions)...)
	res := newResult(PropListenerContract, s.violations)
	if res.Verdict == VerdictPass && !ix.any(listenerCallKinds) {
		return unexercisedResult(PropListenerContract, "no notify.complete, notify.abort or sink.commit: no listener was called")
	}
	return res
}

// listenerCallKinds are what the contract judges: a notification delivered to a task, or a
// sink's commit.
var listenerCallKinds = kindsOf(trace.KindNotifyComplete, trace.KindNotifyAbort, trace.KindSinkCommit)

// listenerKinds are the kinds listenerState.step reacts to.
var listenerKinds = listenerCallKinds | kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete,
	trace.KindCoordinatorRecover, trace.KindCheckpointAbort, trace.KindTaskRestore, trace.KindTaskCrash,
	trace.KindTaskFinish, trace.KindSnapshotCarried, trace.KindSnapshotTaken, trace.KindSnapshotAck,
	trace.KindSnapshotDecline, trace.KindBarrierSend, trace.KindBarrierRecv, trace.KindSinkWrite, trace.KindSinkWrites,
	trace.KindJobFailover, trace.KindJobResubmit)

func (s *listenerState) flag(rule string, e *trace.Event, format string, args ...any) {
	v := violationAt(PropListenerContract, e, format, args...)
	v.Rule = rule
	s.violations = append(s.violations, v)
}

// task returns the current incarnation of a task, starting one for a task seen for the first
// time without a task.restore.
func (s *listenerState) task(id string) *incarnation {
	inc := s.tasks[id]
	if inc == nil {
		inc = &incarnation{alive: true}
		s.tasks[id] = inc
	}
	return inc
}

// failover replaces every task by an incarnation restored from the checkpoint the
// job.failover names, as the job restarts from it: so an engine that traces no task.restore
// for the restart is judged by what the failover says. A task whose task.restore comes later
// in the trace is left as it is: its old incarnation runs until that restore, and may still
// be told of a checkpoint it took part in (a recovered coordinator re-announces its latest
// completion, and may crash again before the restart reaches the tasks).
func (s *listenerState) failover(i int) {
	e := &s.events[i]
	s.failoverT = e.T
	for id, inc := range s.tasks {
		if s.lastRestore[id] > i {
			continue
		}
		// A task a rescale did away with is gone for good: not alive, owed nothing.
		gone := s.jobTasks != nil && !s.jobTasks[id]
		s.tasks[id] = &incarnation{alive: !gone, restored: e.CP, replaced: inc}
	}
}

// committer returns the incarnation a sink.commit belongs to. A commit is traced when the
// store answers, so one invoked (its start) before the failover belongs to the incarnation
// the failover replaced, even when the answer comes after.
func (s *listenerState) committer(e *trace.Event) *incarnation {
	inc := s.task(e.Task)
	if start, ok := intAttr(e, trace.AttrStart); ok && inc.replaced != nil && start < s.failoverT {
		return inc.replaced
	}
	return inc
}

func (s *listenerState) step(i int) {
	e := &s.events[i]
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		if isPlainSavepointTrigger(e) {
			s.savepoints[e.CP] = true
		}
	case trace.KindCheckpointComplete, trace.KindCoordinatorRecover:
		if _, ok := durablyCompletes(e); ok {
			s.checkpointComplete(i)
		}
	case trace.KindCheckpointAbort:
		if done, ok := s.completedAt[e.CP]; ok {
			s.flag(ruleNotifyAfterComplete, e, "checkpoint %d aborted after it completed (seq %d)", e.CP, s.events[done].Seq)
		}
		if _, seen := s.abortedAt[e.CP]; !seen {
			s.abortedAt[e.CP] = i
		}
	case trace.KindTaskRestore:
		s.tasks[e.Task] = &incarnation{alive: true, restored: e.CP}
	case trace.KindTaskCrash:
		s.task(e.Task).alive = false
	case trace.KindJobFailover:
		s.failover(i)
	case trace.KindJobResubmit:
		if tasks, ok := rescaleTasks(e); ok {
			s.jobTasks = tasks
		}
	case trace.KindTaskFinish:
		s.task(e.Task).finished = true
	case trace.KindSnapshotCarried:
		if taken, ok := intAttr(e, trace.AttrTaken); ok && taken > 0 {
			s.task(e.Task).finalTaken = uint64(taken)
		}
	case trace.KindNotifyComplete:
		s.notifyComplete(e)
	case trace.KindNotifyAbort:
		s.notifyAbort(e)
		if done, ok := s.completedAt[e.CP]; ok {
			s.flag(ruleNotifyAfterComplete, e, "abort notification for checkpoint %d, which completed (seq %d)", e.CP, s.events[done].Seq)
		} else {
			s.abortNotices[e.CP] = append(s.abortNotices[e.CP], i)
		}
	case trace.KindSinkCommit:
		s.sinkCommit(i)
	case trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindSnapshotDecline,
		trace.KindBarrierSend, trace.KindBarrierRecv, trace.KindSinkWrite, trace.KindSinkWrites:
		s.task(e.Task) // the task exists, so it counts as live until it crashes or finishes
	}
}

func (s *listenerState) checkpointComplete(i int) {
	e := &s.events[i]
	if _, seen := s.completedAt[e.CP]; seen {
		return
	}
	s.completedAt[e.CP] = i
	if aborted, ok := s.abortedAt[e.CP]; ok {
		s.flag(ruleNotifyAfterComplete, e, "checkpoint %d completed after it was aborted (seq %d)", e.CP, s.events[aborted].Seq)
	}
	for _, notice := range s.abortNotices[e.CP] {
		s.flag(ruleNotifyAfterComplete, &s.events[notice], "abort notification for checkpoint %d, which then completed (seq %d)", e.CP, e.Seq)
	}
	delete(s.abortNotices, e.CP)
	if !s.savepoints[e.CP] {
		s.completions = append(s.completions, i)
	}
}

// notifyAbort judges an abort notification against its incarnation: not after the task
// exited, and not of a checkpoint at or below a completion it was notified of or the one it
// was restored from, which that completion subsumes.
func (s *listenerState) notifyAbort(e *trace.Event) {
	inc := s.task(e.Task)
	if inc.alive && inc.exited() {
		s.flag(ruleNotifyNotAfterExit, e, "%s notified of checkpoint %d's abort after it exited (%s)", e.Task, e.CP, inc.exitWhy())
	}
	switch {
	case e.CP <= inc.restored:
		s.flag(ruleNotifyInOrder, e, "abort notification for checkpoint %d, but %s was restored from checkpoint %d", e.CP, e.Task, inc.restored)
	case e.CP <= inc.lastNotified:
		s.flag(ruleNotifyInOrder, e, "abort notification for checkpoint %d after a completion notification for checkpoint %d", e.CP, inc.lastNotified)
	}
}

func (s *listenerState) notifyComplete(e *trace.Event) {
	inc := s.task(e.Task)
	_, completed := s.completedAt[e.CP]
	_, aborted := s.abortedAt[e.CP]
	switch {
	case !inc.alive:
		s.flag(ruleNotifyNotAfterExit, e, "%s notified of checkpoint %d after its crash, before any restore", e.Task, e.CP)
	case inc.exited():
		s.flag(ruleNotifyNotAfterExit, e, "%s notified of checkpoint %d after it exited (%s)", e.Task, e.CP, inc.exitWhy())
	case s.savepoints[e.CP]:
		s.flag(ruleNotifyAfterComplete, e, "completion notification for savepoint %d", e.CP)
	case aborted:
		s.flag(ruleNotifyAfterComplete, e, "completion notification for aborted checkpoint %d", e.CP)
	case !completed:
		s.flag(ruleNotifyAfterComplete, e, "completion notification for checkpoint %d before its checkpoint.complete", e.CP)
	case e.CP <= inc.restored:
		s.flag(ruleNotifyInOrder, e, "completion notification for checkpoint %d, but %s was restored from checkpoint %d", e.CP, e.Task, inc.restored)
	case e.CP == inc.lastNotified:
		s.flag(ruleNotifyInOrder, e, "second completion notification for checkpoint %d in one incarnation", e.CP)
	case e.CP < inc.lastNotified:
		s.flag(ruleNotifyInOrder, e, "completion notification for checkpoint %d after one for checkpoint %d: out of order", e.CP, inc.lastNotified)
	}
	inc.lastNotified = max(inc.lastNotified, e.CP)
}

func (s *listenerState) sinkCommit(i int) {
	e := &s.events[i]
	inc := s.committer(e)
	if e.CP != 0 && inc.lastNotified < e.CP && inc.restored < e.CP {
		s.flag(ruleCommitAfterNotify, e, "commit of transaction %q of checkpoint %d before %s was notified of checkpoint %d or later",
			e.Txn, e.CP, e.Task, e.CP)
	}
	first, committed := s.effectiveTxns[e.Txn]
	records, hasRecords := intAttr(e, trace.AttrRecords)
	effective := (hasRecords && records > 0) || (!hasRecords && !committed)
	switch {
	case effective && committed:
		s.flag(ruleCommitAfterNotify, e, "transaction %q committed again with effect (%d records), first committed at seq %d",
			e.Txn, records, s.events[first].Seq)
	case effective:
		s.effectiveTxns[e.Txn] = i
	}
}

// judgeEventualNotification checks, once faults have stopped (livenessStart), that every
// live task knows the latest completed checkpoint whose notification deadline lies in the
// trace.
func (s *listenerState) judgeEventualNotification(notifyMaxNanos int64) {
	if notifyMaxNanos <= 0 || livenessStart(s.ix) < 0 || len(s.completions) == 0 {
		return
	}
	end := lastEvent(s.events).T
	target := -1
	for k := len(s.completions) - 1; k >= 0; k-- {
		if s.events[s.completions[k]].T+notifyMaxNanos <= end {
			target = s.completions[k]
			break
		}
	}
	if target < 0 {
		return
	}
	complete := &s.events[target]
	for id, inc := range s.tasks {
		if !inc.alive || inc.exited() {
			continue // a task that exited must not be notified any more, so it is owed nothing
		}
		if inc.lastNotified >= complete.CP || inc.restored >= complete.CP {
			continue
		}
		v := violationAt(PropListenerContract, complete,
			"after heal, %s was never notified of completed checkpoint %d (last notified %d, restored from %d)",
			id, complete.CP, inc.lastNotified, inc.restored)
		v.Task, v.Rule = id, ruleNotifyEventually
		s.violations = append(s.violations, v)
	}
}

func (inc *incarnation) exitWhy() string {
	if inc.finished {
		return "task.finish"
	}
	return fmt.Sprintf("notified of checkpoint %d, which covers its final snapshot of checkpoint %d", inc.lastNotified, inc.finalTaken)
}
