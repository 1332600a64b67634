package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// tick lets virtual time pass without anything the checkers read.
func (b *tb) tick(n int) uint64 {
	var last uint64
	for range n {
		last = b.add(trace.Event{Kind: "engine.tick"})
	}
	return last
}

func TestLivenessPassesWhenACheckpointCompletesAfterHeal(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{CheckpointAfterHealNanos: 30}}
	b := newTB()
	b.phase("fault")
	b.phase("heal")
	b.trigger(1)
	b.complete(1) // 20ns after heal
	b.tick(5)
	wantPass(t, Liveness(b.events, ref))
}

func TestLivenessFlagsNoCheckpointAfterHeal(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{CheckpointAfterHealNanos: 30}}
	b := newTB()
	b.phase("fault")
	b.phase("heal")
	b.trigger(1)
	b.abort(1)
	b.tick(1)         // 30ns after heal: the deadline itself
	past := b.tick(1) // the first event past it
	b.tick(3)
	v := wantFirst(t, Liveness(b.events, ref), past, "no checkpoint completed within 30ns after heal at t=20")
	if v.Task != "" || v.CP != 0 {
		t.Fatalf("an absence names no task or checkpoint: %s", v)
	}
}

func TestLivenessIsUnknownWhenTheTraceEndsBeforeTheDeadline(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{CheckpointAfterHealNanos: 1000}}
	b := newTB()
	b.phase("heal")
	b.tick(3)
	res := Liveness(b.events, ref)
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "before the checkpoint deadline") {
		t.Fatalf("want unknown, got:\n%s", res)
	}
}

func TestLivenessDoesNotJudgeAFaultPhaseThatNeverHealed(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{CheckpointAfterHealNanos: 10}}
	b := newTB()
	b.phase("fault")
	b.tick(10)
	wantUnknown(t, Liveness(b.events, ref), "never healed")
}

func TestLivenessIsUnknownWithoutBounds(t *testing.T) {
	b := newTB()
	b.phase("liveness")
	b.trigger(1)
	b.complete(1)
	wantUnknown(t, Liveness(b.events, Reference{}), "no liveness bound")
}

func TestLivenessRequiresBoundedJobToFinishWithAllOutputCommitted(t *testing.T) {
	ref := Reference{
		Output:   twoRecords.Output,
		Liveness: LivenessBounds{FinishTasks: []string{"src", "sink"}},
	}
	b := newTB()
	b.restore("src", 0)
	b.restore("sink", 0)
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.complete(1)
	b.commit("sink", 1, "t1")
	b.finish("src")
	b.finish("sink")
	wantPass(t, Liveness(b.events, ref))

	c := newTB()
	c.restore("src", 0)
	c.restore("sink", 0)
	c.write("sink", "t1", "r1")
	c.finish("src")
	c.crash("sink")
	end := c.restore("sink", 0)
	res := Liveness(c.events, ref)
	wantFirst(t, res, end, "the trace ends with 2 expected records of the bounded job uncommitted (r1, r2)")
	if len(res.Violations) != 2 || !strings.Contains(res.Violations[1].Message, "sink did not finish (its last lifecycle event is task.restore at seq 5)") {
		t.Fatalf("want the unfinished sink flagged too:\n%s", res)
	}
}

func TestLivenessFlagsTaskBlockedInAlignment(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{AlignmentMaxNanos: 25}}
	b := newTB()
	b.phase("heal")
	b.barrierRecv("join", "left", 1)
	b.snap("join", 1) // aligned in time
	b.barrierRecv("join", "left", 2)
	b.tick(2)         // 20ns: still within the bound
	past := b.tick(1) // 30ns: past it, and the right barrier never came
	b.tick(2)
	v := wantFirst(t, Liveness(b.events, ref), past, "join blocked in alignment for checkpoint 2 for more than 25ns (first barrier at seq 3)")
	if v.Task != "join" || v.CP != 2 {
		t.Fatalf("violation should name the blocked task and checkpoint: %s", v)
	}
}

// A barrier that reaches a task after its own snapshot of that checkpoint (a Chandy-Lamport
// initiator hears the others' markers after it snapshotted) starts no alignment.
func TestLivenessIgnoresBarriersAfterTheTasksOwnSnapshot(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{AlignmentMaxNanos: 25}}
	b := newTB()
	b.phase("heal")
	b.snap("init", 1)
	b.barrierRecv("init", "peer", 1)
	b.tick(5) // 50ns, past the bound, and no further snapshot of init
	b.barrierRecv("peer", "init", 2)
	b.snap("peer", 2) // aligned in time: judged
	if res := Liveness(b.events, ref); res.Verdict != VerdictPass {
		t.Fatalf("a marker after the task's own snapshot: %s", res)
	}
}

func TestLivenessExemptsAlignmentOfAbortedCheckpoint(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{AlignmentMaxNanos: 25}}
	b := newTB()
	b.phase("heal")
	b.barrierRecv("join", "left", 2)
	b.tick(5)
	b.abort(2) // released by the coordinator's timeout
	b.tick(2)
	// The aborted checkpoint's alignment is exempt, and nothing else was judged.
	if res := Liveness(b.events, ref); res.Verdict != VerdictUnexercised || len(res.Violations) > 0 {
		t.Fatalf("only an exempt alignment: %s", res)
	}
	b.barrierRecv("join", "left", 3)
	b.snap("join", 3) // aligned in time: judged
	b.tick(2)
	wantPass(t, Liveness(b.events, ref))
}

func TestLivenessMeasuresFromTheLivenessPhase(t *testing.T) {
	// heal gives restarts time; the bound runs from the liveness phase, up to its end.
	ref := Reference{Liveness: LivenessBounds{CheckpointAfterHealNanos: 30}}
	b := newTB()
	b.phase("fault")
	b.phase("heal")
	b.tick(5)
	b.phase("liveness") // t=80
	b.trigger(1)
	b.tick(1)
	end := b.phase("end") // t=110: the bound has run out
	wantFirst(t, Liveness(b.events, ref), end, "no checkpoint completed within 30ns after liveness at t=80")
}

func TestLivenessStartsAtTheFirstEventOfATraceWithoutPhases(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{CheckpointAfterHealNanos: 20}}
	b := newTB()
	b.trigger(1)
	b.tick(2) // up to the deadline
	past := b.tick(1)
	wantFirst(t, Liveness(b.events, ref), past, "no checkpoint completed within 20ns after the first event at t=10")
}
