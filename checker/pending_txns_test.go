package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestTransactionsBounded: a sink that pre-commits a third transaction while two are open,
// with a bound of two, breaks transactions.bounded; one committed, aborted or tied to a
// checkpoint the sink was told aborted no longer counts, nor does a past incarnation's.
func TestTransactionsBounded(t *testing.T) {
	ref := Reference{Policy: Policy{MaxPendingTransactions: 2}}
	precommit := func(b *tb, cp uint64, txn string) uint64 {
		return b.add(trace.Event{Kind: trace.KindSinkPrecommit, Task: "sink-0", CP: cp, Txn: txn})
	}
	over := newTB()
	precommit(over, 1, "t1")
	precommit(over, 2, "t2")
	third := precommit(over, 3, "t3")
	res := ListenerContract(over.events, ref)
	if res.Verdict != VerdictFail || res.Violations[0].Seq != third || res.Violations[0].Rule != ruleTransactionsBounded ||
		!strings.Contains(res.Violations[0].Message, "holds 3 pre-committed transactions open") {
		t.Errorf("three open with a bound of two: %s", res)
	}

	within := newTB()
	precommit(within, 1, "t1")
	precommit(within, 2, "t2")
	within.add(trace.Event{Kind: trace.KindSinkCommit, Task: "sink-0", CP: 1, Txn: "t1"})
	precommit(within, 3, "t3")
	within.notifyAbort("sink-0", 3)
	precommit(within, 4, "t4")
	within.crash("sink-0")
	within.restore("sink-0", 0)
	precommit(within, 5, "t5")
	for _, v := range ListenerContract(within.events, ref).Violations {
		if v.Rule == ruleTransactionsBounded {
			t.Errorf("transactions within the bound: %s", v)
		}
	}
	if res := ListenerContract(over.events, Reference{}); res.Verdict == VerdictFail {
		t.Errorf("no bound given, nothing judged: %s", res)
	}
}
