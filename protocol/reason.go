package protocol

// Reason says why a checkpoint was declined by a task or aborted by the
// coordinator or a task. The same values serve both, so an abort caused by a
// decline carries the task's reason unchanged into traces.
type Reason uint8

const (
	// ReasonExpired: the checkpoint was not complete within Config.Timeout.
	ReasonExpired Reason = iota + 1
	// ReasonUploadFailed: a task could not write its snapshot to storage.
	ReasonUploadFailed
	// ReasonChannelStateOverflow: a task recorded more than
	// Config.MaxBufferedRecords records as channel state for one checkpoint.
	ReasonChannelStateOverflow
	// ReasonTooManyPending: a task already had Config.MaxPendingCheckpoints
	// snapshots in flight.
	ReasonTooManyPending
	// ReasonNewerBarrier: a task saw a barrier (or trigger) of a newer
	// checkpoint while still aligning this one, so this one can no longer
	// be a consistent cut at that task.
	ReasonNewerBarrier
	// ReasonCanceled: a task received a cancel marker for the checkpoint.
	ReasonCanceled
	// ReasonAborted: the coordinator told the task the checkpoint was
	// aborted (a NotifyAborted message).
	ReasonAborted
	// ReasonPersistFailed: the coordinator could not write the completed
	// checkpoint's metadata, so it never became durable.
	ReasonPersistFailed
	// ReasonTriggerFailed: the coordinator could not persist the id counter
	// for the checkpoint, so it was never triggered. The write is I/O, and
	// an I/O failure while triggering is Flink's IO_EXCEPTION, which counts.
	ReasonTriggerFailed
	// ReasonSubsumed: a newer checkpoint completed first; the older pending
	// one is no longer needed.
	ReasonSubsumed
	// ReasonFailover: the job is failing over; all pending checkpoints end.
	ReasonFailover
	// ReasonTaskFailure: the host reported a task failure (used with
	// Coordinator.RequestFailover).
	ReasonTaskFailure
	// ReasonTolerableFailuresExceeded: more consecutive checkpoint
	// failures than Config.TolerableFailures (a failover reason).
	ReasonTolerableFailuresExceeded
	// ReasonCoordinatorRecovery: the job restarts because the coordinator
	// was recovered (a failover reason the host may pass).
	ReasonCoordinatorRecovery
	// ReasonTaskFinished: a finished task exited (its final snapshot is in
	// a completed checkpoint) and gave up the snapshots and alignments it
	// still had in progress; the coordinator uses its final snapshot for
	// those checkpoints instead.
	ReasonTaskFinished
	// ReasonJobFinished: the job finished (a completed snapshot showed every
	// task done and nothing in flight) while the checkpoint was still waiting
	// to start or in progress; nothing is left for it to record. A host that
	// ends a job says so of every checkpoint it leaves behind.
	ReasonJobFinished
	// ReasonSharedStateGone: a task's incremental snapshot reused a shared
	// piece that no retained checkpoint or acked snapshot held any more, so
	// the coordinator may have released it. The task built on a checkpoint
	// that was subsumed before its ack came in; told of the abort, it
	// uploads its pieces afresh next time. Not a failure: the race ends once
	// the task hears of the newer checkpoint.
	ReasonSharedStateGone
	// ReasonDrainFailed: a stop-with-savepoint with drain aborted after its
	// sources ended their input; they cannot read on, so the job fails over
	// (a failover reason).
	ReasonDrainFailed
	// ReasonSplitsInFlight: a reader of a split source had not received
	// every split the coordinator sent it before the checkpoint's trigger,
	// so its snapshot would miss a split the enumerator no longer holds.
	ReasonSplitsInFlight
)

// CountsAsFailure reports whether an abort for this reason counts towards
// Config.TolerableFailures. The classification is Flink's (its checkpoint
// failure manager): a checkpoint that expired, a snapshot that could not be
// written (an asynchronous failure), a decline because something is wrong at
// a task, metadata that could not be finalized, and an id counter that could
// not be written count. The last is an I/O failure while triggering, which
// Flink's coordinator reports as IO_EXCEPTION rather than as the uncounted
// TRIGGER_CHECKPOINT_FAILURE: a job whose counter store keeps failing makes
// no progress, and must fail over like one whose snapshots keep failing. A
// checkpoint that was subsumed, ended by a failover or a finished job,
// overtaken by a newer barrier or cancelled did not fail, it was no longer
// needed.
func (r Reason) CountsAsFailure() bool {
	switch r {
	case ReasonExpired, ReasonUploadFailed, ReasonChannelStateOverflow,
		ReasonTooManyPending, ReasonPersistFailed, ReasonTriggerFailed:
		return true
	}
	return false
}
