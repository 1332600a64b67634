package checker

import (
	"maps"

	"github.com/ckptsim/ckptsim/trace"
)

// abortParticipants knows, per task incarnation, which aborted checkpoints it took part in
// and the newest checkpoint it knows to be complete. Together they say who an abort is owed
// to: a task that took part in n, in the incarnation that is live when n is aborted, and
// that cannot yet know n is dead. A task already told of a newer completion, or restored
// from one, drops the notice of n as moot (the listener contract never lets an abort name
// an id that may be complete), so nothing is owed to it. Participation in an earlier
// incarnation owes nothing either: the incarnation that took part is gone, by its own crash
// or restore or by a job.failover, which replaces every task.
type abortParticipants struct {
	aborted map[uint64]bool            // every aborted checkpoint of the trace
	took    map[uint64]map[string]bool // aborted checkpoint -> live incarnations that took part
	known   map[string]uint64          // task -> newest id its incarnation knows complete
	// restartedFrom is the checkpoint the latest job.failover restored every task from.
	restartedFrom uint64
}

func newAbortParticipants(ix *traceIndex) *abortParticipants {
	p := &abortParticipants{aborted: map[uint64]bool{}, took: map[uint64]map[string]bool{}, known: map[string]uint64{}}
	for i := range ix.only(kindsOf(trace.KindCheckpointAbort)) {
		p.aborted[ix.events[i].CP] = true
	}
	return p
}

// observe takes the next event of the trace.
func (p *abortParticipants) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindBarrierRecv, trace.KindBarrierSend, trace.KindSnapshotTaken, trace.KindSnapshotAck, trace.KindSnapshotDecline:
		// A third of a trace's events come here, most of them for a checkpoint that
		// completes, or for a task already known to take part, which a lookup tells at
		// less than the cost of storing it again.
		if !p.aborted[e.CP] {
			break
		}
		tasks := p.took[e.CP]
		if tasks == nil {
			tasks = map[string]bool{}
			p.took[e.CP] = tasks
		}
		if !tasks[e.Task] {
			tasks[e.Task] = true
		}
	case trace.KindNotifyComplete:
		p.known[e.Task] = max(p.known[e.Task], e.CP)
	case trace.KindTaskCrash, trace.KindTaskRestore:
		p.forget(e.Task)
		if e.Kind == trace.KindTaskRestore {
			p.known[e.Task] = e.CP
		}
	case trace.KindJobFailover:
		// Every task is replaced, restored from the checkpoint the failover names.
		clear(p.took)
		for task := range p.known {
			p.known[task] = e.CP
		}
		p.restartedFrom = e.CP
	}
}

// forget ends the incarnation of task: what it took part in and knew goes with it.
func (p *abortParticipants) forget(task string) {
	delete(p.known, task)
	for _, tasks := range p.took {
		delete(tasks, task)
	}
}

// owed returns the tasks the abort of cp must reach, of those live says are running.
func (p *abortParticipants) owed(cp uint64, live func(task string) bool) map[string]bool {
	owed := maps.Clone(p.took[cp])
	maps.DeleteFunc(owed, func(task string, _ bool) bool { return !live(task) || max(p.known[task], p.restartedFrom) >= cp })
	return owed
}
