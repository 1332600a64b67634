package checker

import "testing"

func TestConsistentCutPassesAlignedAndUnalignedSnapshots(t *testing.T) {
	b := newTB()
	// Aligned: b consumed everything a sent before its snapshot.
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5")
	b.complete(1)
	// Unaligned: 2 of a's 8 records were still in flight, and b stored them as channel state.
	b.snap("a", 2, "sent.b=8")
	b.snap("b", 2, "recv.a=6", "chan.a=2")
	b.complete(2)
	wantPass(t, ConsistentCut(b.events, Reference{}))
}

func TestConsistentCutFlagsRecordConsumedAfterTheSendersSnapshot(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	// b consumed a record that a sent after its snapshot: the cut holds an effect without
	// its cause, and restoring it would process that record twice.
	bad := b.snap("b", 1, "recv.a=6")
	b.complete(1)
	v := wantFirst(t, ConsistentCut(b.events, Reference{}), bad,
		"checkpoint 1: channel a->b inconsistent: b consumed 6 and recorded 0 in flight, but a sent 5")
	if v.From != "a" || v.To != "b" {
		t.Errorf("the violation names channel %q->%q, want a->b", v.From, v.To)
	}
}

func TestConsistentCutFlagsLostInFlightRecords(t *testing.T) {
	b := newTB()
	bad := b.snap("b", 1, "recv.a=3") // the receiver snapshots first this time
	b.snap("a", 1, "sent.b=5")
	b.complete(1)
	res := ConsistentCut(b.events, Reference{})
	wantFirst(t, res, bad+1, "b consumed 3 and recorded 0 in flight, but a sent 5")
}

func TestConsistentCutIgnoresCheckpointsThatNeverCompleted(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=1")
	b.abort(1)
	b.snap("a", 2, "sent.b=5")
	b.snap("b", 2, "recv.a=5")
	b.complete(2)
	wantPass(t, ConsistentCut(b.events, Reference{}))
}

func TestConsistentCutFlagsMissingReceiverSnapshot(t *testing.T) {
	b := newTB()
	bad := b.snap("a", 1, "sent.b=5")
	b.complete(1)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "a sent 5 records to b, which has no snapshot in it")
}

// A finished task's final snapshot is carried into later checkpoints, and the carried
// snapshot counts for it as a sender and as a receiver alike. Before snapshot.carried, a
// pending checkpoint that completed with a finished receiver's carried snapshot read as a
// receiver that took no snapshot (a false alarm seen with max_concurrent 2 and 3).
func TestConsistentCutJudgesCarriedSnapshotsOnBothEnds(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5", "sent.c=5")
	b.snap("c", 1, "recv.b=5")
	b.complete(1)
	// b finished: checkpoint 2 carries its snapshot of 1, on the receiving side of a->b
	// and on the sending side of b->c.
	b.finish("b")
	b.snap("a", 2, "sent.b=5")
	b.carry("b", 2, 1)
	b.snap("c", 2, "recv.b=5")
	b.complete(2)
	wantPass(t, ConsistentCut(b.events, Reference{}))

	// A sender that sent more than the carried receiver's final state holds is caught.
	bad := b.snap("a", 3, "sent.b=6")
	b.carry("b", 3, 1)
	b.snap("c", 3, "recv.b=5")
	b.complete(3)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "checkpoint 3: channel a->b inconsistent: b consumed 5")
}

func TestConsistentCutFlagsACarriedSnapshotThatWasNeverTaken(t *testing.T) {
	b := newTB()
	b.snap("a", 2, "sent.b=0")
	bad := b.carry("b", 2, 1)
	b.complete(2)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "carries b's snapshot of checkpoint 1, which b never took")
}

// A finished sender without a snapshot in the cut is no longer excused: the carried
// snapshot is in the trace when the engine carries one.
func TestConsistentCutFlagsRecordsFromASenderMissingFromTheCut(t *testing.T) {
	b := newTB()
	b.finish("a")
	bad := b.snap("b", 1, "recv.a=5")
	b.complete(1)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "b holds 5 records from a, which has no snapshot in it")
}

// Records an unaligned barrier overtook in the sender's output queue were sent before the
// sender's snapshot but reach the receiver after its barrier: the sender must keep them as
// output-side channel state (out.), or they are lost on restore.
func TestConsistentCutCountsOutputSideChannelState(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=8", "out.b=3")
	b.snap("b", 1, "recv.a=4", "chan.a=1")
	b.complete(1)
	wantPass(t, ConsistentCut(b.events, Reference{}))

	// The sender's snapshot forgot the three overtaken records.
	b.snap("a", 2, "sent.b=8", "out.b=0")
	bad := b.snap("b", 2, "recv.a=4", "chan.a=1")
	b.complete(2)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad,
		"checkpoint 2: channel a->b inconsistent: b consumed 4 and recorded 1 in flight, but a sent 8")
}

func TestConsistentCutIsUnknownWithoutEvidence(t *testing.T) {
	for _, tc := range []struct {
		name, note string
		build      func(b *tb)
	}{
		{"no completed checkpoint", "no checkpoint.complete", func(b *tb) { b.snap("a", 1, "sent.b=1") }},
		{"completed without snapshots", "checkpoint 1 completed but no snapshot.taken", func(b *tb) { b.complete(1) }},
		{"snapshots without counts", "counts a channel", func(b *tb) {
			b.snap("a", 1, "state=x")
			b.complete(1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTB()
			tc.build(b)
			wantUnknown(t, ConsistentCut(b.events, Reference{}), tc.note)
		})
	}
}

func TestConsistentCutConservesTokens(t *testing.T) {
	ref := Reference{TokenTotal: 10}
	b := newTB()
	b.snap("p", 1, "tokens=4", "sent.q=3")
	b.snap("q", 1, "tokens=5", "recv.p=2", "chan.p=1", "chantokens.p=1")
	b.complete(1)
	wantPass(t, ConsistentCut(b.events, ref))

	// A token in flight was recorded on neither side: the snapshot lost it.
	b.snap("p", 2, "tokens=4", "sent.q=4")
	b.snap("q", 2, "tokens=5", "recv.p=4")
	bad := b.complete(2)
	wantFirst(t, ConsistentCut(b.events, ref), bad, "checkpoint 2 holds 9 tokens (9 at tasks, 0 in flight), expected 10")
}

// TestChannelStateBounded: a snapshot that stored more records as channel state than the
// configuration allows breaks channel-state.bounded; one at the bound keeps it, and without
// a bound nothing is judged.
func TestChannelStateBounded(t *testing.T) {
	b := newTB()
	b.snap("sum-0", 1, "chan.source-0=20", "chan.source-1=12")
	over := b.snap("sum-1", 1, "chan.source-0=33")
	ref := Reference{Policy: Policy{ChannelStateMaxRecords: 32}}
	res := ConsistentCut(b.events, ref)
	v := wantFirst(t, res, over, "sum-1 recorded 33 records as channel state for checkpoint 1, more than the 32")
	if v.Rule != "channel-state.bounded" || len(res.Violations) != 1 {
		t.Errorf("violations %v, want the one of sum-1, naming channel-state.bounded", res.Violations)
	}
	for _, v := range ConsistentCut(b.events, Reference{}).Violations {
		t.Errorf("judged without a bound: %s", v)
	}
}
