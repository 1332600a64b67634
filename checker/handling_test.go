package checker

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func (b *tb) triggerRecv(task string, cp uint64) uint64 { return b.add(trace.TriggerRecv(task, cp)) }
func (b *tb) markerSend(task, to string, cp uint64) uint64 {
	return b.add(trace.MarkerSend(task, to, cp))
}
func (b *tb) markerRecv(task, from string, cp uint64) uint64 {
	return b.add(trace.MarkerRecv(task, from, cp))
}
func (b *tb) recordSend(task, to string) uint64 {
	return b.add(trace.RecordSend(task, to, "r1"))
}

// wantHandling fails the test unless res failed with a violation of rule at seq whose message
// holds fragment, and with its Rule set.
func wantHandling(t *testing.T, res Result, seq uint64, rule, fragment string) {
	t.Helper()
	if res.Verdict != VerdictFail {
		t.Fatalf("want a violation of %s at seq %d, got:\n%s", rule, seq, res)
	}
	for _, v := range res.Violations {
		if v.Seq == seq && v.Rule == rule && v.Property == PropBarrierHandling && strings.Contains(v.Message, fragment) {
			return
		}
	}
	t.Fatalf("want a violation of %s at seq %d containing %q, got:\n%s", rule, seq, fragment, res)
}

// TestTriggerUnansweredIsCaught: a source that takes trigger 1 in and then trigger 2,
// without a snapshot or a decline of 1 between, left 1 to expire.
func TestTriggerUnansweredIsCaught(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.triggerRecv("src-0", 1)
	b.trigger(2)
	next := b.triggerRecv("src-0", 2)
	b.snap("src-0", 2)
	wantHandling(t, BarrierHandling(b.events), next, ruleAnswersTrigger, "src-0 took the trigger of checkpoint 1 in at seq 1")
}

// TestTriggerAnswersPass: a snapshot, a decline, a duplicate of an answered trigger, and a
// trigger of a checkpoint the task was told aborted (whose cancel marker goes out) all keep
// the rule; so does a trigger the incarnation never answered because it crashed.
func TestTriggerAnswersPass(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.triggerRecv("src-0", 1)
	b.snap("src-0", 1)
	b.barrierSend("src-0", "sink-0", 1)
	b.trigger(2)
	b.triggerRecv("src-0", 2)
	b.decline("src-0", 2)
	b.markerSend("src-0", "sink-0", 2)
	b.triggerRecv("src-0", 1) // a duplicate: answered already
	b.trigger(3)
	b.notifyAbort("src-0", 3)
	b.triggerRecv("src-0", 3)
	b.markerSend("src-0", "sink-0", 3)
	b.trigger(4)
	b.triggerRecv("src-0", 4)
	b.crash("src-0")
	b.restore("src-0", 1)
	b.triggerRecv("src-0", 5)
	b.snap("src-0", 5)
	wantPass(t, BarrierHandling(b.events))
}

// TestTriggerWithoutReceiptsIsUnknown: a trace that triggers checkpoints but never says a
// task took a trigger in cannot show what tasks did with them.
func TestTriggerWithoutReceiptsIsUnknown(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.snap("src-0", 1)
	b.barrierSend("src-0", "sink-0", 1)
	wantUnknown(t, BarrierHandling(b.events), "no trigger.recv")
	if res := BarrierHandling(nil); res.Verdict != VerdictUnexercised {
		t.Fatalf("an empty trace: want unexercised, got:\n%s", res)
	}
}

// TestTriggerOwedAtTheEndIsNotJudged: the trace ends before the task took anything else in.
func TestTriggerOwedAtTheEndIsNotJudged(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.triggerRecv("src-0", 1)
	res := BarrierHandling(b.events)
	if res.Verdict != VerdictPass || !strings.Contains(res.Note, "1 answer(s) or cancel(s) still owed") {
		t.Fatalf("want a pass that says what was not judged, got:\n%s", res)
	}
}

// TestChannelIDsGoingBackAreCaught: a barrier after a newer cancel marker (D2's symptom)
// and a barrier after the cancel marker of its own checkpoint.
func TestChannelIDsGoingBackAreCaught(t *testing.T) {
	b := newTB()
	b.markerSend("sum-0", "sink-0", 2)
	back := b.barrierSend("sum-0", "sink-0", 1)
	wantHandling(t, BarrierHandling(b.events), back, ruleIDsIncrease, "a barrier of checkpoint 1 to sink-0 after a cancel marker of checkpoint 2")

	b = newTB()
	b.markerSend("sum-0", "sink-0", 3)
	same := b.barrierSend("sum-0", "sink-0", 3)
	wantHandling(t, BarrierHandling(b.events), same, ruleIDsIncrease, "ids on a channel never go back")
}

// TestChannelIDsIncreasingPass: a cancel marker may follow the barrier of its own
// checkpoint; channels are per output; a new incarnation starts its channels anew.
func TestChannelIDsIncreasingPass(t *testing.T) {
	b := newTB()
	b.barrierSend("sum-0", "sink-0", 1)
	b.markerSend("sum-0", "sink-0", 1)
	b.barrierSend("sum-0", "sink-0", 2)
	b.barrierSend("sum-0", "sink-1", 1)
	b.add(trace.JobFailover(0, "task-failure"))
	b.restore("sum-0", 0)
	b.barrierSend("sum-0", "sink-0", 1)
	wantPass(t, BarrierHandling(b.events))
}

// TestChannelsWithoutSendsAreUnexercised: barriers taken in but none sent give the rule
// nothing to judge, which is no pass.
func TestChannelsWithoutSendsAreUnexercised(t *testing.T) {
	b := newTB()
	b.barrierRecv("sink-0", "sum-0", 1)
	b.barrierRecv("sink-0", "sum-0", 2)
	if res := BarrierHandling(b.events); res.Verdict != VerdictUnexercised {
		t.Fatalf("want unexercised, got:\n%s", res)
	}
}

// declineAfterBarrier is sum-0 declining checkpoint 1 after its barrier came, in a trace
// that traces cancel markers (withMarkers) or holds none at all.
func declineAfterBarrier(withMarkers bool) *tb {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	if withMarkers {
		b.markerRecv("sink-1", "sum-1", 7) // elsewhere: the emitter traces markers
	}
	b.barrierRecv("sum-0", "src-0", 1)
	b.decline("sum-0", 1)
	return b
}

// TestDeclineWithoutCancelIsCaught: sum-0 declines checkpoint 1, whose barrier it took part
// in, and takes the next barrier in before cancelling 1 downstream.
func TestDeclineWithoutCancelIsCaught(t *testing.T) {
	b := declineAfterBarrier(true)
	next := b.barrierRecv("sum-0", "src-0", 2)
	wantHandling(t, BarrierHandling(b.events), next, ruleCancelOnGiveUp, "sum-0 declined checkpoint 1 after its barrier came")
}

// TestDeclineWithCancelPasses: the cancel marker goes out before the next input; a decline
// after the barrier went out (a failed upload), and one of a stale barrier, owe nothing.
func TestDeclineWithCancelPasses(t *testing.T) {
	b := declineAfterBarrier(true)
	b.markerSend("sum-0", "sink-0", 1)
	b.barrierRecv("sum-0", "src-0", 2)
	b.snap("sum-0", 2)
	b.barrierSend("sum-0", "sink-0", 2)
	b.decline("sum-0", 2) // its upload failed: the barrier is out already
	b.barrierRecv("sum-0", "src-0", 4)
	b.barrierRecv("sum-0", "src-1", 3) // stale: 4 came first
	b.decline("sum-0", 3)
	b.barrierRecv("sum-0", "src-1", 4)
	wantPass(t, BarrierHandling(b.events))
}

// TestAbortNoticeWhileAligningMayWait (FLINK-18238): told of the abort while aligning,
// sum-0 may send the cancel marker at once or, as Flink does, when the alignment would have
// completed: taking more in before it is no violation, and anything newer sent on the
// output settles it.
func TestAbortNoticeWhileAligningMayWait(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.markerRecv("sink-1", "sum-1", 7)
	b.barrierRecv("sum-0", "src-0", 1)
	b.notifyAbort("sum-0", 1)
	b.barrierRecv("sum-0", "src-0", 2)
	b.barrierRecv("sum-0", "src-1", 1)
	b.markerSend("sum-0", "sink-0", 1)
	wantPass(t, BarrierHandling(b.events))

	b = newTB()
	b.recordSend("sum-0", "sink-0")
	b.barrierRecv("sum-0", "src-0", 1)
	b.markerSend("sum-0", "sink-0", 1)
	b.notifyAbort("sum-0", 1)
	b.barrierRecv("sum-0", "src-1", 1) // the rest of its barriers owe nothing more
	b.barrierRecv("sum-0", "src-0", 2)
	wantPass(t, BarrierHandling(b.events))
}

// TestCancelMayWaitForAnOlderAlignment: at-least-once, sum-0 still aligns checkpoint 1 when
// it refuses 2; the marker of 2 may wait until the barrier of 1 went out (ids on the channel
// never go back), and is due at once after it.
func TestCancelMayWaitForAnOlderAlignment(t *testing.T) {
	refusal := func() *tb {
		b := newTB()
		b.recordSend("sum-0", "sink-0")
		b.barrierRecv("sum-0", "src-0", 1)
		b.barrierRecv("sum-0", "src-0", 2)
		b.decline("sum-0", 2)
		b.barrierRecv("sum-0", "src-1", 1) // the marker of 2 still waits for 1
		b.snap("sum-0", 1)
		b.barrierSend("sum-0", "sink-0", 1)
		return b
	}
	b := refusal()
	b.markerSend("sum-0", "sink-0", 2)
	b.barrierRecv("sum-0", "src-0", 3)
	wantPass(t, BarrierHandling(b.events))

	b = refusal()
	next := b.barrierRecv("sum-0", "src-0", 3)
	b.markerSend("sum-0", "sink-0", 3)
	wantHandling(t, BarrierHandling(b.events), next, ruleCancelOnGiveUp, "sum-0 declined checkpoint 2 after its barrier came")
}

// TestCancelMayWaitForANewerOwedMarker: told that 3 aborted while 1 and 2 still align, and
// then that 1 aborted, sum-0 may let the marker of 3, still held back by 2, settle 1 too.
func TestCancelMayWaitForANewerOwedMarker(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.markerRecv("sink-1", "sum-1", 9)
	for cp := uint64(1); cp <= 3; cp++ {
		b.barrierRecv("sum-0", "src-0", cp)
	}
	b.notifyAbort("sum-0", 3)
	b.notifyAbort("sum-0", 1)
	b.barrierRecv("sum-0", "src-0", 4)
	b.barrierRecv("sum-0", "src-1", 2)
	b.snap("sum-0", 2)
	b.barrierSend("sum-0", "sink-0", 2)
	b.markerSend("sum-0", "sink-0", 3)
	b.barrierRecv("sum-0", "src-1", 4)
	wantPass(t, BarrierHandling(b.events))
}

// TestDeclineInATraceWithoutMarkersIsUnknown: without any cancel marker in the trace, a
// missing one may be an emitter that does not trace them.
func TestDeclineInATraceWithoutMarkersIsUnknown(t *testing.T) {
	b := declineAfterBarrier(false)
	b.barrierRecv("sum-0", "src-0", 2)
	wantUnknown(t, BarrierHandling(b.events), "no marker.send or marker.recv at all")
}

// TestCancelMarkerNotDeclinedIsCaught (D4): the marker is passed on but never declined.
func TestCancelMarkerNotDeclinedIsCaught(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.markerRecv("sum-0", "src-0", 3)
	b.markerSend("sum-0", "sink-0", 3)
	next := b.barrierRecv("sum-0", "src-0", 4)
	wantHandling(t, BarrierHandling(b.events), next, ruleCancelOnMarker, "before it declined 3")
}

// TestCancelMarkerNotForwardedIsCaught: declined, but sink-0 still waits for its barrier.
func TestCancelMarkerNotForwardedIsCaught(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.markerRecv("sum-0", "src-0", 3)
	b.decline("sum-0", 3)
	next := b.notifyAbort("sum-0", 3)
	wantHandling(t, BarrierHandling(b.events), next, ruleCancelOnMarker, "before a cancel marker of 3 (or anything newer) went to sink-0")
}

// TestSnapshotAfterCancelMarkerIsCaught (D2): a cancel marker of 3 ends the older
// checkpoint 2 too, on whichever input its barrier came; its alignment completes anyway.
func TestSnapshotAfterCancelMarkerIsCaught(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.barrierRecv("sum-0", "src-0", 2)
	b.markerRecv("sum-0", "src-0", 3)
	b.markerSend("sum-0", "sink-0", 3)
	b.decline("sum-0", 3)
	b.barrierRecv("sum-0", "src-1", 2)
	late := b.snap("sum-0", 2)
	wantHandling(t, BarrierHandling(b.events), late, ruleCancelOnMarker, "took a snapshot of checkpoint 2 after a cancel marker of 3")
}

// TestCancelMarkerHandledPasses: declined and passed on at once; a marker of a checkpoint
// the task aligns ends it; a marker of one the task was told aborted owes no decline.
func TestCancelMarkerHandledPasses(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.markerRecv("sum-0", "src-0", 3)
	b.markerSend("sum-0", "sink-0", 3)
	b.decline("sum-0", 3)
	b.barrierRecv("sum-0", "src-0", 4)
	b.markerRecv("sum-0", "src-1", 4) // 4 is aligning here
	b.markerSend("sum-0", "sink-0", 4)
	b.decline("sum-0", 4)
	b.notifyAbort("sum-0", 5)
	b.markerRecv("sum-0", "src-0", 5)
	b.markerSend("sum-0", "sink-0", 5)
	b.barrierRecv("sum-0", "src-0", 6)
	wantPass(t, BarrierHandling(b.events))
}

// TestUntracedMarkerReceiptsAreUnknown: a marker went to sink-0, which then took a newer
// barrier in on the same channel, so it took the marker in, but no marker.recv says so.
func TestUntracedMarkerReceiptsAreUnknown(t *testing.T) {
	b := newTB()
	b.markerSend("sum-0", "sink-0", 3)
	b.barrierSend("sum-0", "sink-0", 4)
	b.barrierRecv("sink-0", "sum-0", 4)
	wantUnknown(t, BarrierHandling(b.events), "no marker.recv")
	// A marker sent into a failover is no such evidence.
	b = newTB()
	b.markerSend("sum-0", "sink-0", 3)
	b.add(trace.JobFailover(0, "task-failure"))
	b.barrierSend("sum-0", "sink-0", 4)
	b.barrierRecv("sink-0", "sum-0", 4)
	wantPass(t, BarrierHandling(b.events))
}

// knownAbortThenBarrier is sum-0 told that checkpoint 5 aborted and then taking its
// barrier in, in a trace that traces cancel markers (withMarkers) or holds none.
func knownAbortThenBarrier(withMarkers bool) *tb {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	if withMarkers {
		b.markerRecv("sink-1", "sum-1", 2)
	}
	b.notifyAbort("sum-0", 5)
	b.barrierRecv("sum-0", "src-0", 5)
	return b
}

// TestKnownAbortWithoutCancelIsCaught (D3, FLINK-18238): the barrier of an aborted
// checkpoint sends no cancel marker downstream, or is even forwarded.
func TestKnownAbortWithoutCancelIsCaught(t *testing.T) {
	// A trigger of an aborted checkpoint is answered by a cancel marker at once.
	b := newTB()
	b.recordSend("src-0", "sum-0")
	b.markerRecv("sink-1", "sum-1", 2)
	b.notifyAbort("src-0", 5)
	b.triggerRecv("src-0", 5)
	next := b.triggerRecv("src-0", 6)
	wantHandling(t, BarrierHandling(b.events), next, ruleCancelOnAbort, "took the trigger of checkpoint 5 in after notify.abort of it")

	// A barrier of one may wait, as in Flink, for the alignment to end.
	b = knownAbortThenBarrier(true)
	b.barrierRecv("sum-0", "src-1", 6)
	if res := BarrierHandling(b.events); res.Verdict == VerdictFail {
		t.Errorf("a barrier of an aborted checkpoint, its marker not yet sent: %v", res)
	}

	b = knownAbortThenBarrier(true)
	b.markerSend("sum-0", "sink-0", 5)
	b.barrierRecv("sum-0", "src-1", 5)
	sent := b.snap("sum-0", 5)
	wantHandling(t, BarrierHandling(b.events), sent, ruleCancelOnAbort, "after it was told the checkpoint aborted")
}

// TestKnownAbortCancelledPasses: the marker goes out at once and only once; a barrier of an
// aborted checkpoint that a newer one overtook owes nothing.
func TestKnownAbortCancelledPasses(t *testing.T) {
	b := knownAbortThenBarrier(true)
	b.markerSend("sum-0", "sink-0", 5)
	b.barrierRecv("sum-0", "src-1", 5)
	b.notifyAbort("sum-0", 7)
	b.barrierRecv("sum-0", "src-0", 8)
	b.barrierRecv("sum-0", "src-1", 7) // stale: 8 came first
	b.barrierRecv("sum-0", "src-1", 8)
	wantPass(t, BarrierHandling(b.events))
}

// TestKnownAbortMarkerIsPassedOn: a cancel marker of a checkpoint sum-0 was told aborted,
// before anything of it came, is passed on like its barrier would be.
func TestKnownAbortMarkerIsPassedOn(t *testing.T) {
	b := newTB()
	b.recordSend("sum-0", "sink-0")
	b.notifyAbort("sum-0", 5)
	b.markerRecv("sum-0", "src-0", 5)
	next := b.barrierRecv("sum-0", "src-0", 6)
	wantHandling(t, BarrierHandling(b.events), next, ruleCancelOnAbort, "took a cancel marker of checkpoint 5 in after notify.abort of it")

	b = newTB()
	b.recordSend("sum-0", "sink-0")
	b.notifyAbort("sum-0", 5)
	b.markerRecv("sum-0", "src-0", 5)
	b.markerSend("sum-0", "sink-0", 5)
	b.barrierRecv("sum-0", "src-0", 6)
	wantPass(t, BarrierHandling(b.events))
}

// TestKnownAbortWithoutMarkersIsUnknown: a marker owed at once cannot be told from an
// emitter that leaves markers out; one that may wait, as Flink's does, is never judged
// missing, so it needs no markers in the trace.
func TestKnownAbortWithoutMarkersIsUnknown(t *testing.T) {
	b := newTB()
	b.recordSend("src-0", "sum-0")
	b.notifyAbort("src-0", 5)
	b.triggerRecv("src-0", 5)
	b.triggerRecv("src-0", 6)
	wantUnknown(t, BarrierHandling(b.events), "trigger.recv at seq 2 owes a cancel marker")

	b = knownAbortThenBarrier(false)
	b.barrierRecv("sum-0", "src-1", 6)
	if res := BarrierHandling(b.events); res.Verdict != VerdictPass {
		t.Errorf("a barrier of an aborted checkpoint, no markers traced: %v", res)
	}
}

// TestBarrierHandlingIsLeftOutForTokens: a token workload's processes take no triggers and
// send no cancel markers.
func TestBarrierHandlingIsLeftOutForTokens(t *testing.T) {
	if got := DefaultProperties(Reference{TokenWorkload: true}); slices.Contains(got, PropBarrierHandling) {
		t.Fatalf("a token workload: got %v, want barrier-handling left out", got)
	}
	if got := DefaultProperties(Reference{}); !slices.Contains(got, PropBarrierHandling) {
		t.Fatalf("a barrier job: got %v, want barrier-handling", got)
	}
}

// overtakenAlignment builds a join aligning checkpoint 1 (its barrier came from a, not yet
// from b) that then takes in checkpoint 2's barrier from b: 1's barrier can no longer come
// from b.
func overtakenAlignment() (*tb, uint64) {
	b := newTB()
	sources(b, 1)
	b.barrierRecv("join", "a", 1)
	sources(b, 2)
	return b, b.barrierRecv("join", "b", 2)
}

// sources triggers checkpoint cp at the sources a and b, which snapshot it.
func sources(b *tb, cp uint64) {
	b.trigger(cp)
	for _, src := range []string{"a", "b"} {
		b.triggerRecv(src, cp)
		b.snap(src, cp)
	}
}

// TestNewerBarrierEndsTheOlderAlignment: declining the overtaken checkpoint before the next
// input keeps alignment.newer-barrier; taking something else in first, or snapshotting the
// overtaken checkpoint later, breaks it.
func TestNewerBarrierEndsTheOlderAlignment(t *testing.T) {
	kept, _ := overtakenAlignment()
	kept.decline("join", 1)
	kept.markerSend("join", "sink", 1)
	kept.barrierRecv("join", "a", 2)
	kept.snap("join", 2)
	wantPass(t, BarrierHandling(kept.events))

	late, by := overtakenAlignment()
	next := late.barrierRecv("join", "a", 2)
	wantHandling(t, BarrierHandling(late.events), next, ruleNewerBarrier,
		"join took the barrier of checkpoint 2 from b in at seq "+itoa(int64(by))+" while aligning 1, whose barrier had not come from b")

	taken, _ := overtakenAlignment()
	taken.decline("join", 1)
	taken.markerSend("join", "sink", 1)
	snap := taken.snap("join", 1)
	wantHandling(t, BarrierHandling(taken.events), snap, ruleNewerBarrier, "took a snapshot of checkpoint 1 after the barrier of 2 from b")
}

// TestNewerBarrierOnAnInputAlreadyPassedOwesNothing: checkpoint 1's barrier came from both a
// and b's side before 2's came from a, so 1 still completes; a task not aligning 1 owes
// nothing either.
func TestNewerBarrierOnAnInputAlreadyPassedOwesNothing(t *testing.T) {
	b := newTB()
	sources(b, 1)
	b.barrierRecv("join", "a", 1)
	sources(b, 2)
	b.barrierRecv("join", "a", 2)
	b.barrierRecv("join", "b", 1)
	b.snap("join", 1)
	b.barrierRecv("join", "b", 2)
	b.snap("join", 2)
	wantPass(t, BarrierHandling(b.events))
}

// TestNewerBarrierNeverDeclinedIsCaughtAtTheEnd: a task that both alignments block takes
// nothing in again; the trace going on in time without the decline breaks the rule.
func TestNewerBarrierNeverDeclinedIsCaughtAtTheEnd(t *testing.T) {
	stuck, by := overtakenAlignment()
	stuck.wait(1000)
	stuck.trigger(3)
	wantHandling(t, BarrierHandling(stuck.events), by, ruleNewerBarrier, "and never declined 1")
}

// TestFinishedTaskOwesNothingForLaterCheckpoints: a task that acked its final snapshot for 1
// takes part in every later checkpoint through that snapshot, carried: a cancel marker of 2
// and a barrier of 3 after it owe neither a decline nor a cancel marker.
func TestFinishedTaskOwesNothingForLaterCheckpoints(t *testing.T) {
	b := newTB()
	sources(b, 1)
	b.barrierRecv("join", "a", 1)
	b.barrierRecv("join", "b", 1)
	b.snap("join", 1)
	b.add(trace.Event{Kind: trace.KindSnapshotAck, Task: "join", CP: 1, Attrs: attrs("final=true")})
	b.trigger(2)
	b.markerSend("a", "join", 2)
	b.markerRecv("join", "a", 2)
	b.trigger(3)
	b.barrierRecv("join", "a", 3)
	if res := BarrierHandling(b.events); res.Verdict == VerdictFail {
		t.Errorf("a finished task held to later checkpoints: %s", res)
	}
}

// TestAckAfterGivingUpIsCaught: a task that declined a checkpoint, or was told it aborted,
// dropped the snapshot it was uploading, so no ack of it may follow; an ack before the
// abort, or by a new incarnation, is no violation.
func TestAckAfterGivingUpIsCaught(t *testing.T) {
	ack := func(b *tb, task string, cp uint64) uint64 {
		return b.add(trace.Event{Kind: trace.KindSnapshotAck, Task: task, CP: cp})
	}
	declined := newTB()
	declined.triggerRecv("s", 1)
	declined.snap("s", 1)
	declined.decline("s", 1)
	late := ack(declined, "s", 1)
	wantHandling(t, BarrierHandling(declined.events), late, ruleNoLateAck, "acknowledged checkpoint 1 after it declined it")

	told := newTB()
	told.triggerRecv("s", 1)
	told.snap("s", 1)
	told.notifyAbort("s", 1)
	late = ack(told, "s", 1)
	wantHandling(t, BarrierHandling(told.events), late, ruleNoLateAck, "after it was told it aborted")

	fine := newTB()
	fine.triggerRecv("s", 1)
	fine.snap("s", 1)
	ack(fine, "s", 1)
	fine.notifyAbort("s", 1)
	fine.triggerRecv("s", 2)
	fine.snap("s", 2)
	fine.decline("s", 2)
	fine.crash("s")
	fine.restore("s", 0)
	ack(fine, "s", 2) // a new incarnation gave nothing up
	if res := BarrierHandling(fine.events); res.Verdict == VerdictFail {
		t.Errorf("acks before giving up, or by a new incarnation: %s", res)
	}
}
