package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// The bounded properties judge timing while no fault is in force; each test has a run that
// breaks the bound, one that keeps it, and one that a fault excuses.

func (b *tb) fault(kind string, pairs ...string) uint64 {
	return b.add(trace.Event{Kind: trace.KindFault, Fault: kind, Attrs: attrs(pairs...)})
}
func (b *tb) barrierSend(task, to string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindBarrierSend, Task: task, To: to, CP: cp})
}
func (b *tb) wait(ns int64) { b.t += ns }

func bounds(l LivenessBounds, p Policy) Reference { return Reference{Liveness: l, Policy: p} }

func TestRecoveryBound(t *testing.T) {
	ref := bounds(LivenessBounds{RecoveryMaxNanos: 1000}, Policy{})
	b := newTB()
	b.failover(0, "task-failure")
	b.restore("a", 0)
	b.wait(2000)
	late := b.trigger(1) // the first event past the deadline
	b.complete(1)
	wantFirst(t, RecoveryBound(b.events, ref), late, "no checkpoint completed within 1000ns of the failover at seq 0")

	ok := newTB()
	ok.failover(0, "task-failure")
	ok.trigger(1)
	ok.complete(1)
	ok.wait(5000)
	ok.trigger(2)
	wantPass(t, RecoveryBound(ok.events, ref))

	excused := newTB()
	excused.fault("net.partition", "id=1", "window_ns=500")
	excused.failover(0, "task-failure")
	excused.wait(2000)
	excused.trigger(1)
	if res := RecoveryBound(excused.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("a partition in force: %s", res)
	}
	wantUnknown(t, RecoveryBound(b.events, Reference{}), "no recovery bound")

	// A failover whose deadline the trace ends before is not judged, and the note says why.
	cut := newTB()
	cut.failover(0, "task-failure")
	cut.wait(500)
	cut.trigger(1)
	if res := RecoveryBound(cut.events, ref); res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "the trace ends before the deadline of the failover at seq 0") {
		t.Errorf("a failover the trace ends in: %s", res)
	}
}

func TestAlignmentTimeout(t *testing.T) {
	ref := bounds(LivenessBounds{SwitchMaxNanos: 100}, Policy{AlignmentTimeoutNanos: 500})
	b := newTB()
	b.barrierRecv("m", "s0", 1)
	b.wait(1000)
	late := b.barrierRecv("m", "s1", 1)
	b.barrierSend("m", "k", 1) // forwarded only once aligned: never switched
	wantFirst(t, AlignmentTimeout(b.events, ref), late, "m has not forwarded checkpoint 1's barrier")

	ok := newTB()
	ok.barrierRecv("m", "s0", 1)
	ok.wait(500)
	ok.barrierSend("m", "k", 1) // switched at the timeout
	ok.wait(1000)
	ok.barrierRecv("m", "s1", 1)
	ok.savepoint(2)
	ok.barrierRecv("m", "s0", 2) // savepoints always align
	ok.wait(1000)
	ok.barrierRecv("m", "s1", 2)
	ok.barrierSend("m", "k", 2)
	wantPass(t, AlignmentTimeout(ok.events, ref))

	wantUnknown(t, AlignmentTimeout(b.events, Reference{}), "no alignment timeout")

	// The same alignment, but the trace ends before its deadline: nothing can be judged, so
	// it is no pass.
	cut := newTB()
	cut.barrierSend("m", "k", 1) // m sends (the switch concerns senders only)
	cut.barrierRecv("m", "s0", 2)
	cut.wait(100)
	cut.barrierRecv("m", "s1", 2)
	if res := AlignmentTimeout(cut.events, ref); res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "deadline the trace does not reach") {
		t.Errorf("an alignment the trace ends in: %s", res)
	}
}

func TestAbortReach(t *testing.T) {
	ref := bounds(LivenessBounds{AbortReachMaxNanos: 1000}, Policy{})
	b := newTB()
	b.trigger(1)
	b.snap("s", 1)
	b.barrierRecv("k", "s", 1)
	b.abortFor(1, "expired")
	b.notifyAbort("s", 1)
	b.wait(2000)
	late := b.trigger(2)
	wantFirst(t, AbortReach(b.events, ref), late, "k, which took part in checkpoint 1, was not told of its abort")

	ok := newTB()
	ok.trigger(1)
	ok.snap("s", 1)
	ok.barrierRecv("k", "s", 1)
	ok.barrierRecv("c", "s", 1)
	ok.abortFor(1, "expired")
	ok.notifyAbort("s", 1)
	ok.crash("k")     // no longer owed
	ok.notify("c", 2) // a newer completion supersedes the abort
	ok.wait(2000)
	ok.trigger(3)
	wantPass(t, AbortReach(ok.events, ref))

	failover := newTB()
	failover.snap("s", 1)
	failover.abortFor(1, "failover") // its tasks are replaced: nothing owed
	failover.wait(2000)
	failover.trigger(2)
	if res := AbortReach(failover.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("an abort for a failover: %s", res)
	}

	// k is never told, but the trace ends before the deadline: not a pass.
	cut := newTB()
	cut.trigger(1)
	cut.snap("s", 1)
	cut.barrierRecv("k", "s", 1)
	cut.abortFor(1, "expired")
	cut.notifyAbort("s", 1)
	cut.wait(500)
	cut.trigger(2)
	if res := AbortReach(cut.events, ref); res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "deadline the trace does not reach") {
		t.Errorf("an abort the trace ends before the deadline of: %s", res)
	}
}

// Notices that never need to come: an abort that a newer completion made moot before it
// happened, and participation of an incarnation that is gone.
func TestAbortReachWaitsForNoMootNotice(t *testing.T) {
	ref := bounds(LivenessBounds{AbortReachMaxNanos: 1000}, Policy{})
	moot := newTB()
	moot.savepoint(1)
	moot.barrierRecv("k", "s", 1)
	moot.trigger(2)
	moot.complete(2)
	moot.notify("k", 2) // k knows 2 is complete: the abort of 1 is moot for it
	moot.abortFor(1, "expired")
	moot.wait(2000)
	moot.trigger(3)
	if res := AbortReach(moot.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("a moot abort: %s", res)
	}

	restored := newTB()
	restored.trigger(1)
	restored.barrierRecv("k", "s", 1)
	restored.crash("k")
	restored.restore("k", 0) // a new incarnation, which never took part in 1
	restored.abortFor(1, "expired")
	restored.wait(2000)
	restored.trigger(2)
	if res := AbortReach(restored.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("an abort of what an earlier incarnation took part in: %s", res)
	}

	// Told of an older completion only, the task still needs the notice.
	owed := newTB()
	owed.trigger(1)
	owed.complete(1)
	owed.notify("k", 1)
	owed.trigger(2)
	owed.barrierRecv("k", "s", 2)
	owed.abortFor(2, "expired")
	owed.wait(2000)
	late := owed.trigger(3)
	wantFirst(t, AbortReach(owed.events, ref), late, "k, which took part in checkpoint 2, was not told of its abort")
}

// A barrier that comes after its checkpoint aborted owes no switch: a task told of the
// abort drops it as stale, and nothing is ever forwarded.
func TestAlignmentTimeoutOwesNothingForAnEndedCheckpoint(t *testing.T) {
	ref := bounds(LivenessBounds{SwitchMaxNanos: 100}, Policy{AlignmentTimeoutNanos: 500})
	b := newTB()
	b.barrierSend("m", "k", 1) // m sends (the switch concerns senders only)
	b.abortFor(2, "expired")
	b.notifyAbort("m", 2)
	b.barrierRecv("m", "s0", 2) // stale
	b.wait(1000)
	b.trigger(3)
	if res := AlignmentTimeout(b.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("a barrier after its checkpoint's abort: %s", res)
	}
}

// A restarted job catching up may outlast a short timeout: each checkpoint that expires after
// the first extends the recovery deadline by its lifetime, up to the liveness bound.
func TestRecoveryBoundAllowsCheckpointsThatOutlastTheirTimeout(t *testing.T) {
	ref := bounds(LivenessBounds{RecoveryMaxNanos: 1000, CheckpointAfterHealNanos: 5000}, Policy{})
	catchUp := newTB()
	catchUp.failover(0, "task-failure")
	for cp := uint64(1); cp <= 3; cp++ {
		catchUp.trigger(cp)
		catchUp.wait(400)
		catchUp.abortFor(cp, "expired")
	}
	catchUp.trigger(4)
	catchUp.complete(4) // at 1200ns: one expiry is in the bound, the next two extend it
	catchUp.wait(6000)
	catchUp.trigger(5)
	wantPass(t, RecoveryBound(catchUp.events, ref))

	stuck := newTB()
	stuck.failover(0, "task-failure")
	for cp := uint64(1); cp <= 20; cp++ {
		stuck.trigger(cp)
		stuck.wait(400)
		stuck.abortFor(cp, "expired")
	}
	res := RecoveryBound(stuck.events, ref)
	if res.Verdict != VerdictFail || !strings.Contains(res.Violations[0].Message, "no checkpoint completed within 5000ns") {
		t.Errorf("a restart whose checkpoints keep expiring: %s", res)
	}
}

// A job.failover replaces every task: what an incarnation took part in before it is owed
// nothing by the tasks that replace it, restore traced or not.
func TestAbortReachOwesNothingAcrossAFailover(t *testing.T) {
	ref := bounds(LivenessBounds{AbortReachMaxNanos: 1000}, Policy{})
	b := newTB()
	b.trigger(1)
	b.barrierRecv("k", "s", 1)
	b.failover(0, "task-failure")
	b.abortFor(1, "persist-failed") // its metadata write was in flight at the failover
	b.wait(2000)
	b.trigger(2)
	if res := AbortReach(b.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("an abort after the failover that replaced its participants: %s", res)
	}
}

// TestFaultSpansLastTheirDelay: a restart.delay that ended just before a failover still holds
// the restart it delayed for its delay_ns, so the late recovery is excused; once the delay
// has passed too, it is judged.
func TestFaultSpansLastTheirDelay(t *testing.T) {
	ref := bounds(LivenessBounds{RecoveryMaxNanos: 1000}, Policy{})
	run := func(delay string) []trace.Event {
		b := newTB()
		b.fault("restart.delay", "id=1", "window_ns=10", "delay_ns="+delay)
		b.wait(10)
		b.fault("restart.delay", "id=1", "window_ns=10", "delay_ns="+delay, "end=true")
		b.wait(5)
		b.failover(0, "task-failure")
		b.wait(2000)
		b.trigger(1)
		b.complete(1)
		return b.events
	}
	if res := RecoveryBound(run("5000"), ref); res.Verdict == VerdictFail {
		t.Errorf("a recovery held up by a restart delay still running: %s", res)
	}
	if res := RecoveryBound(run("1"), ref); res.Verdict != VerdictFail {
		t.Errorf("a recovery late after the delay had passed: %s", res)
	}
}

// A notice a fault may have lost is owed once the faults stop: the coordinator re-sends it.
// Judged from the first stretch of the bound without a fault, unless a newer abort came
// first (the coordinator keeps only its newest) or the fault never ends.
func TestAbortReachAfterAFault(t *testing.T) {
	ref := bounds(LivenessBounds{AbortReachMaxNanos: 1000}, Policy{})
	during := func(aborts ...uint64) *tb {
		b := newTB()
		b.fault("net.drop", "id=1", "window_ns=3000")
		for _, cp := range aborts {
			b.trigger(cp)
			b.barrierRecv("k", "s", cp)
			b.abortFor(cp, "expired")
		}
		b.wait(3000)
		b.fault("net.drop", "id=1", "window_ns=3000", "end=true")
		return b
	}
	lost := during(1)
	lost.wait(2000)
	late := lost.trigger(2)
	wantFirst(t, AbortReach(lost.events, ref), late, "k, which took part in checkpoint 1, was not told of its abort")

	resent := during(1)
	resent.wait(500)
	resent.notifyAbort("k", 1)
	resent.wait(2000)
	resent.trigger(2)
	wantPass(t, AbortReach(resent.events, ref))

	newer := during(1, 2)
	newer.wait(500)
	newer.notifyAbort("k", 2)
	newer.wait(2000)
	newer.trigger(3)
	if res := AbortReach(newer.events, ref); res.Verdict != VerdictPass || !strings.Contains(res.Note, "1 abort(s) with a fault in force") {
		t.Errorf("an abort a newer one followed before the faults stopped: %s", res)
	}

	endless := newTB()
	endless.fault("net.drop", "id=1", "window_ns=3000")
	endless.trigger(1)
	endless.barrierRecv("k", "s", 1)
	endless.abortFor(1, "expired")
	endless.wait(5000)
	endless.trigger(2)
	if res := AbortReach(endless.events, ref); res.Verdict != VerdictUnexercised {
		t.Errorf("an abort in a fault that never ends: %s", res)
	}
}
