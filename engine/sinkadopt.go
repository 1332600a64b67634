package engine

import (
	"errors"

	"github.com/ckptsim/ckptsim/engine/extstore"
	"github.com/ckptsim/ckptsim/protocol"
)

// A two-phase-commit sink of a rescaled job adopts the writers of the earlier job's sinks
// that have no namesake in it (task j goes to task j mod the new parallelism), as a Kafka
// sink scaled down takes over the transactional ids of the subtasks that are gone: it
// registers as each in turn, which fences what is left of it, and recovers its
// transactions, committing the ones its snapshot left pending and aborting the rest. Only
// then does the sink register as itself and run, so that a checkpoint of the new job never
// completes while a transaction of the restored checkpoint may still be uncommitted: the
// new job's snapshots do not hold the adopted transactions, and no later restore would
// commit them.

// adoptedWriter is an earlier sink whose transactions a sink finishes.
type adoptedWriter struct {
	writer string
	state  protocol.TwoPhaseCommitState
	epoch  uint64 // given by the store when the sink registered as the writer
}

// adopt finishes the transactions of the adopted writers from the i-th on, one writer
// after the other, and then calls done.
func (s *sinkPart) adopt(i int, done func()) {
	if i == len(s.adopted) {
		s.adoptNext = nil
		done()
		return
	}
	a := &s.adopted[i]
	s.adoptNext = func(m *storeReply) {
		// As for the sink's own recovery, a transaction the store timed out is lost to
		// commit, and failing the task would not bring it back.
		if m.err != nil && (m.op == opInit || !errors.Is(m.err, extstore.ErrAborted)) {
			s.failOn(m)
			return
		}
		if m.op == opInit {
			a.epoch = m.epoch
			var commit []string
			for _, p := range a.state.Pending {
				commit = append(commit, string(p.Transaction))
			}
			s.requestAs(&storeRequest{op: opRecover, txn: a.writer, commit: commit}, a.writer, a.epoch)
			return
		}
		s.adopt(i+1, done)
	}
	s.requestAs(&storeRequest{op: opInit, txn: a.writer}, a.writer, 0)
}

// adoptReply hands the store's answer to an adopted writer's registration or recovery
// (their txn names the writer) to the adoption under way, and reports whether it was one.
func (s *sinkPart) adoptReply(m *storeReply) bool {
	if m.txn == "" || (m.op != opInit && m.op != opRecover) || s.adoptNext == nil {
		return false
	}
	s.adoptNext(m)
	return true
}
