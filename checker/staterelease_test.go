package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// stateAck and stateRelease append the events state-release reads.
func (b *tb) stateAck(task string, cp uint64, pairs ...string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSnapshotAck, Task: task, CP: cp, Attrs: attrs(pairs...)})
}
func (b *tb) stateRelease(task string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindStateRelease, Task: task, CP: cp})
}

// checkpointOf appends a checkpoint that every task of tasks acks, and its completion.
func (b *tb) checkpointOf(cp uint64, tasks ...string) uint64 {
	b.trigger(cp)
	for _, task := range tasks {
		b.snap(task, cp)
		b.stateAck(task, cp)
	}
	return b.complete(cp)
}

func retaining(n int) Reference { return Reference{Policy: Policy{RetainedCheckpoints: n}} }

// TestStateKeptFlagsReleasingRetainedState: with one checkpoint retained, releasing the
// latest completed checkpoint's state is a violation; once a newer one completed, the
// release is what retention asks for.
func TestStateKeptFlagsReleasingRetainedState(t *testing.T) {
	b := newTB()
	b.restore("map-0", 0)
	b.checkpointOf(1, "map-0")
	bad := b.stateRelease("map-0", 1)
	v := wantFirst(t, StateRelease(b.events, retaining(1)), bad, "map-0's snapshot for 1 was released while checkpoint (one of the 1 retained) 1 holds it")
	wantRule(t, v, ruleStateKept)

	good := newTB()
	good.restore("map-0", 0)
	good.checkpointOf(1, "map-0")
	good.checkpointOf(2, "map-0")
	good.stateRelease("map-0", 1)
	wantPass(t, StateRelease(good.events, retaining(1)))
	// With two retained, checkpoint 1 is still held.
	if res := StateRelease(good.events, retaining(2)); res.Verdict != VerdictFail {
		t.Fatalf("two retained: want a violation, got:\n%s", res)
	}
}

// TestStateKeptHoldsSavepointsAcrossRecovery: a completed savepoint's state is never
// released, also after the coordinator crashed and recovered; a carried final snapshot is
// held by the checkpoint that carries it, and a checkpoint may not complete holding state
// released before.
func TestStateKeptHoldsSavepointsAcrossRecovery(t *testing.T) {
	b := newTB()
	b.restore("map-0", 0)
	b.checkpointOf(1, "map-0")
	b.savepoint(2)
	b.snap("map-0", 2)
	b.stateAck("map-0", 2)
	b.complete(2)
	b.checkpointOf(3, "map-0")
	b.coordCrash()
	b.recover(3)
	b.checkpointOf(4, "map-0")
	b.stateRelease("map-0", 1) // out of retention: fine
	bad := b.stateRelease("map-0", 2)
	v := wantFirst(t, StateRelease(b.events, retaining(1)), bad, "released while completed savepoint 2 holds it")
	wantRule(t, v, ruleStateKept)

	c := newTB()
	c.restore("src-0", 0)
	c.trigger(1)
	c.snap("src-0", 1)
	c.stateAck("src-0", 1)
	c.abort(1)
	c.stateRelease("src-0", 1)
	c.trigger(2)
	c.carry("src-0", 2, 1)
	late := c.complete(2)
	wantFirst(t, StateRelease(c.events, retaining(1)), late, "checkpoint 2 completed holding src-0's snapshot for 1, whose state was released at seq")
}

// leakyRun is a finished job that acks map-0's snapshot for 2 late, after checkpoint 2
// aborted, and releases it only if told to. Checkpoint 1 falls out of retention and is
// released; the final snapshot for 4, and the snapshot for 5, whose coordinator crashed
// with it pending, are not owed a release.
func leakyRun(release bool) *tb {
	b := newTB()
	b.restore("map-0", 0)
	b.checkpointOf(1, "map-0")
	b.trigger(2)
	b.snap("map-0", 2)
	b.abort(2)
	b.stateAck("map-0", 2) // late
	if release {
		b.stateRelease("map-0", 2)
	}
	b.checkpointOf(3, "map-0")
	b.stateRelease("map-0", 1)
	b.trigger(4)
	b.stateAck("map-0", 4, "final=true")
	b.abort(4)
	b.trigger(5)
	b.stateAck("map-0", 5)
	b.coordCrash()
	b.recover(3)
	b.finish("map-0")
	return b
}

// TestStateReleasedFlagsALeak: once the job finished, a late ack's state must have been
// released; the excuses are counted in the note.
func TestStateReleasedFlagsALeak(t *testing.T) {
	b := leakyRun(false)
	res := StateRelease(b.events, retaining(1))
	v := wantFirst(t, res, uint64(len(b.events)-1), "map-0's snapshot for 2, acked at seq")
	wantRule(t, v, ruleStateReleased)
	if v.Task != "map-0" || v.CP != 2 || len(res.Violations) != 1 {
		t.Fatalf("want one leak, of map-0's snapshot for 2, got:\n%s", res)
	}

	res = StateRelease(leakyRun(true).events, retaining(1))
	wantPass(t, res)
	for _, excuse := range []string{"1 final snapshots", "1 snapshots a coordinator crash orphaned"} {
		if !strings.Contains(res.Note, excuse) {
			t.Errorf("the note does not count %q: %s", excuse, res.Note)
		}
	}
}

// TestStateReleasedWaitsForTheEnd: before the job finished, what is not released yet is
// not judged, and the note says so.
func TestStateReleasedWaitsForTheEnd(t *testing.T) {
	b := leakyRun(false)
	b.events = b.events[:len(b.events)-1] // no task.finish
	res := StateRelease(b.events, retaining(1))
	if res.Verdict != VerdictPass || !strings.Contains(res.Note, "the job did not finish") {
		t.Fatalf("want pass, its note saying the job did not finish, got:\n%s", res)
	}
}

// TestStateReleaseWithoutEvidence: without the retained count, unknown; with acks nothing
// holds and no state.release at all, unknown, naming the first such ack; with neither acks
// nor releases, unexercised.
func TestStateReleaseWithoutEvidence(t *testing.T) {
	b := leakyRun(true)
	wantUnknown(t, StateRelease(b.events, Reference{}), "policy.retained_checkpoints")

	quiet := newTB()
	quiet.restore("map-0", 0)
	quiet.checkpointOf(1, "map-0")
	quiet.checkpointOf(2, "map-0")
	quiet.finish("map-0")
	wantUnknown(t, StateRelease(quiet.events, retaining(1)),
		"map-0's snapshot for 1 was acked at seq 3 and nothing holds it, but the trace has no state.release at all")
	// All of it still held: nothing to release, nothing judged.
	if res := StateRelease(quiet.events, retaining(2)); res.Verdict != VerdictUnexercised {
		t.Fatalf("nothing owed: want unexercised, got:\n%s", res)
	}
	none := newTB()
	none.restore("map-0", 0)
	none.finish("map-0")
	if res := StateRelease(none.events, retaining(1)); res.Verdict != VerdictUnexercised {
		t.Fatalf("no acks: want unexercised, got:\n%s", res)
	}
}

// TestStateReleasedExcusesAReleaseACrashTook: the state of a checkpoint that fell out of
// retention is owed a release, unless a coordinator crash came after that and took the
// release with it.
func TestStateReleasedExcusesAReleaseACrashTook(t *testing.T) {
	run := func(crash bool) []trace.Event {
		b := newTB()
		b.restore("map-0", 0)
		b.checkpointOf(1, "map-0")
		b.checkpointOf(2, "map-0")
		b.checkpointOf(3, "map-0")
		b.stateRelease("map-0", 1) // but not 2
		if crash {
			b.coordCrash()
			b.recover(3)
		}
		b.finish("map-0")
		return b.events
	}
	events := run(false)
	wantFirst(t, StateRelease(events, retaining(1)), uint64(len(events)-1), "map-0's snapshot for 2, acked at seq 7, was never released")
	res := StateRelease(run(true), retaining(1))
	if res.Verdict != VerdictPass || !strings.Contains(res.Note, "1 snapshots a coordinator crash orphaned") {
		t.Fatalf("want pass, the crash excusing the snapshot for 2, got:\n%s", res)
	}
}

// TestStateReleasedOwesAnAckAFailoverOvertook: an ack of a checkpoint that ended before a
// failover may reach the coordinator after the job attempt changed (generated seed 12882:
// checkpoint 110 completed while acks for 112 were on their way). The coordinator still
// hears it and discards its state, as Flink's discardSubtaskState does: it is owed a
// release whatever aborted the checkpoint, unless a fault could have lost it on its way.
func TestStateReleasedOwesAnAckAFailoverOvertook(t *testing.T) {
	run := func(reason string, partition bool) *tb {
		b := newTB()
		b.restore("map-0", 0)
		b.trigger(1)
		b.snap("map-0", 1)
		b.stateAck("map-0", 1)
		b.trigger(2)
		b.abortFor(2, reason)
		b.snap("map-0", 2)
		b.stateAck("map-0", 2)
		if partition {
			b.windowed("net.partition", "p")
			b.faultEnd("net.partition", "p")
		}
		b.complete(1)
		b.failover(1, "task-failure")
		b.restore("map-0", 1)
		b.checkpointOf(4, "map-0")
		b.stateRelease("map-0", 1)
		b.finish("map-0")
		return b
	}
	for _, reason := range []string{"failover", "expired"} {
		b := run(reason, false)
		wantRule(t, wantFirst(t, StateRelease(b.events, retaining(1)), uint64(len(b.events)-1), "map-0's snapshot for 2"), ruleStateReleased)
	}
	if res := StateRelease(run("expired", true).events, retaining(1)); res.Verdict == VerdictFail {
		t.Errorf("want the ack a partition may have lost excused, got:\n%s", res)
	}
}

// TestStateKeptAfterARecoveryOfAnUntracedCompletion: checkpoint 3's metadata write was in
// flight when the coordinator crashed, and the successor read back 4. If 3's write landed,
// the store retains 3 and 4, so releasing 2 keeps the rule; releasing 3 or 4 does not.
func TestStateKeptAfterARecoveryOfAnUntracedCompletion(t *testing.T) {
	run := func(released uint64) (*tb, uint64) {
		b := newTB()
		b.restore("map-0", 0)
		b.checkpointOf(2, "map-0")
		for _, cp := range []uint64{3, 4} {
			b.trigger(cp)
			b.snap("map-0", cp)
			b.stateAck("map-0", cp)
		}
		b.persist(4)
		b.persist(3)
		b.complete(4)
		b.coordCrash()
		b.recover(4)
		return b, b.stateRelease("map-0", released)
	}
	b, _ := run(2)
	if res := StateRelease(b.events, retaining(2)); res.Verdict == VerdictFail {
		t.Errorf("releasing 2 once 3 may have landed: %v", res)
	}
	b, bad := run(3)
	wantRule(t, wantFirst(t, StateRelease(b.events, retaining(2)), bad, "released while checkpoint (one of the 2 retained) 3 holds it"), ruleStateKept)

	// Had 3's write been lost, its state would be orphaned by the crash: once 3 falls out of
	// retention, the job owes no release of it.
	b, _ = run(2)
	b.checkpointOf(5, "map-0")
	b.checkpointOf(6, "map-0")
	b.stateRelease("map-0", 4)
	b.finish("map-0")
	if res := StateRelease(b.events, retaining(2)); res.Verdict == VerdictFail {
		t.Errorf("the state of a write in flight at the crash, never released: %v", res)
	}
}

// TestStateReleasedExcusesAnAckDelayedIntoALoss: map-0 acks an aborted checkpoint while a
// net.delay is in force; the delayed ack may meet a partition that begins after the
// checkpoint ended, and be lost there. Without the delay the ack was heard (it arrives
// within the reaction bound), and its state is owed a release.
func TestStateReleasedExcusesAnAckDelayedIntoALoss(t *testing.T) {
	run := func(delayed bool) *tb {
		b := newTB()
		b.restore("map-0", 0)
		if delayed {
			b.windowed("net.delay", "d")
		}
		b.trigger(1)
		b.snap("map-0", 1)
		b.stateAck("map-0", 1)
		b.abortFor(1, "upload-failed")
		if delayed {
			b.faultEnd("net.delay", "d")
		}
		b.windowed("net.partition", "p")
		b.faultEnd("net.partition", "p")
		b.checkpointOf(2, "map-0")
		b.checkpointOf(3, "map-0")
		b.stateRelease("map-0", 2)
		b.finish("map-0")
		return b
	}
	if res := StateRelease(run(true).events, retaining(1)); res.Verdict == VerdictFail || !strings.Contains(res.Note, "acks the coordinator may not have heard of") {
		t.Fatalf("want the delayed ack excused, got:\n%s", res)
	}
	b := run(false)
	heard := retaining(1)
	heard.Liveness.ReactionMaxNanos = 5 // the ack arrived before the partition began
	wantRule(t, wantFirst(t, StateRelease(b.events, heard), uint64(len(b.events)-1), "map-0's snapshot for 1"), ruleStateReleased)
	// Without the bound on its flight, the ack may still have been on its way then.
	if res := StateRelease(b.events, retaining(1)); res.Verdict == VerdictFail {
		t.Errorf("want the ack excused without a bound on its flight, got:\n%s", res)
	}
}

// TestStateReleasedExcusesAnAckWhileTheCoordinatorIsDown: an ack sent after a coordinator
// crash and before the next incarnation recovered may reach none (generated seeds 11249
// and six more once failovers stopped excusing acks); one sent after the recovery is heard.
func TestStateReleasedExcusesAnAckWhileTheCoordinatorIsDown(t *testing.T) {
	run := func(recoverFirst bool) Result {
		b := newTB()
		b.restore("map-0", 0)
		b.trigger(1)
		b.snap("map-0", 1)
		b.abortFor(1, "expired")
		b.coordCrash()
		if recoverFirst {
			b.add(trace.Event{Kind: trace.KindCoordinatorRecover, Task: "coordinator"})
		}
		b.stateAck("map-0", 1)
		if !recoverFirst {
			b.add(trace.Event{Kind: trace.KindCoordinatorRecover, Task: "coordinator"})
		}
		b.failover(0, "coordinator-recovery")
		b.restore("map-0", 0)
		b.checkpointOf(2, "map-0")
		b.checkpointOf(3, "map-0")
		b.stateRelease("map-0", 2)
		b.finish("map-0")
		ref := retaining(1)
		ref.Liveness.ReactionMaxNanos = 5
		return StateRelease(b.events, ref)
	}
	if res := run(false); res.Verdict == VerdictFail || !strings.Contains(res.Note, "a coordinator crash orphaned") {
		t.Errorf("want the ack sent while the coordinator was down excused, got:\n%s", res)
	}
	if res := run(true); res.Verdict != VerdictFail {
		t.Errorf("want the ack sent after the recovery owed a release, got:\n%s", res)
	}
}

// TestStateReleasedExcusesAnAckInFlightAsALossBegins: an ack of an aborted checkpoint sent
// just before a partition began may be lost in it while on its way, within the reaction
// bound that counts its delivery (generated seed 185918); one sent longer than the bound
// before the partition was heard, and its state is owed a release.
func TestStateReleasedExcusesAnAckInFlightAsALossBegins(t *testing.T) {
	run := func(gap int64) Result {
		b := newTB()
		b.restore("map-0", 0)
		b.trigger(1)
		b.snap("map-0", 1)
		b.abortFor(1, "upload-failed")
		sent := b.stateAck("map-0", 1)
		b.at(b.events[sent].T+gap).windowed("net.partition", "p")
		b.faultEnd("net.partition", "p")
		b.checkpointOf(2, "map-0")
		b.checkpointOf(3, "map-0")
		b.stateRelease("map-0", 2)
		b.finish("map-0")
		ref := retaining(1)
		ref.Liveness.ReactionMaxNanos = 50
		return StateRelease(b.events, ref)
	}
	if res := run(30); res.Verdict == VerdictFail || !strings.Contains(res.Note, "acks the coordinator may not have heard of") {
		t.Errorf("want the ack in flight excused, got:\n%s", res)
	}
	if res := run(80); res.Verdict != VerdictFail {
		t.Errorf("want the ack heard before the partition owed a release, got:\n%s", res)
	}
}

// TestStateReleasedWaitsOutAWriteThatMayHaveBeenLost: checkpoint 3's write was in flight at
// the crash and the successor read back 4. Counting 3 pushes 2 out of retention; had 3's
// write been lost, the store still retains 2, so the job ends owing no release of it. Two
// certain completions after 4 push 2 out whatever became of 3: then it is owed.
func TestStateReleasedWaitsOutAWriteThatMayHaveBeenLost(t *testing.T) {
	run := func(more ...uint64) *tb {
		b := newTB()
		b.restore("map-0", 0)
		b.checkpointOf(1, "map-0")
		b.checkpointOf(2, "map-0")
		for _, cp := range []uint64{3, 4} {
			b.trigger(cp)
			b.snap("map-0", cp)
			b.stateAck("map-0", cp)
		}
		b.persist(3)
		b.persist(4)
		b.complete(4)
		b.coordCrash()
		b.recover(4)
		b.stateRelease("map-0", 1) // out of retention whatever became of 3
		for _, cp := range more {
			b.checkpointOf(cp, "map-0")
			b.stateRelease("map-0", cp-2)
		}
		b.finish("map-0")
		return b
	}
	if res := StateRelease(run().events, retaining(2)); res.Verdict == VerdictFail {
		t.Errorf("2, still retained if 3's write was lost, taken for a leak: %v", res)
	}
	b := run(5, 6)
	wantRule(t, wantFirst(t, StateRelease(b.events, retaining(2)), uint64(len(b.events)-1), "map-0's snapshot for 2"), ruleStateReleased)
}

// TestStateKeptWhilePending: a task that drops its upload of a pending savepoint when a
// newer checkpoint completes releases state the savepoint needs; for a checkpoint the newer
// completion subsumes it, and a decline, an abort notice or a crash gives it up.
func TestStateKeptWhilePending(t *testing.T) {
	ref := retaining(1)
	pending := func(savepoint bool) *tb {
		b := newTB()
		b.restore("map-0", 0)
		b.checkpointOf(1, "map-0")
		if savepoint {
			b.savepoint(2)
		} else {
			b.trigger(2)
		}
		b.snap("map-0", 2)
		b.checkpointOf(3, "map-0")
		b.notify("map-0", 3)
		b.stateRelease("map-0", 1)
		return b
	}
	sp := pending(true)
	bad := sp.stateRelease("map-0", 2)
	v := wantFirst(t, StateRelease(sp.events, ref), bad, "map-0's snapshot for savepoint 2 was released while 2 was pending")
	wantRule(t, v, ruleStateKept)

	cp := pending(false)
	cp.stateRelease("map-0", 2) // subsumed by 3
	wantPass(t, StateRelease(cp.events, ref))

	declined := pending(true)
	declined.decline("map-0", 2)
	declined.stateRelease("map-0", 2)
	wantPass(t, StateRelease(declined.events, ref))

	crashed := pending(true)
	crashed.crash("map-0")
	crashed.restore("map-0", 3)
	crashed.stateRelease("map-0", 2) // the upload of an incarnation that is gone
	wantPass(t, StateRelease(crashed.events, ref))
}

// TestStateKeptWhilePendingSparesACarriedCheckpoint: a finished task's own snapshot for a
// checkpoint that carries its final snapshot instead is not needed, whatever order the
// final acks came in, and may be released while that checkpoint is pending.
func TestStateKeptWhilePendingSparesACarriedCheckpoint(t *testing.T) {
	b := newTB()
	b.restore("map-0", 0)
	b.checkpointOf(1, "map-0")
	b.trigger(2)
	b.trigger(3)
	b.snap("map-0", 2)
	b.snap("map-0", 3)
	b.stateAck("map-0", 3, "final=true")
	b.stateAck("map-0", 2, "final=true")
	b.carry("map-0", 3, 2)
	b.stateRelease("map-0", 3)
	if res := StateRelease(b.events, retaining(1)); res.Verdict == VerdictFail {
		t.Errorf("a snapshot its checkpoint carries the final one instead of: %s", res)
	}
}
