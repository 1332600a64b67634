package checker

import "github.com/ckptsim/ckptsim/trace"

// durablyCompletes returns the checkpoint that e proves durably complete: the cp of a
// checkpoint.complete, or the cp that a new coordinator incarnation read back from the
// completed-checkpoint store at coordinator.recover.
//
// The second case is real and not a fault: a coordinator may crash after its metadata write
// reached the store but before it heard so. That write is durable, yet no checkpoint.complete
// is ever emitted for it; the next incarnation finds it and rightly restores from it, and may
// then notify tasks of it. Treating the read as proof keeps such runs from being flagged,
// while durable-before-visible still checks, with porcupine, that the store never hands back
// an id it was not written.
func durablyCompletes(e *trace.Event) (uint64, bool) {
	switch {
	case e.Kind == trace.KindCheckpointComplete:
		return e.CP, true
	case e.Kind == trace.KindCoordinatorRecover && e.CP > 0:
		return e.CP, true
	}
	return 0, false
}

// ledger follows, in one pass over a trace, the two facts about checkpoints that several
// properties look up: which are savepoints, and which are durably complete so far.
type ledger struct {
	savepoints map[uint64]bool
	completed  map[uint64]bool
	latest     uint64 // the highest durably complete checkpoint, savepoints aside
}

func newLedger() *ledger {
	return &ledger{savepoints: make(map[uint64]bool), completed: make(map[uint64]bool)}
}

// ledgerKinds are the kinds ledger.observe reacts to.
var ledgerKinds = kindsOf(trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCoordinatorRecover)

// observe takes in e; call it for every event of ledgerKinds, in trace order.
func (l *ledger) observe(e *trace.Event) {
	if e.Kind == trace.KindCheckpointTrigger && isPlainSavepointTrigger(e) {
		l.savepoints[e.CP] = true
	}
	if cp, ok := durablyCompletes(e); ok {
		l.completed[cp] = true
		if !l.savepoints[cp] {
			l.latest = max(l.latest, cp)
		}
	}
}
