package protocol

import "slices"

// CoordinatorStatus is what a coordinator knows at one moment, for tests,
// debugging and statistics (raft's Status plays the same part). It is a
// copy: it shares no memory with the coordinator, and later calls do not
// change it. Hosts do not need it to drive the protocol.
type CoordinatorStatus struct {
	_ struct{}
	// HighestID is the largest id the coordinator has reserved.
	HighestID CheckpointID
	// Pending lists the checkpoints and savepoints reserved (their counter
	// write in flight, or a savepoint waiting for a MaxConcurrent slot) or
	// triggered, and not yet complete or aborted, ascending.
	Pending []CheckpointID
	// Retained lists the retained completed checkpoints, oldest first: the
	// coordinator's view of the completed-checkpoint store. Savepoints are
	// not retained: they belong to the user who asked for them, so the
	// coordinator reports them in CoordinatorReady.Completed and then
	// forgets them (it never lists them in Discarded either).
	Retained []CompletedCheckpoint
	// ConsecutiveFailures counts the failures since the last completion
	// (compared with Config.TolerableFailures).
	ConsecutiveFailures int
	// FullyFinished lists, in Topology.Tasks order, the tasks whose final
	// snapshot is in the latest completed checkpoint: the coordinator no
	// longer waits for them.
	FullyFinished []TaskID
}

// Status returns a copy of what the coordinator knows. It allocates: call
// it when something wants to look, not per message.
func (c *Coordinator) Status() CoordinatorStatus {
	st := CoordinatorStatus{
		HighestID:           c.highestID,
		Pending:             c.pendingIDs(),
		ConsecutiveFailures: c.failures,
	}
	for _, cc := range c.completed {
		st.Retained = append(st.Retained, cloneCheckpoint(cc))
	}
	for i, done := range c.fullyFinishedTasks {
		if done {
			st.FullyFinished = append(st.FullyFinished, c.topo.Tasks[i])
		}
	}
	return st
}

// cloneCheckpoint copies cc down to its snapshots' slices.
func cloneCheckpoint(cc CompletedCheckpoint) CompletedCheckpoint {
	cc.Tasks = slices.Clone(cc.Tasks)
	for i := range cc.Tasks {
		s := &cc.Tasks[i].Snapshot
		s.SourceOffsets = slices.Clone(s.SourceOffsets)
		s.ChannelState = slices.Clone(s.ChannelState)
	}
	return cc
}

// TaskStatus is what a task knows at one moment, for tests, debugging and
// statistics. Like CoordinatorStatus it is a copy. The per-record question
// has a method of its own, Task.Blocked, which does not allocate.
type TaskStatus struct {
	_ struct{}
	// RestoredFrom is the checkpoint this incarnation restored from (0 for
	// a fresh start).
	RestoredFrom CheckpointID
	// LastNotified is the id of the last completion notification delivered
	// in this incarnation (0 if none).
	LastNotified CheckpointID
	// Finished: Finish was called, or the task was restored finished.
	Finished bool
	// Aligning is the checkpoint whose barriers the task is aligning (or
	// recording channel state for), 0 if none.
	Aligning CheckpointID
	// Open[i]: input i has not delivered end of partition.
	Open []bool
	// Blocked[i]: input i is blocked by an alignment (Admit would answer
	// AdmitBlock).
	Blocked []bool
}

// Status returns a copy of what the task knows. It allocates: call it when
// something wants to look, never per record.
func (t *Task) Status() TaskStatus {
	st := TaskStatus{
		RestoredFrom: t.restoredFrom,
		LastNotified: t.lastNotified,
		Finished:     t.finished,
		Open:         slices.Clone(t.inputOpen),
		Blocked:      make([]bool, len(t.action)),
	}
	st.Aligning, _ = t.aligning()
	for i := range st.Blocked {
		st.Blocked[i] = t.blocked(i)
	}
	return st
}
