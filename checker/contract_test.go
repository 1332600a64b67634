package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestContractFlagsABrokenContract: a contract.broken is a violation pinned to it, naming
// the task and the promise, with the detail when there is one.
func TestContractFlagsABrokenContract(t *testing.T) {
	b := newTB()
	b.crash("sum-0")
	bad := b.add(trace.ContractBroken("sum-1", 4, "snapshot-request", "a second snapshot request for the checkpoint"))
	b.add(trace.ContractBroken("map-0", 0, "finish", ""))
	res := Contract(b.events)
	wantFirst(t, res, bad, "sum-1 broke the protocol's contract: snapshot-request: a second snapshot request")
	if len(res.Violations) != 2 || res.Violations[1].Message != "map-0 broke the protocol's contract: finish" {
		t.Errorf("want both events named, got %v", res.Violations)
	}
}

// TestContractPassesAnEngineThatKeptIt: an engine at work that traced no broken contract
// passes; the same trace with one event more fails. So the verdict turns on the event
// alone, and a correct run cannot trip it.
func TestContractPassesAnEngineThatKeptIt(t *testing.T) {
	b := newTB()
	b.crash("sum-0")
	b.phase("liveness")
	wantPass(t, Contract(b.events))
	b.add(trace.ContractBroken("sum-0", 1, "receive", "receive barrier 1 from map-0: protocol: stale"))
	if res := Contract(b.events); res.Verdict != VerdictFail {
		t.Errorf("one contract.broken more: %s, want fail", res)
	}
}

// TestContractWithoutEvidence: an empty trace is unknown, and a trace of phases and faults
// only, where the engine did nothing, is unexercised: neither is a pass.
func TestContractWithoutEvidence(t *testing.T) {
	if res := Contract(nil); res.Verdict != VerdictUnknown || res.Note == "" {
		t.Errorf("empty trace: %s, want unknown with a note", res)
	}
	b := newTB()
	b.phase("fault")
	b.add(trace.Event{Kind: trace.KindFault, Fault: "net.delay", From: "a", To: "b"})
	if res := Contract(b.events); res.Verdict != VerdictUnexercised || res.Note == "" {
		t.Errorf("phases and faults only: %s, want unexercised with a note", res)
	}
}

// TestContractNamesAnEventWithoutItsPromise: a contract.broken that says no promise is still
// a broken contract (well-formed judges the missing attribute).
func TestContractNamesAnEventWithoutItsPromise(t *testing.T) {
	b := newTB()
	bad := b.add(trace.Event{Kind: trace.KindContractBroken, Task: "sink-0"})
	wantFirst(t, Contract(b.events), bad, "sink-0 broke the protocol's contract, and did not say which promise")
}
