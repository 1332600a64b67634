package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// notifiedRun is a correct run of one sink task: checkpoints 1 and 2 complete and are
// notified, each transaction is committed after its notification, and after a crash the task
// restores from 2 and commits 2's transaction again (idempotently) on restore.
func notifiedRun() *tb {
	b := newTB()
	b.restore("sink", 0)
	b.trigger(1)
	b.complete(1)
	b.notify("sink", 1)
	b.commit("sink", 1, "t1", "records=1")
	b.trigger(2)
	b.complete(2)
	b.notify("sink", 2)
	b.crash("sink")
	b.restore("sink", 2)
	b.commit("sink", 2, "t2", "records=1")
	b.commit("sink", 2, "t2", "records=0")
	b.trigger(3)
	b.abort(3)
	b.notifyAbort("sink", 3)
	return b
}

func TestListenerContractPassesCorrectRun(t *testing.T) {
	wantPass(t, ListenerContract(notifiedRun().events, Reference{}))
}

func TestListenerContractFlagsNotificationBeforeCompletion(t *testing.T) {
	b := newTB()
	b.trigger(1)
	early := b.notify("sink", 1)
	b.complete(1)
	wantFirst(t, ListenerContract(b.events, Reference{}), early, "completion notification for checkpoint 1 before its checkpoint.complete")
}

func TestListenerContractFlagsNotificationForAbortedCheckpoint(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.abort(1)
	bad := b.notify("sink", 1)
	wantFirst(t, ListenerContract(b.events, Reference{}), bad, "completion notification for aborted checkpoint 1")
}

func TestListenerContractFlagsOutOfOrderAndRepeatedNotifications(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.complete(2)
	b.notify("sink", 2)
	late := b.notify("sink", 1)
	again := b.notify("sink", 2)
	res := ListenerContract(b.events, Reference{})
	wantFirst(t, res, late, "completion notification for checkpoint 1 after one for checkpoint 2: out of order")
	if len(res.Violations) != 2 || res.Violations[1].Seq != again {
		t.Fatalf("want the repeated notification flagged too:\n%s", res)
	}
}

func TestListenerContractFlagsNotificationNotAfterRestoredCheckpoint(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.complete(2)
	b.restore("sink", 2)
	bad := b.notify("sink", 2)
	wantFirst(t, ListenerContract(b.events, Reference{}), bad, "but sink was restored from checkpoint 2")
}

func TestListenerContractAllowsLowerNotificationInANewIncarnation(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.complete(2)
	b.notify("sink", 2)
	b.crash("sink")
	b.restore("sink", 0)
	b.notify("sink", 1)
	wantPass(t, ListenerContract(b.events, Reference{}))
}

func TestListenerContractFlagsNotificationForSavepoint(t *testing.T) {
	b := newTB()
	b.savepoint(1)
	b.complete(1)
	bad := b.notify("sink", 1)
	wantFirst(t, ListenerContract(b.events, Reference{}), bad, "completion notification for savepoint 1")
}

func TestListenerContractFlagsAbortNotificationOfCompletedCheckpoint(t *testing.T) {
	b := newTB()
	b.complete(1)
	after := b.notifyAbort("sink", 1)
	wantFirst(t, ListenerContract(b.events, Reference{}), after, "abort notification for checkpoint 1, which completed")

	c := newTB()
	before := c.notifyAbort("sink", 1)
	c.complete(1)
	wantFirst(t, ListenerContract(c.events, Reference{}), before, "abort notification for checkpoint 1, which then completed")
}

func TestListenerContractFlagsAbortNotificationBelowACompletion(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.abort(1)
	b.complete(2)
	b.notify("sink", 2)
	late := b.notifyAbort("sink", 1)
	wantFirst(t, ListenerContract(b.events, Reference{}), late, "abort notification for checkpoint 1 after a completion notification for checkpoint 2")

	c := newTB()
	c.trigger(1)
	c.abort(1)
	c.complete(2)
	c.restore("sink", 2)
	restored := c.notifyAbort("sink", 1)
	wantFirst(t, ListenerContract(c.events, Reference{}), restored, "abort notification for checkpoint 1, but sink was restored from checkpoint 2")

	d := newTB() // a task not yet told of 2 may still hear that 1 aborted
	d.trigger(1)
	d.abort(1)
	d.complete(2)
	d.notifyAbort("sink", 1)
	d.notify("sink", 2)
	wantPass(t, ListenerContract(d.events, Reference{}))
}

func TestListenerContractFlagsNotificationOfCrashedTask(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.crash("sink")
	bad := b.notify("sink", 1)
	wantFirst(t, ListenerContract(b.events, Reference{}), bad, "after its crash")
}

// TestListenerContractFlagsNotificationAfterExit: a task that finished has closed its
// operators; a completion or abort notification that still reaches it is FLINK-16383. A
// restore starts a new incarnation, which may be notified again.
func TestListenerContractFlagsNotificationAfterExit(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.notify("sink", 1)
	b.finish("sink")
	b.complete(2)
	late := b.notify("sink", 2)
	b.trigger(3)
	b.abort(3)
	lateAbort := b.notifyAbort("sink", 3)
	res := ListenerContract(b.events, Reference{})
	wantFirst(t, res, late, "sink notified of checkpoint 2 after it exited (task.finish)")
	if len(res.Violations) != 2 || res.Violations[1].Seq != lateAbort {
		t.Errorf("want the abort notification flagged too: %v", res.Violations)
	}

	// The protocol lets a finished task exit on the notification that covers its final
	// snapshot; its host may trace task.finish only after its last commits.
	d := newTB()
	d.snap("sink", 1)
	d.complete(1)
	d.carry("sink", 2, 1)
	d.complete(2)
	d.notify("sink", 1)
	carried := d.notify("sink", 2)
	d.finish("sink")
	wantFirst(t, ListenerContract(d.events, Reference{}), carried, "sink notified of checkpoint 2 after it exited (notified of checkpoint 1, which covers its final snapshot of checkpoint 1)")

	c := newTB()
	c.complete(1)
	c.finish("sink")
	c.crash("sink")
	c.restore("sink", 1)
	c.complete(2)
	c.notify("sink", 2)
	wantPass(t, ListenerContract(c.events, Reference{}))
}

func TestListenerContractFlagsCommitBeforeNotification(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.notify("sink", 1)
	b.complete(2)
	early := b.commit("sink", 2, "t2")
	b.notify("sink", 2)
	wantFirst(t, ListenerContract(b.events, Reference{}), early, `commit of transaction "t2" of checkpoint 2 before sink was notified`)
}

func TestListenerContractFlagsCommitThatTakesEffectTwice(t *testing.T) {
	b := newTB()
	b.complete(1)
	b.notify("sink", 1)
	b.commit("sink", 1, "t1", "records=3")
	again := b.commit("sink", 1, "t1", "records=3")
	wantFirst(t, ListenerContract(b.events, Reference{}), again, `transaction "t1" committed again with effect (3 records)`)
}

func TestListenerContractFlagsTaskNeverNotifiedAfterHeal(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{NotifyMaxNanos: 50}}
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.phase("fault")
	b.phase("heal")
	b.complete(1)
	b.notify("a", 1)
	b.notify("b", 1)
	missed := b.complete(2)
	b.notify("a", 2)
	for range 5 {
		b.add(trace.Event{Kind: "engine.tick"}) // time passes beyond the deadline
	}
	res := ListenerContract(b.events, ref)
	v := wantFirst(t, res, missed, "after heal, b was never notified of completed checkpoint 2")
	if v.Task != "b" || v.CP != 2 {
		t.Fatalf("violation should name task b and checkpoint 2: %s", v)
	}

	// Within the grace period, the missing notification is not yet a violation.
	wantPass(t, ListenerContract(b.events[:len(b.events)-5], ref))
}

// A task that exited on the notification covering its carried final snapshot must not be
// notified again, so it is owed no later notification either: the two rules never demand
// opposite things of one trace.
func TestListenerContractOwesAnExitedTaskNoNotification(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{NotifyMaxNanos: 50}}
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.phase("heal")
	b.snap("a", 1)
	b.complete(1)
	b.notify("a", 1)
	b.notify("b", 1)
	b.carry("a", 2, 1) // a took its final snapshot for 1, and has exited on its notification
	b.complete(2)
	b.notify("b", 2)
	for range 5 {
		b.add(trace.Event{Kind: "engine.tick"}) // time passes beyond the deadline
	}
	wantPass(t, ListenerContract(b.events, ref))
}

// A task restored from checkpoint n-1 knows n-1, not n: once n completes after the heal it
// must still be notified of n.
func TestListenerContractFlagsTaskRestoredFromThePreviousCheckpointNeverNotified(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{NotifyMaxNanos: 50}}
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.phase("fault")
	b.complete(1)
	b.notify("a", 1)
	b.crash("b")
	b.restore("b", 1)
	b.phase("heal")
	missed := b.complete(2)
	b.notify("a", 2)
	for range 5 {
		b.add(trace.Event{Kind: "engine.tick"}) // time passes beyond the deadline
	}
	v := wantFirst(t, ListenerContract(b.events, ref), missed,
		"after heal, b was never notified of completed checkpoint 2 (last notified 0, restored from 1)")
	if v.Task != "b" {
		t.Fatalf("violation should name task b: %s", v)
	}
}

// A run that called no listener gave the contract no occasion: unexercised, never a pass.
func TestListenerContractIsUnexercisedWithoutListenerCalls(t *testing.T) {
	b := newTB()
	b.restore("sink", 0)
	b.trigger(1)
	b.complete(1)
	res := ListenerContract(b.events, Reference{})
	if res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "no listener was called") {
		t.Fatalf("want unexercised, got %s", res)
	}
}

// A failover replaces every task by one restored from the checkpoint the job.failover names,
// whether or not the engine traces the task.restore: a recommit of that checkpoint's
// transaction is fine, a second notification of it is not, and a commit invoked before the
// failover belongs to the incarnation it replaced.
func TestListenerContractJudgesAnUntracedRestoreByItsFailover(t *testing.T) {
	prefix := func() *tb {
		b := newTB()
		b.restore("sink", 0)
		b.trigger(1)
		b.persist(1)
		b.complete(1)
		return b
	}
	recommit := prefix()
	recommit.failover(1, "task-failure")
	recommit.commit("sink", 1, "t1") // the restore from 1 recommits its transaction
	wantPass(t, ListenerContract(recommit.events, Reference{}))

	again := prefix()
	again.notify("sink", 1)
	again.failover(1, "task-failure")
	twice := again.notify("sink", 1)
	wantFirst(t, ListenerContract(again.events, Reference{}), twice, "completion notification for checkpoint 1, but sink was restored from checkpoint 1")

	inflight := prefix()
	inflight.notify("sink", 1)
	start := inflight.now()
	inflight.failover(0, "task-failure")
	inflight.commit("sink", 1, "t1", "start="+itoa(start))
	wantPass(t, ListenerContract(inflight.events, Reference{}))

	// After heal, a task the failover restored from 1 is not owed a notification of 1.
	healed := prefix()
	healed.restore("map", 0)
	healed.notify("map", 1)
	healed.failover(1, "task-failure")
	healed.phase("heal")
	healed.wait(1000)
	healed.trigger(2)
	wantPass(t, ListenerContract(healed.events, Reference{Liveness: LivenessBounds{NotifyMaxNanos: 100}}))
}

// A failover does not replace a task whose own task.restore comes later: until then its old
// incarnation runs, and a recovered coordinator's re-announcement of a checkpoint that task
// took part in is its first notification of it. The same after the restore is a repeat.
func TestListenerContractKeepsTheOldIncarnationUntilItsRestore(t *testing.T) {
	prefix := func() *tb {
		b := newTB()
		b.restore("sink", 0)
		b.trigger(1)
		b.persist(1)
		b.complete(1)
		b.failover(1, "coordinator-recovery")
		return b
	}
	before := prefix()
	before.notify("sink", 1)
	before.restore("sink", 1)
	wantPass(t, ListenerContract(before.events, Reference{}))

	after := prefix()
	after.restore("sink", 1)
	late := after.notify("sink", 1)
	wantFirst(t, ListenerContract(after.events, Reference{}), late, "but sink was restored from checkpoint 1")
}
