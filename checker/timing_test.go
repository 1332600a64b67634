package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// timingRef is a reference with a checkpoint timeout and a reaction bound.
func timingRef(timeout, reaction int64) Reference {
	return Reference{Policy: Policy{TimeoutNanos: timeout}, Liveness: LivenessBounds{ReactionMaxNanos: reaction}}
}

func (b *tb) declineFor(task string, cp uint64, reason string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSnapshotDecline, Task: task, CP: cp, Reason: reason})
}
func (b *tb) ack(task string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindSnapshotAck, Task: task, CP: cp})
}

// skew appends a windowed fault with id, in force until skewEnd of the same id.
func (b *tb) skew(id string) uint64 { return b.fault("clock.skew", "id="+id, "window_ns=1000") }
func (b *tb) skewEnd(id string) uint64 {
	return b.fault("clock.skew", "id="+id, "window_ns=1000", "end=true")
}

func TestCheckpointTimingCatchesAnEarlyExpiry(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	early := b.at(150).abort(1) // reason expired
	v := wantFirst(t, CheckpointTiming(b.events, timingRef(100, 20)), early,
		"checkpoint 1 expired 50ns after its trigger (seq 0), before its timeout of 100ns")
	wantRule(t, v, "checkpoint.expires-at-timeout")

	// A checkpoint never triggered has no timeout running: a reservation never expires.
	r := newTB()
	reserved := r.abort(2)
	wantFirst(t, CheckpointTiming(r.events, timingRef(100, 20)), reserved, "checkpoint 2 expired, but the running coordinator incarnation never triggered it")
}

// A checkpoint left pending past its timeout: the coordinator missed its deadline and only
// noticed at a later tick.
func TestCheckpointTimingCatchesALateExpiry(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	b.at(150).snap("sum-0", 1)
	overdue := b.at(250).snap("sum-1", 1)
	b.at(300).abort(1)
	v := wantFirst(t, CheckpointTiming(b.events, timingRef(100, 20)), overdue,
		"checkpoint 1, triggered at seq 0, was still pending 20ns after its timeout at t=200 (aborted at seq 3, expired)")
	wantRule(t, v, "checkpoint.expires-at-timeout")
}

// What the timeout allows: an expiry at the deadline, a completion before it, a metadata
// write in flight at the deadline (it never expires), a coordinator crash that drops the
// checkpoint in time, and a late expiry while a fault holds the coordinator up.
func TestCheckpointTimingKeepsTheTimeout(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	b.at(200).abort(1) // at the deadline
	b.at(210).trigger(2)
	b.at(300).complete(2)
	b.at(310).trigger(3)
	b.at(400).persist(3) // at its deadline, before the tick
	b.at(600).complete(3)
	b.at(610).trigger(4)
	b.at(720).coordCrash()
	b.at(800).trigger(5)
	b.at(850).skew("1")
	b.at(990).abort(5) // 90 late, with a clock skew in force
	b.skewEnd("1")
	wantPass(t, CheckpointTiming(b.events, timingRef(100, 20)))
}

// The hidden bug: the coordinator ignored a task's refusal and left the checkpoint to expire.
func TestCheckpointTimingCatchesAnIgnoredDecline(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	b.at(120).declineFor("sum-0", 1, "newer-barrier")
	expiry := b.at(200).abort(1)
	v := wantFirst(t, CheckpointTiming(b.events, timingRef(100, 20)), expiry,
		"checkpoint 1, which sum-0 declined at seq 1 (newer-barrier), was still pending 20ns later (aborted at seq 2, expired)")
	wantRule(t, v, "checkpoint.decline-aborts")

	completed := newTB()
	completed.trigger(1)
	completed.declineFor("sum-0", 1, "upload-failed")
	done := completed.complete(1)
	wantFirst(t, CheckpointTiming(completed.events, timingRef(100, 20)), done,
		"checkpoint 1 completed, though sum-0 declined it at seq 1 (upload-failed) and never acknowledged it")

	misreported := newTB()
	misreported.trigger(1)
	misreported.declineFor("sum-0", 1, "newer-barrier")
	wrong := misreported.abortFor(1, "channel-state-overflow")
	wantFirst(t, CheckpointTiming(misreported.events, timingRef(100, 20)), wrong,
		"checkpoint 1 was aborted for channel-state-overflow after sum-0 declined it at seq 1, a reason no decline of it gave")
}

// What a decline allows: an abort for its reason in time; a cause of the coordinator's own
// that came first; nothing at all from a decline the coordinator rightly ignores (a task
// that acknowledged, a checkpoint no longer pending, a task whose final snapshot stands in,
// or that finished meanwhile); and anything while a fault may have lost the decline.
func TestCheckpointTimingKeepsDeclines(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	b.declineFor("sum-0", 1, "newer-barrier")
	b.abortFor(1, "newer-barrier")
	b.declineFor("sum-0", 1, "newer-barrier") // no longer pending
	b.trigger(2)
	b.declineFor("sum-1", 2, "upload-failed")
	b.abortFor(2, "subsumed") // a newer completion came first
	b.trigger(3)
	b.ack("sum-0", 3)
	b.declineFor("sum-0", 3, "newer-barrier") // a stale duplicate after the ack
	b.declineFor("src-0", 3, "newer-barrier") // carried: its final snapshot stands in
	b.carry("src-0", 3, 1)
	b.complete(3)
	b.at(400).trigger(4)
	b.declineFor("sum-1", 4, "too-many-pending")
	b.finish("sum-1") // finished: its final snapshot may stand in
	b.at(500).abort(4)
	b.at(600).trigger(5)
	b.skew("1")
	b.declineFor("sum-0", 5, "newer-barrier") // may be lost
	b.skewEnd("1")
	b.at(700).abort(5)
	wantPass(t, CheckpointTiming(b.events, timingRef(100, 20)))
}

// Without the timeout the expiry is not judged, without the reaction bound neither the
// late end nor the decline; the verdict says what was missing, and a trace with nothing to
// judge is unexercised.
func TestCheckpointTimingWithoutItsEvidence(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	b.at(200).abort(1)
	wantUnknown(t, CheckpointTiming(b.events, Reference{}), "the reference gives no policy.timeout_ns nor liveness.reaction_max_ns")
	wantUnknown(t, CheckpointTiming(b.events, timingRef(100, 0)), "the reference gives no liveness.reaction_max_ns")
	if res := CheckpointTiming(b.events, timingRef(150, 0)); res.Verdict != VerdictFail || !strings.Contains(res.Note, "liveness.reaction_max_ns") {
		t.Fatalf("an early expiry fails without the reaction bound too, noting it; got:\n%s", res)
	}
	quiet := newTB()
	quiet.trigger(1)
	quiet.complete(1)
	if res := CheckpointTiming(quiet.events, timingRef(100, 20)); res.Verdict != VerdictUnexercised {
		t.Fatalf("want unexercised, got:\n%s", res)
	}
	// A checkpoint that completed long after its timeout, with no checkpoint.persist to
	// say whether its write was in flight at the deadline, is not decided.
	late := newTB()
	late.at(100).trigger(1)
	late.at(500).complete(1)
	wantUnknown(t, CheckpointTiming(late.events, timingRef(100, 20)), "no checkpoint.persist says the start of")
}

// Flink writes a completed checkpoint's metadata under the coordinator's lock, which its
// timeout canceller needs too. Checkpoint 3 had every acknowledgement long before its
// timeout at t=260, but checkpoint 2's slow metadata write held the coordinator until
// t=410; checkpoint 3's write began as that one ended, and it completed, never expiring.
// (Found by simrun sweep -generated, seed 20688: a storage.slow fault on the metadata
// store stretched checkpoint 2's write past checkpoint 3's timeout.)
func TestCheckpointTimingWaitsForTheMetadataWriteInFlight(t *testing.T) {
	b := newTB()
	b.at(100).trigger(2)
	b.ack("sum-0", 2)
	b.at(150).persist(2) // slow: it ends at t=410
	b.at(160).trigger(3)
	b.at(170).ack("sum-0", 3) // every ack is in; its write waits for checkpoint 2's
	b.at(400).persist(3)      // begins as the one ahead of it ends
	b.complete(2)
	b.at(450).complete(3)
	b.at(460).trigger(4)
	b.at(560).abort(4) // and a checkpoint without acknowledgements expires on time
	wantPass(t, CheckpointTiming(b.events, timingRef(100, 20)))
}

// The write in flight only moves the deadline: once it ended, a checkpoint still
// collecting acknowledgements must expire within the reaction bound, and one in flight
// after it in a chain of writes moves it on.
func TestCheckpointTimingCatchesALateExpiryAfterAMetadataWrite(t *testing.T) {
	b := newTB()
	b.at(100).trigger(2)
	b.at(150).persist(2)
	b.at(160).trigger(3) // timeout at t=260, while checkpoint 2's write is in flight
	b.at(170).trigger(4)
	b.at(180).persist(4) // overlaps checkpoint 2's: the latest end counts
	b.at(400).complete(2)
	b.at(430).complete(4) // the lock is free from t=430
	overdue := b.at(460).ack("sum-0", 3)
	b.at(500).abort(3)
	v := wantFirst(t, CheckpointTiming(b.events, timingRef(100, 20)), overdue,
		"checkpoint 3, triggered at seq 2, was still pending 20ns after its timeout at t=260 and the metadata write in flight then, which ended at t=430 (aborted at seq 8, expired)")
	wantRule(t, v, "checkpoint.expires-at-timeout")
}

// TestCheckpointTimingWaitsOutADelaysTail: a decline sent after a net.delay into the
// coordinator ended, while the messages it held up were still on their way, queues behind
// them; the reaction bound, which counts its delivery, does not judge it (generated seed
// 214208). The tail of a delay between two tasks holds up no decline.
func TestCheckpointTimingWaitsOutADelaysTail(t *testing.T) {
	run := func(to string) Result {
		delay := func(pairs ...string) trace.Event {
			return trace.Event{Kind: trace.KindFault, Fault: "net.delay", From: "sink-0", To: to, Attrs: attrs(pairs...)}
		}
		b := newTB()
		b.at(20).add(delay("id=1", "window_ns=50", "delay_ns=300"))
		b.at(70).add(delay("id=1", "window_ns=50", "delay_ns=300", "end=true"))
		b.at(100).trigger(1)
		b.at(120).declineFor("sum-0", 1, "newer-barrier")
		b.at(380).abortFor(1, "newer-barrier") // the tail held the decline to 370
		return CheckpointTiming(b.events, timingRef(1000, 20))
	}
	if res := run("coordinator"); res.Verdict == VerdictFail {
		t.Errorf("a decline held up by a delay's tail: %s", res)
	}
	if res := run("sum-1"); res.Verdict != VerdictFail {
		t.Errorf("a delay between tasks excused a late abort: %s", res)
	}
}

// TestCheckpointTimingTakesABegunWriteForAReaction: a checkpoint whose acks were all in
// begins its write within the reaction bound after its timeout, having waited for a write
// the trace does not show (one that drops discarded checkpoints: catalogue
// concurrent-at-end with a short timeout, seed 2); one that begins later is late.
func TestCheckpointTimingTakesABegunWriteForAReaction(t *testing.T) {
	b := newTB()
	b.at(100).trigger(1)
	b.at(150).ack("sum-0", 1)
	b.at(215).persist(1) // 15 after its timeout: within the reaction bound
	b.at(300).complete(1)
	b.at(310).trigger(2)
	b.at(410).abort(2) // on time
	wantPass(t, CheckpointTiming(b.events, timingRef(100, 20)))

	late := newTB()
	late.at(100).trigger(1)
	late.at(150).ack("sum-0", 1)
	overdue := late.at(230).persist(1)
	late.at(300).complete(1)
	wantFirst(t, CheckpointTiming(late.events, timingRef(100, 20)), overdue,
		"checkpoint 1, triggered at seq 0, was still pending 20ns after its timeout at t=200")
}
