package checker

import (
	"maps"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleTransactionsBounded names the rule that a two-phase-commit sink keeps a bounded number
// of transactions open.
const ruleTransactionsBounded = "transactions.bounded"

// pendingTxnKinds are the kinds pendingTransactions reacts to.
var pendingTxnKinds = kindsOf(trace.KindSinkPrecommit, trace.KindSinkCommit, trace.KindSinkAbort,
	trace.KindNotifyComplete, trace.KindNotifyAbort, trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish, trace.KindJobFailover)

// pendingTransactions judges transactions.bounded: a two-phase-commit sink incarnation holds
// at most bound pre-committed transactions that are neither committed, nor due to be (a
// notify.complete of their checkpoint or a later one hands them to the external system,
// which may confirm much later), nor aborted, nor tied to a checkpoint the sink was told
// aborted (such a transaction waits for a later completion and no longer counts, as
// Flink's Kafka producer returns its producer to the pool). Past the bound a sink declines
// the checkpoint (too-many-pending). What an incarnation restored and commits again is not
// counted, so the count never runs above the sink's own. The trace says sink.precommit when
// the external system confirms it, which may come after the notice of the checkpoint's
// fate: that notice counts too. Zero bound: not judged.
func pendingTransactions(ix *traceIndex, bound int64) []Violation {
	if bound <= 0 {
		return nil
	}
	sinks := map[string]*sinkTxns{} // task -> its incarnation's transactions
	var violations []Violation
	for i := range ix.only(pendingTxnKinds) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindJobFailover:
			clear(sinks)
		case trace.KindTaskCrash, trace.KindTaskRestore, trace.KindTaskFinish:
			delete(sinks, e.Task)
		default:
			sink := sinks[e.Task]
			if sink == nil {
				sink = &sinkTxns{open: map[string]uint64{}, aborted: map[uint64]bool{}}
				sinks[e.Task] = sink
			}
			if counted := sink.observe(e); counted > bound {
				v := violationAt(PropListenerContract, e, "%s holds %d pre-committed transactions open with checkpoint %d's, more than the %d the configuration bounds it to (it should have declined the checkpoint)",
					e.Task, counted, e.CP, bound)
				v.Rule = ruleTransactionsBounded
				violations = append(violations, v)
			}
		}
	}
	return violations
}

// sinkTxns are one sink incarnation's open transactions (id -> checkpoint) and what it was
// told of their checkpoints.
type sinkTxns struct {
	open      map[string]uint64
	aborted   map[uint64]bool
	completed uint64 // the newest checkpoint it was told complete
}

// observe takes e, one of the sink's events, and returns how many transactions count
// towards the bound after a sink.precommit, 0 after anything else.
func (s *sinkTxns) observe(e *trace.Event) int64 {
	switch e.Kind {
	case trace.KindSinkCommit, trace.KindSinkAbort:
		delete(s.open, e.Txn)
	case trace.KindNotifyComplete:
		s.completed = max(s.completed, e.CP)
		maps.DeleteFunc(s.open, func(_ string, cp uint64) bool { return cp <= e.CP })
	case trace.KindNotifyAbort:
		s.aborted[e.CP] = true
	case trace.KindSinkPrecommit:
		if e.CP > s.completed {
			s.open[e.Txn] = e.CP
		}
		counted := int64(0)
		for _, cp := range s.open {
			if !s.aborted[cp] {
				counted++
			}
		}
		return counted
	}
	return 0
}
