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
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad,
		"checkpoint 1: channel a->b inconsistent: b consumed 6 and recorded 0 in flight, but a sent 5")
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
	wantPass(t, ConsistentCut(b.events, Reference{}))
}

func TestConsistentCutFlagsMissingReceiverSnapshot(t *testing.T) {
	b := newTB()
	bad := b.snap("a", 1, "sent.b=5")
	b.complete(1)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "a sent 5 records to b, which took no snapshot")
}

func TestConsistentCutSkipsChannelsOfFinishedSenders(t *testing.T) {
	b := newTB()
	b.finish("a")
	b.snap("b", 1, "recv.a=5")
	b.complete(1)
	wantPass(t, ConsistentCut(b.events, Reference{}))
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
