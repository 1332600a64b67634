package scenarios

import "github.com/ckptsim/ckptsim/trace"

// measurements are the figures a sweep summarizes, gathered from the trace as it is
// recorded: checkpoint counts and durations, and recovery times.
type measurements struct {
	completed, aborted int
	triggered          map[uint64]int64 // checkpoint id -> trigger time, until it ends
	checkpointNanos    []int64
	recoveryNanos      []int64
	failedAt           int64 // start of the current outage; -1 when none
}

func newMeasurements() *measurements {
	return &measurements{triggered: map[uint64]int64{}, failedAt: -1}
}

// observe is a trace watcher.
//
// A checkpoint's duration runs from its trigger to its completion (savepoints included). A
// recovery runs from the first failure (a task or coordinator crash, or a failover) after the
// job last completed a checkpoint to the next completion: how long the job went without being
// able to checkpoint because something broke.
func (m *measurements) observe(e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		m.triggered[e.CP] = e.T
	case trace.KindCheckpointComplete:
		m.completed++
		if start, ok := m.triggered[e.CP]; ok {
			m.checkpointNanos = append(m.checkpointNanos, e.T-start)
			delete(m.triggered, e.CP)
		}
		if m.failedAt >= 0 {
			m.recoveryNanos = append(m.recoveryNanos, e.T-m.failedAt)
			m.failedAt = -1
		}
	case trace.KindCheckpointAbort:
		m.aborted++
		delete(m.triggered, e.CP)
	case trace.KindTaskCrash, trace.KindCoordinatorCrash, trace.KindJobFailover:
		if m.failedAt < 0 {
			m.failedAt = e.T
		}
	}
}
