package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// pacingPolicy is a policy of interval, pause and max concurrent, in mode aligned.
func pacingPolicy(interval, pause int64, concurrent int) Reference {
	return Reference{Policy: Policy{IntervalNanos: Nanos(interval), MinPauseNanos: Nanos(pause), MaxConcurrent: concurrent, Mode: "aligned"}}
}

// at appends the next event at virtual time t (after the last one).
func (b *tb) at(t int64) *tb {
	if t <= b.t {
		panic("tb.at: time goes back")
	}
	b.t = t - 10
	return b
}

// periodic appends a periodic trigger of cp, decided at start.
func (b *tb) periodic(cp uint64, start int64) uint64 {
	return b.add(trace.PeriodicCheckpointTrigger(cp, start))
}

// wantRule fails the test unless res's first violation names rule.
func wantRule(t *testing.T, v Violation, rule string) {
	t.Helper()
	if v.Rule != rule {
		t.Fatalf("violation %s names rule %q, want %q", v, v.Rule, rule)
	}
}

// The hidden Flink-style bug: a periodic checkpoint triggered 4ms after a completion,
// although the pause is 100ms.
func TestTriggerPacingCatchesAnIgnoredPause(t *testing.T) {
	b := newTB()
	b.at(150_000_000).periodic(1, 150_000_000)
	b.at(350_000_000).complete(1)
	early := b.at(354_000_000).periodic(2, 354_000_000)
	v := wantFirst(t, TriggerPacing(b.events, pacingPolicy(200_000_000, 100_000_000, 1)), early,
		"periodic checkpoint 2 was decided 4000000ns after checkpoint 1 completed (seq 1): the minimum pause is 100000000ns")
	wantRule(t, v, "trigger.min-pause")
}

// What the pause does not hold back: a checkpoint asked for outside the schedule, a
// savepoint, a periodic one decided before a completion that came while it waited for its
// id, and anything after a coordinator crash, whose successor knows no completion.
func TestTriggerPacingKeepsThePause(t *testing.T) {
	b := newTB()
	b.at(200).periodic(1, 200)
	b.at(300).complete(1)
	b.trigger(2) // asked for outside the schedule
	b.complete(2)
	b.savepoint(3)
	b.complete(3)
	b.at(390).periodic(4, 390) // exactly the pause after checkpoint 2 (savepoints do not count)
	b.at(420).complete(4)      // completes while checkpoint 5 waits for its id
	b.at(430).periodic(5, 400)
	b.complete(5)
	b.at(500).coordCrash()
	b.at(600).periodic(6, 600)
	b.at(700).complete(6)
	b.at(704).periodic(7, 700) // decided at the instant 6 completed: which came first is unknown
	wantPass(t, TriggerPacing(b.events, pacingPolicy(100, 70, 2)))

	early := b.at(710).periodic(8, 701)
	v := wantFirst(t, TriggerPacing(b.events, pacingPolicy(100, 70, 2)), early, "decided 1ns after checkpoint 6 completed")
	wantRule(t, v, ruleMinPause)
}

func TestTriggerPacingCatchesTooManyPending(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.trigger(2)
	b.abortFor(1, "expired")
	b.savepoint(3) // aligned: forced through, and counted
	over := b.trigger(4)
	v := wantFirst(t, TriggerPacing(b.events, pacingPolicy(0, 0, 2)), over,
		"checkpoint 4 triggered while 2 were pending ([2 3]): max_concurrent is 2")
	wantRule(t, v, "trigger.max-concurrent")

	// Unaligned, a savepoint waits for a slot like a checkpoint.
	u := newTB()
	u.trigger(1)
	queued := u.savepoint(2)
	ref := pacingPolicy(0, 0, 1)
	ref.Policy.Mode = "unaligned"
	wantFirst(t, TriggerPacing(u.events, ref), queued, "checkpoint 2 triggered while 1 were pending ([1])")
}

// Completions, aborts, a failover and a coordinator crash free the slots; a savepoint that
// waits for one is stricter than Flink and fine too.
func TestTriggerPacingKeepsMaxConcurrent(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.savepoint(2) // forced through in mode aligned
	b.complete(1)
	b.complete(2)
	b.trigger(3)
	b.abortFor(3, "expired")
	b.trigger(4)
	b.failover(0, "task-failure")
	b.trigger(5)
	b.coordCrash()
	b.trigger(6)
	b.complete(6)
	b.savepoint(7)
	wantPass(t, TriggerPacing(b.events, pacingPolicy(0, 0, 1)))
}

// A coordinator triggering twice as often as its interval: the second trigger of the
// schedule comes half an interval after the first.
func TestTriggerPacingCatchesTooFrequentTriggers(t *testing.T) {
	b := newTB()
	b.at(60).periodic(1, 60)
	b.complete(1)
	b.at(110).periodic(2, 110)
	b.complete(2)
	fast := b.at(160).periodic(3, 160)
	v := wantFirst(t, TriggerPacing(b.events, pacingPolicy(100, 0, 1)), fast,
		"periodic checkpoint 3, the 3rd of the schedule started at t=0, was decided at t=160, before t=200")
	wantRule(t, v, "trigger.interval")

	none := newTB()
	p := none.periodic(1, 5)
	wantFirst(t, TriggerPacing(none.events, pacingPolicy(0, 0, 1)), p, "the job takes no periodic checkpoints (interval 0)")
}

// Flink may run a periodic request queued behind a long checkpoint late and the next one on
// time, so two triggers come closer than an interval; and a failover or a coordinator crash
// starts the schedule anew, after a delay of at least the pause.
func TestTriggerPacingKeepsTheInterval(t *testing.T) {
	b := newTB()
	b.at(150).periodic(1, 150) // the first after a delay in [pause, interval]
	b.at(420).complete(1)
	b.at(430).periodic(2, 430) // due at 350, queued behind checkpoint 1
	b.at(440).complete(2)
	b.at(450).periodic(3, 450) // due at 550: 20 after the one before
	b.at(460).complete(3)
	b.at(600).failover(3, "task-failure")
	b.at(610).periodic(4, 610) // the pause after the failover
	b.complete(4)
	b.at(900).coordCrash()
	b.at(1_000).periodic(5, 1_000)
	wantPass(t, TriggerPacing(b.events, pacingPolicy(200, 10, 1)))
}

// Without the settings a rule needs it judges nothing, and the verdict says so; a trace
// that marks no trigger periodic gives the pause and the interval nothing to judge.
func TestTriggerPacingWithoutItsEvidence(t *testing.T) {
	b := newTB()
	b.periodic(1, 5)
	b.complete(1)
	b.periodic(2, b.now())
	wantUnknown(t, TriggerPacing(b.events, Reference{}), "the reference gives no checkpoint policy (policy.interval_ns, policy.min_pause_ns, policy.max_concurrent, policy.mode)")
	noPause := pacingPolicy(100, 0, 1)
	noPause.Policy.MinPauseNanos = nil
	wantUnknown(t, TriggerPacing(b.events, noPause), "the reference gives no policy.min_pause_ns")
	// A rule that can be judged still fails without the others.
	two := newTB()
	two.trigger(1)
	two.trigger(2)
	if res := TriggerPacing(two.events, noPause); res.Verdict != VerdictFail || !strings.Contains(res.Note, "policy.min_pause_ns") {
		t.Fatalf("want a fail noting the missing pause, got:\n%s", res)
	}

	unmarked := newTB()
	unmarked.trigger(1)
	unmarked.complete(1)
	unmarked.trigger(2)
	res := TriggerPacing(unmarked.events, pacingPolicy(100, 1_000, 1))
	if res.Verdict != VerdictPass || !strings.Contains(res.Note, "no checkpoint.trigger says periodic=true") {
		t.Fatalf("want a pass that notes no periodic trigger, got:\n%s", res)
	}
	wantUnknown(t, TriggerPacing(withoutKind(b.events, trace.KindCheckpointTrigger), pacingPolicy(100, 0, 1)), "no checkpoint.trigger")
}

// A checkpoint outside the schedule answers a request or is the final one: checkpoint 2,
// which nobody asked for and which a task that still had input acked, breaks
// trigger.when-asked; 3 answers a trigger.checkpoint, and 4, whose acks are all final, is
// the job's final checkpoint.
func TestTriggerPacingCatchesAnUnaskedCheckpoint(t *testing.T) {
	b := newTB()
	b.at(200).periodic(1, 200)
	b.ack("sum-0", 1)
	b.complete(1)
	unasked := b.trigger(2)
	b.ack("sum-0", 2)
	b.complete(2)
	b.fault(faultTriggerCheckpoint)
	b.trigger(3)
	b.ack("sum-0", 3)
	b.complete(3)
	b.trigger(4)
	b.add(trace.SnapshotAck("sum-0", 4, true))
	b.complete(4)
	v := wantFirst(t, TriggerPacing(b.events, pacingPolicy(200, 0, 1)), unasked,
		"checkpoint 2 was triggered outside the schedule with no request, and not as the final checkpoint: sum-0 had not finished its input")
	wantRule(t, v, "trigger.when-asked")

	// Without any trigger marked periodic, an engine that does not mark its schedule's
	// triggers is not judged.
	c := newTB()
	c.trigger(1)
	c.ack("sum-0", 1)
	c.complete(1)
	wantPass(t, TriggerPacing(c.events, pacingPolicy(200, 0, 1)))
}
