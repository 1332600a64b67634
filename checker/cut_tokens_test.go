package checker

import "testing"

// Tokens left unrecorded (a snapshot without tokens, or a channel without the tokens in
// flight on it) read as zero made conservation fail a correct token run stripped of them,
// and could hide an excess; they are found by removing chantokens and tokens attributes from
// a chandy-lamport-ring run.
func TestConsistentCutDoesNotJudgeUnrecordedTokens(t *testing.T) {
	ref := Reference{TokenTotal: 10}
	b := newTB()
	b.snap("p", 1, "tokens=4", "sent.q=3")
	b.snap("q", 1, "tokens=5", "recv.p=2", "chan.p=1") // the token in flight is not recorded
	b.complete(1)
	wantUnknown(t, ConsistentCut(b.events, ref), "q's snapshot (seq 1) records no tokens in flight from p (chantokens.p)")

	b = newTB()
	b.snap("p", 1, "sent.q=3") // p's tokens are not recorded
	b.snap("q", 1, "tokens=5", "recv.p=2", "chan.p=1", "chantokens.p=1")
	b.complete(1)
	wantUnknown(t, ConsistentCut(b.events, ref), "p's snapshot (seq 0) records no tokens")
}

// Tokens are never negative: more than the total fails whatever the missing pieces hold.
func TestConsistentCutFailsAnExcessBesideUnrecordedTokens(t *testing.T) {
	ref := Reference{TokenTotal: 10}
	b := newTB()
	b.snap("p", 1, "sent.q=3")
	b.snap("q", 1, "tokens=11", "recv.p=3")
	bad := b.complete(1)
	wantFirst(t, ConsistentCut(b.events, ref), bad, "checkpoint 1 holds 11 tokens (11 at tasks, 0 in flight), expected 10")
}
