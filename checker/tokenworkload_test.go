package checker

import "testing"

// A token workload of zero tokens still conserves them: a snapshot showing tokens out of
// nowhere fails. With TokenTotal as the only sign of a token workload, a total of zero read
// as "not a token workload" and left it unjudged.
func TestZeroTokenWorkloadIsJudged(t *testing.T) {
	b := newTB()
	b.snap("p", 1, "tokens=0")
	b.snap("q", 1, "tokens=0")
	b.complete(1)
	b.snap("p", 2, "tokens=3")
	b.snap("q", 2, "tokens=0")
	bad := b.complete(2)
	wantFirst(t, ConsistentCut(b.events, Reference{TokenWorkload: true}), bad, "checkpoint 2 holds 3 tokens (3 at tasks, 0 in flight), expected 0")
	// Not a token workload: tokens are not judged, and these snapshots count no channel.
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "counts a channel")
}

// A token workload whose snapshots count no tokens gives no evidence of conservation, even
// of a total of zero; channel counts that agree do not make up for it.
func TestTokenWorkloadWithoutTokenCountsIsUnknown(t *testing.T) {
	b := newTB()
	b.snap("p", 1, "state=a")
	b.complete(1)
	wantUnknown(t, ConsistentCut(b.events, Reference{TokenWorkload: true}), "counts tokens")
	counted := newTB()
	counted.snap("p", 1, "sent.q=3")
	counted.snap("q", 1, "recv.p=3")
	counted.complete(1)
	wantPass(t, ConsistentCut(counted.events, Reference{}))
	wantUnknown(t, ConsistentCut(counted.events, Reference{TokenTotal: 400}), "no snapshot of its cut counts tokens")
}
