package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// The failover and finish rules, each with the bug it exists for (FLINK-13969: a trigger
// racing a failover; a checkpoint left pending across one; a trigger of a finished job).

func TestNoTriggerInFailover(t *testing.T) {
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.trigger(1)
	b.complete(1)
	b.failover(1, "task-failure")
	b.restore("a", 1)
	early := b.trigger(2) // b still restoring
	b.restore("b", 1)
	b.trigger(3)
	wantFirst(t, NoTriggerInFailover(b.events), early, "checkpoint 2 triggered during the failover of seq 4, before [b] restored")

	ok := newTB()
	ok.restore("a", 0)
	ok.failover(0, "task-failure")
	ok.coordCrash() // ends the failover: the next incarnation fails over anew
	ok.trigger(1)
	ok.failover(0, "coordinator-recovery")
	ok.restore("a", 0)
	ok.trigger(2)
	wantPass(t, NoTriggerInFailover(ok.events))

	none := newTB()
	none.trigger(1)
	if res := NoTriggerInFailover(none.events); res.Verdict != VerdictUnexercised {
		t.Errorf("no failover: %s", res)
	}
	blind := newTB()
	blind.failover(0, "task-failure")
	blind.trigger(1)
	wantUnknown(t, NoTriggerInFailover(blind.events), "nothing tells when a failover ends")
}

func TestNoPendingAcrossFailover(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.complete(1)
	b.trigger(2)
	b.trigger(3)
	b.abortFor(3, "failover")
	at := b.failover(1, "task-failure")
	wantFirst(t, NoPendingAcrossFailover(b.events), at, "checkpoint 2, triggered at seq 2, neither completed nor aborted")

	ok := newTB()
	ok.trigger(1)
	ok.coordCrash() // drops what its incarnation had pending
	ok.recover(0)
	ok.failover(0, "coordinator-recovery")
	wantPass(t, NoPendingAcrossFailover(ok.events))
}

func TestNoTriggerAfterFinish(t *testing.T) {
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.trigger(1)
	b.finish("a")
	b.trigger(2) // b still runs: the final checkpoint
	b.complete(2)
	b.finish("b")
	late := b.trigger(3)
	wantFirst(t, NoTriggerAfterFinish(b.events), late, "checkpoint 3 triggered after the job finished")

	again := newTB()
	again.restore("a", 0)
	again.finish("a")
	again.restore("a", 0) // the finished job failed over: it runs again
	again.trigger(1)
	wantPass(t, NoTriggerAfterFinish(again.events))

	running := newTB()
	running.restore("a", 0)
	running.trigger(1)
	if res := NoTriggerAfterFinish(running.events); res.Verdict != VerdictUnexercised {
		t.Errorf("a job that never finished: %s", res)
	}

	// An engine that traces no fresh start: a source that finishes first is not the whole
	// job, since the trace shows the sink at work.
	quiet := newTB()
	quiet.trigger(1)
	quiet.snap("src", 1)
	quiet.finish("src")
	quiet.barrierRecv("sink", "src", 1)
	quiet.trigger(2)
	if res := NoTriggerAfterFinish(quiet.events); res.Verdict != VerdictUnexercised {
		t.Errorf("a source finished while the sink runs: %s", res)
	}
}

// Without a checkpoint.trigger in the trace the three rules about triggers cannot fail, so
// they never pass: unknown when checkpoints ended all the same (their triggers were not
// traced), unexercised when the job triggered none.
func TestTriggerRulesWithoutTriggers(t *testing.T) {
	untraced := newTB()
	untraced.restore("a", 0)
	untraced.snap("a", 1)
	untraced.persist(1)
	untraced.complete(1)
	untraced.failover(1, "task-failure")
	untraced.restore("a", 1)
	untraced.finish("a")
	none := newTB()
	none.restore("a", 0)
	none.failover(0, "task-failure")
	none.restore("a", 0)
	none.finish("a")
	for _, check := range []func([]trace.Event) Result{NoTriggerInFailover, NoPendingAcrossFailover, NoTriggerAfterFinish} {
		wantUnknown(t, check(untraced.events), "no checkpoint.trigger")
		if res := check(none.events); res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "no checkpoint triggered") {
			t.Errorf("a job that triggered no checkpoint: %s", res)
		}
	}
}

// A task that acts again after a failover without a traced task.restore restored unseen:
// a trigger before it is not judged, while one before a restore traced later still fails.
func TestNoTriggerInFailoverDoesNotJudgeAnUntracedRestore(t *testing.T) {
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.failover(0, "task-failure")
	b.restore("a", 0)
	b.trigger(1)
	b.barrierRecv("b", "a", 1) // b is back, its restore untraced
	wantUnknown(t, NoTriggerInFailover(b.events), "before [b] acted again after the failover")

	late := newTB()
	late.restore("a", 0)
	late.restore("b", 0)
	late.failover(0, "task-failure")
	late.restore("a", 0)
	early := late.trigger(1)
	late.restore("b", 0)
	wantFirst(t, NoTriggerInFailover(late.events), early, "before [b] restored")

	// A commit the replaced sink invoked before the failover, answered after it, is not the
	// new incarnation at work: the restore traced later makes the trigger early.
	answered := newTB()
	answered.restore("sink", 0)
	start := answered.now()
	answered.failover(0, "task-failure")
	tooSoon := answered.trigger(1)
	answered.commit("sink", 1, "t1", "start="+itoa(start))
	answered.restore("sink", 0)
	wantFirst(t, NoTriggerInFailover(answered.events), tooSoon, "before [sink] restored")
}

// TestNoTriggerAfterTheFinalCheckpoint: a checkpoint that completes holding every task's
// final snapshot finishes the job before any task traces task.finish, so a savepoint that
// was queued behind it must not be triggered; a savepoint holding them finishes nothing.
func TestNoTriggerAfterTheFinalCheckpoint(t *testing.T) {
	finalAcks := func(b *tb, cp uint64) {
		for _, task := range []string{"a", "b"} {
			b.add(trace.Event{Kind: trace.KindSnapshotAck, Task: task, CP: cp, Attrs: attrs("final=true")})
		}
	}
	b := newTB()
	b.restore("a", 0)
	b.restore("b", 0)
	b.trigger(1)
	finalAcks(b, 1)
	done := b.complete(1)
	late := b.savepoint(2)
	wantFirst(t, NoTriggerAfterFinish(b.events), late,
		"checkpoint 2 triggered after the job finished (checkpoint 1 completed at seq "+itoa(int64(done))+" with every task's final snapshot)")

	sp := newTB()
	sp.restore("a", 0)
	sp.restore("b", 0)
	sp.savepoint(1)
	finalAcks(sp, 1)
	sp.complete(1)
	sp.trigger(2) // the final checkpoint: a savepoint finishes no task
	if res := NoTriggerAfterFinish(sp.events); res.Verdict == VerdictFail {
		t.Errorf("a trigger after a savepoint of final snapshots: %s", res)
	}
}
