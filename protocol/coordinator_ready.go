package protocol

// Durable is what a coordinator incarnation finds in durable storage: the id
// counter and the completed-checkpoint store. A fresh job passes the zero
// value; a recovering coordinator passes what the host read back.
type Durable struct {
	_ struct{}
	// HighestID is the stored id counter: every id up to it may have been
	// used, so the new incarnation continues at HighestID+1.
	HighestID CheckpointID
	// Completed holds the completed-checkpoint store, in any order.
	Completed []CompletedCheckpoint
	// Restored is the checkpoint of an earlier job this job was started from, and how
	// (RestoreMode). The host keeps it with the job, as Flink keeps a job's restore
	// settings with its job graph, and passes it to every incarnation of the coordinator.
	// Completed must hold that checkpoint until the job's own checkpoints subsume it, and
	// nothing of the earlier job's besides.
	Restored Restored
}

// TriggeredCheckpoint reports that a checkpoint's triggers were sent
// (trace kind checkpoint.trigger).
type TriggeredCheckpoint struct {
	_    struct{}
	ID   CheckpointID
	Kind Kind
	Mode Mode
	At   Time
	// Unassigned is the split enumerator's state in the checkpoint: the
	// splits no reader had been given as its triggers went out.
	Unassigned []string
	// Periodic says the periodic schedule triggered the checkpoint; a
	// checkpoint asked for outside it (TriggerCheckpoint, the final
	// checkpoint of a finished job) and a savepoint are not periodic.
	// MinPause and Interval pace the periodic ones only.
	Periodic bool
	// RequestedAt is when the coordinator decided to take the checkpoint
	// and reserved its id: MinPause and Interval are judged there, and the
	// counter write (and, for a savepoint, the wait for a slot) lies
	// between it and At.
	RequestedAt Time
}

// String renders "cp=n kind mode t=at".
func (t TriggeredCheckpoint) String() string {
	return "cp=" + t.ID.String() + " " + t.Kind.String() + " " + t.Mode.String() + " t=" + t.At.String()
}

// FailoverPlan asks the host to restart every task of the job. Restore is
// the checkpoint to restore from: the latest completed checkpoint that is
// not a savepoint, or nil for a fresh start. Tasks whose snapshot in it is
// Final are restored as finished (they exit at once).
type FailoverPlan struct {
	_       struct{}
	Reason  Reason
	Restore *CompletedCheckpoint
}

// String renders "reason=r restore=n" (0 for a fresh start).
func (p FailoverPlan) String() string {
	id := CheckpointID(0)
	if p.Restore != nil {
		id = p.Restore.ID
	}
	return "reason=" + p.Reason.String() + " restore=" + id.String()
}

// CoordinatorReady is what the coordinator asks its host to do. Fields are
// listed in the order the host should handle them, but for Triggered,
// Completed and Aborted: the host traces those before it sends Messages,
// which carry their triggers and notifications (a notification traced
// before its checkpoint.complete reads as visible before durable). The
// package documentation explains why each ordering matters. The slices
// belong to the caller once Ready returns them.
type CoordinatorReady struct {
	_ struct{}
	// CounterWrites: persist the id counter as this value (a write of a
	// larger value may replace a pending smaller one). Confirm each with
	// CounterPersisted. The checkpoint with this id is triggered only after
	// the confirmation, so no id is ever used before it is durable.
	CounterWrites []CheckpointID
	// MetadataWrites: add each checkpoint to the completed-checkpoint
	// store. Confirm each with MetadataPersisted. Only then is it complete.
	MetadataWrites []CompletedCheckpoint
	// Messages to send to tasks (triggers, notifications), after tracing
	// Triggered, Completed and Aborted. None of them depends on a write
	// of this Ready: the coordinator only emits a message once the writes
	// it depends on were confirmed.
	Messages []Message
	// Triggered lists checkpoints whose triggers are in Messages.
	Triggered []TriggeredCheckpoint
	// Completed lists checkpoints that became durably complete (their
	// metadata write was confirmed), oldest first. Trace each
	// (checkpoint.complete) before sending Messages: they hold its
	// completion notifications.
	Completed []CompletedCheckpoint
	// Aborted lists checkpoints that ended without completing.
	Aborted []Abort
	// Discarded lists completed checkpoints that fell out of retention:
	// remove them from the store. Their state is not deleted because of
	// it: what no other checkpoint holds is listed in Released. Each is
	// emitted only after the newer checkpoint that replaced it is durable.
	Discarded []CompletedCheckpoint
	// Released lists uploaded task state that nothing will use (the state
	// of discarded and aborted checkpoints; late, duplicate and unknown
	// acks): delete it, idempotently. It never names state a pending or
	// retained checkpoint or a completed savepoint holds, nor the final
	// snapshot of a completed checkpoint (savepoints may share it).
	Released []StateRelease
	// Failover, when set, asks the host to restart the job from the plan
	// and then call JobRestarted.
	Failover *FailoverPlan
	// JobFinished is set once, when every task has fully finished (its
	// final snapshot is in a completed checkpoint).
	JobFinished bool
}

// IsEmpty reports whether the Ready asks for nothing.
func (rd *CoordinatorReady) IsEmpty() bool {
	return len(rd.CounterWrites) == 0 && len(rd.MetadataWrites) == 0 && len(rd.Messages) == 0 &&
		len(rd.Triggered) == 0 && len(rd.Completed) == 0 && len(rd.Aborted) == 0 &&
		len(rd.Discarded) == 0 && len(rd.Released) == 0 && rd.Failover == nil && !rd.JobFinished
}
