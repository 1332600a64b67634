package checker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

func (b *tb) abortFor(cp uint64, reason string) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointAbort, Task: coord, CP: cp, Reason: reason})
}
func (b *tb) failover(cp uint64, reason string) uint64 {
	return b.add(trace.Event{Kind: trace.KindJobFailover, Task: coord, CP: cp, Reason: reason})
}

func tolerating(n int) Reference { return Reference{Policy: Policy{TolerableFailures: Tolerating(n)}} }

// Two counted failures with one tolerated: the job must fail over before it checkpoints
// again (the FLINK-17351 and FLINK-32347 kind of bug: a failure that never counted).
func TestFailureAccountingCatchesAMissedFailover(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.complete(1)
	b.trigger(2)
	b.abort(2) // expired: 1
	b.trigger(3)
	b.abortFor(3, "persist-failed") // 2 > 1
	b.complete(4)                   // a completion in between does not excuse it
	late := b.trigger(5)
	wantFirst(t, FailureAccounting(b.events, tolerating(1)), late, "checkpoint 5 triggered, but 2 failures in a row (limit 1)")
}

// A counter store that keeps failing: each failed counter write is a failure (an I/O
// failure while triggering, which Flink counts), so the job must fail over (the D6 kind of
// bug: a job that never checkpoints and never fails over). The checkpoints were never
// triggered; their aborts are all the trace has of them.
func TestFailureAccountingCountsFailedTriggers(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.complete(1)
	b.abortFor(2, "trigger-failed") // 1
	b.abortFor(3, "trigger-failed") // 2 > 1
	late := b.trigger(4)
	wantFirst(t, FailureAccounting(b.events, tolerating(1)), late, "checkpoint 4 triggered, but 2 failures in a row (limit 1)")
}

// failureCounts and the protocol's Reason.CountsAsFailure classify every reason alike: the
// checker judges the protocol's traces by the protocol's own rule.
func TestFailureCountsAgreeWithTheProtocol(t *testing.T) {
	for r := protocol.Reason(1); r.String() != fmt.Sprintf("reason(%d)", r); r++ {
		counts, known := failureCounts[r.String()]
		if !known || counts != r.CountsAsFailure() {
			t.Errorf("reason %s: failureCounts %v (known %v), CountsAsFailure %v", r, counts, known, r.CountsAsFailure())
		}
	}
}

// A failover for exceeded failures with the count within the limit: failures were counted
// that Flink's classification does not count (a cancelled or subsumed checkpoint, an id at
// or below the latest completion, the same id twice).
func TestFailureAccountingCatchesAnEarlyFailover(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.abortFor(1, "expired") // 1
	b.abortFor(1, "expired") // the same id again: not counted
	b.abortFor(2, "canceled")
	b.abortFor(3, "subsumed")
	b.trigger(5)
	b.complete(5)
	b.abortFor(4, "expired") // below the latest completion
	early := b.failover(5, reasonTolerableExceeded)
	wantFirst(t, FailureAccounting(b.events, tolerating(1)), early, "with 0 failures in a row counted (limit 1)")
}

func TestFailureAccountingPassesTheRule(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.abort(1)
	b.trigger(2)
	b.complete(2) // starts the count again
	b.trigger(3)
	b.abort(3)
	b.trigger(4)
	b.abortFor(4, "upload-failed")
	b.failover(2, reasonTolerableExceeded) // 2 > 1
	b.trigger(5)
	b.abort(5) // the restarted job counts afresh
	b.coordCrash()
	b.recover(2)
	b.trigger(6)
	b.abortFor(6, "declined") // the new incarnation counts afresh too
	b.trigger(7)
	wantPass(t, FailureAccounting(b.events, tolerating(1)))
}

func TestFailureAccountingEvidence(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.abortFor(1, "expired")
	wantUnknown(t, FailureAccounting(b.events, Reference{}), "no tolerable-failure limit")
	b.abortFor(2, "cosmic-ray")
	wantUnknown(t, FailureAccounting(b.events, tolerating(3)), `reason "cosmic-ray"`)

	quiet := newTB()
	quiet.trigger(1)
	quiet.complete(1)
	if res := FailureAccounting(quiet.events, tolerating(3)); res.Verdict != VerdictUnexercised {
		t.Errorf("no failure at all: %s", res)
	}
	// Above the limit at the end of the trace: the failover may be on its way, so that
	// failure is not judged, and with nothing else judged that is no pass.
	end := newTB()
	end.trigger(1)
	end.abort(1)
	if res := FailureAccounting(end.events, tolerating(0)); res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "not judged") {
		t.Errorf("count above the limit at the end: %s", res)
	}
	// With an earlier failure judged (the next trigger found it within the limit), the same
	// end is a pass that says what it left out.
	judged := newTB()
	judged.trigger(1)
	judged.abort(1)
	judged.trigger(2)
	judged.abort(2)
	if res := FailureAccounting(judged.events, tolerating(1)); res.Verdict != VerdictPass || !strings.Contains(res.Note, "not judged") {
		t.Errorf("a failure judged, then the count above the limit at the end: %s", res)
	}
	// A savepoint's failure never counts.
	sp := newTB()
	sp.savepoint(1)
	sp.abortFor(1, "expired")
	sp.trigger(2)
	sp.complete(2)
	if res := FailureAccounting(sp.events, tolerating(0)); res.Verdict != VerdictUnexercised {
		t.Errorf("a failed savepoint: %s", res)
	}
}

// The failover owed for a passed limit waits for the metadata writes in flight, and those
// may land and complete newer checkpoints first: the count starts again, and the failover
// that follows is still owed. One without the limit ever passed is still early.
func TestFailureAccountingAllowsCompletionsBeforeTheOwedFailover(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.complete(1)
	b.trigger(2)
	b.trigger(3)
	b.abortFor(2, "persist-failed") // 1 > 0
	b.complete(3)                   // its write was in flight: the count starts again
	b.failover(3, reasonTolerableExceeded)
	wantPass(t, FailureAccounting(b.events, tolerating(0)))

	never := newTB()
	never.trigger(1)
	never.complete(1)
	early := never.failover(1, reasonTolerableExceeded)
	wantFirst(t, FailureAccounting(never.events, tolerating(0)), early, "with 0 failures in a row counted (limit 0)")
}
