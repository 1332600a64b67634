package checker

import "testing"

// Zero counts may be left out of snapshot.taken, so a channel whose counts are missing at
// both ends reads 0 + 0 = 0 and passed whatever it carried. A trace that shows the channel
// by other events (here a barrier on it) but counts it nowhere in a cut leaves that cut
// unjudged on it. The reproducer was a foreign engine's trace with a planted bug on one
// channel, which failed with the channel's counts and passed without them.
func TestConsistentCutIsUnknownOnAKnownChannelCountedAtNeitherEnd(t *testing.T) {
	b := newTB()
	b.snap("a", 1)
	b.barrierSend("a", "c", 1)
	b.snap("b", 1, "sent.c=5")
	b.barrierSend("b", "c", 1)
	b.snap("c", 1, "recv.b=5") // a->c: counted nowhere, though a barrier crossed it
	b.complete(1)
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "checkpoint 1: channel a->c (seen at seq 1, barrier.send) is counted at neither end")
}

// A channel's counts on another checkpoint's snapshots show it exists too.
func TestConsistentCutKnowsChannelsFromOtherCheckpointsCounts(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5", "sent.c=5")
	b.snap("c", 1, "recv.b=5")
	b.complete(1)
	b.snap("a", 2)
	b.snap("b", 2, "sent.c=7")
	b.snap("c", 2, "recv.b=7")
	b.complete(2)
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "checkpoint 2: channel a->b (seen at seq 0, snapshot.taken)")
}

// An unjudged channel does not hide a violation on another one.
func TestConsistentCutFailsBesideAnUncountedChannel(t *testing.T) {
	b := newTB()
	b.barrierSend("a", "c", 1)
	b.snap("a", 1)
	b.snap("b", 1, "sent.c=5")
	bad := b.snap("c", 1, "recv.b=6")
	b.complete(1)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "channel b->c inconsistent")
}

// Counted at one end only is a count: the end that leaves it out says zero.
func TestConsistentCutJudgesAChannelCountedAtOneEnd(t *testing.T) {
	b := newTB()
	b.barrierSend("a", "b", 1)
	b.snap("a", 1, "sent.b=0")
	b.snap("b", 1)
	b.complete(1)
	wantPass(t, ConsistentCut(b.events, Reference{}))
}

// A known channel with an end outside the cut (a task that never snapshotted or finished)
// is judged as today: the missing end holds nothing.
func TestConsistentCutSkipsAKnownChannelWithAnEndOutsideTheCut(t *testing.T) {
	b := newTB()
	b.barrierSend("x", "b", 1)
	b.snap("a", 1, "sent.b=2")
	b.snap("b", 1, "recv.a=2")
	b.complete(1)
	wantPass(t, ConsistentCut(b.events, Reference{}))
}

// A token workload's channel whose receiver records the tokens in flight on it is judged by
// token conservation, and needs no record counts.
func TestConsistentCutJudgesATokenChannelByItsTokens(t *testing.T) {
	ref := Reference{TokenTotal: 10}
	b := newTB()
	b.barrierSend("p", "q", 1)
	b.snap("p", 1, "tokens=4")
	b.snap("q", 1, "tokens=5", "chantokens.p=1")
	b.complete(1)
	wantPass(t, ConsistentCut(b.events, ref))

	// Without chantokens the channel is judged by nothing: neither its counts nor the
	// tokens in flight on it, which conservation needs.
	b = newTB()
	b.barrierSend("p", "q", 1)
	b.snap("p", 1, "tokens=4")
	b.snap("q", 1, "tokens=6")
	b.complete(1)
	wantUnknown(t, ConsistentCut(b.events, ref), "q's snapshot (seq 2) records no tokens in flight from p")
}
