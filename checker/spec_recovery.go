package checker

// ruleStoreRecoversLatest is durable-before-visible's rule for the store's history.
const ruleStoreRecoversLatest = "store.recovers-latest"

// recoveryRules are about failover, restore and the completed-checkpoint store.
var recoveryRules = []Rule{
	{
		ID: "R1", Name: ruleRestoreFromCompleted, Property: PropRestoreFidelity,
		Says:     "A task restored from checkpoint n gets the state its snapshot for n held, n completed before the restore and is no savepoint; a job.failover names a completed checkpoint too. A task of a job rescaled from n (task.restore rescaled-from) takes its state from snapshots that were taken for n.",
		Evidence: "task.restore with state (or rescaled-from), snapshot.taken and snapshot.carried with state, checkpoint.complete, checkpoint.trigger (savepoint)",
		Without:  "unknown: a state digest on one side only; unexercised without a restore from a checkpoint",
		Covers:   []string{"Kind.savepoint"},
	},
	{
		ID: "R2", Name: ruleStoreRecoversLatest, Property: PropDurableVisible,
		Says:     "A recovered coordinator reads back the latest durably completed checkpoint: never one behind a checkpoint whose completion was made visible or had become durable, never an id that was not written.",
		Evidence: "checkpoint.persist, checkpoint.complete, coordinator.crash, coordinator.recover, notify.complete, sink.commit",
		Without:  "unknown: porcupine could not decide the history in its budget",
		Covers:   []string{"Reason.coordinator-recovery", "Config.RetainedCheckpoints"},
		Flink:    "CompletedCheckpointStore, FLINK-31077",
	},
	{
		ID: "R3", Name: "recovery.bounded", Property: PropRecoveryBound,
		Says:     "After every job.failover a checkpoint (not a savepoint) completes, or the job finishes, within a bound, unless a fault strikes meanwhile.",
		Evidence: "job.failover, checkpoint.complete, task.finish, Liveness.RecoveryMaxNanos",
		Without:  "unknown without the bound (left out by default); unexercised without a failover",
		Flink:    "FLINK-13256",
	},
	{
		ID: "R4", Name: ruleFailoverHasCause, Property: PropFailoverCause,
		Says:     "Every job.failover follows its cause since the job last failed over (a task.crash for task-failure, a coordinator.crash for coordinator-recovery, an aborted stop-with-savepoint with drain for drain-failed; the failure count for tolerable-failures-exceeded), and a snapshot that cannot be uploaded declines its checkpoint: a task never fails because of its own upload.",
		Evidence: "job.failover with its reason, task.crash (reason: it failed by itself), coordinator.crash, checkpoint.trigger (drain), checkpoint.abort, snapshot.taken, snapshot.ack, snapshot.decline, notify.abort, notify.complete, state.release, task.restore, fault (storage.fail, storage.unavailable; external faults)",
		Without:  "unexercised without a failover and without a task failing by itself while it uploads; not judged: a failover for a reason of another engine, a failure while an external fault is in force too",
		Covers:   []string{"Reason.task-failure", "Reason.coordinator-recovery", "Reason.upload-failed"},
		Flink:    "AsyncCheckpointRunnable (CHECKPOINT_ASYNC_EXCEPTION), CheckpointFailureManager",
	},
	{
		ID: "R5", Name: ruleStateKept, Property: PropStateRelease,
		Says:     "No state.release names a snapshot that a retained checkpoint (one of the latest RetainedCheckpoints completed, by id) or a completed savepoint holds, across coordinator crashes and recoveries, and none completes holding released state; nor a task's snapshot of a pending checkpoint or savepoint before the task gave it up (declined it, was told it aborted, or, for a checkpoint, heard of a newer completion).",
		Evidence: "state.release, snapshot.ack, snapshot.taken, snapshot.carried, snapshot.decline, notify.abort, notify.complete, checkpoint.complete, checkpoint.abort, coordinator.recover, checkpoint.trigger (savepoint), Reference.Policy.RetainedCheckpoints",
		Without:  "unknown: the reference gives no retained count, or snapshots were acked but no state.release traced; unexercised without acks or releases",
		Covers:   []string{"Config.RetainedCheckpoints", "Kind.savepoint"},
		Flink:    "CompletedCheckpointStore (subsumption), CheckpointProperties.forSavepoint (never discarded)",
	},
	{
		ID: "R6", Name: ruleStateReleased, Property: PropStateRelease,
		Says:     "Once the job has finished, every acked snapshot (late and duplicate acks and those of aborted checkpoints included) that no retained checkpoint or completed savepoint holds has been released, but for what is left by design: a final snapshot (savepoints may share it, so the protocol leaves it to the host, to delete with the job), state a coordinator crash orphaned (a checkpoint pending at the crash, or one discarded just before it, or an ack sent while no coordinator incarnation ran, as a new JobManager leaves the old one's), and an ack the coordinator may not have heard of (lost or delayed by a fault while on its way, or sent by a task that crashed). An ack of a task attempt a failover replaced is owed a release like any late ack, as Flink's coordinator discards it.",
		Evidence: "as state.kept, and snapshot.ack (final), checkpoint.abort, coordinator.crash, job.failover, task.crash, task.finish, fault (net.*, pause.host, crash.host)",
		Without:  "unknown as state.kept; not judged while the job has not finished; unexercised when nothing was owed a release and none traced",
		Covers:   []string{"Reason.subsumed", "Reason.expired"},
		Flink:    "CheckpointCoordinator.discardSubtaskState, PendingCheckpoint.abort",
	},
	{
		ID: "R7", Name: rulePiecesKept, Property: PropStateRelease,
		Says:     "No piece.release deletes a shared piece of incremental state while a snapshot that a retained checkpoint or a completed savepoint holds refers to it (snapshot.taken lists its pieces), across coordinator crashes and recoveries; and no checkpoint or savepoint completes holding a snapshot that refers to a deleted piece, so a restore reads only pieces that exist. Where the trace ends with the storage's own listing (state.live), every piece a retained checkpoint or savepoint refers to is in it.",
		Evidence: "piece.release, snapshot.taken (pieces), state.live when the storage is listed, and the evidence of state.kept",
		Without:  "as state.kept; unexercised without incremental snapshots",
		Covers:   []string{"Reason.shared-state-gone"},
		Flink:    "SharedStateRegistryImpl (FLINK-24611, FLINK-29913)",
	},
	{
		ID: "R8", Name: rulePiecesReleased, Property: PropStateRelease,
		Says:     "Once the job has finished, every shared piece an acked snapshot referred to that no retained checkpoint or completed savepoint refers to has been deleted, but for the pieces of snapshots whose state state.released leaves by design (a final snapshot's, state a coordinator crash orphaned, an ack the coordinator may not have heard of). While the job runs, a piece that nothing has held since a checkpoint fell out of retention is deleted before 2 more checkpoints complete with no coordinator crash between. Where the trace ends with the storage's own listing (state.live), no piece deleted is still stored, unless whoever deleted it may have died first (a coordinator crash, or the end of its task's incarnation, after the delete). Pieces first listed by a task's first snapshot after a restore from a checkpoint the trace does not show (an external one) may be that checkpoint's, and are not owed. The verdict's note says how many pieces are live at the end, and what the storage holds.",
		Evidence: "as pieces.kept, and the evidence of state.released",
		Without:  "unknown: pieces owed a release but no piece.release traced at all; deletes taken as done without state.live",
		Flink:    "SharedStateRegistryImpl.unregisterUnusedState",
	},
	{
		ID: "R9", Name: ruleRestoreOwnership, Property: PropStateRelease,
		Says:     "After a job.resubmit from checkpoint n, the stopped job's retained checkpoints are the user's: no state.release or piece.release deletes what they hold, ever; nor what n holds, unless the restore claimed n (mode claim), which makes n the new job's first retained checkpoint.",
		Evidence: "job.resubmit with mode, and the evidence of state.kept and pieces.kept",
		Without:  "as state.kept; unexercised without a resubmission",
		Covers:   []string{"RestoreMode.claim", "RestoreMode.legacy"},
		Flink:    "RestoreMode (CLAIM, NO_CLAIM, LEGACY), FLINK-26985",
	},
	{
		ID: "R10", Name: ruleRestoreNoClaim, Property: PropStateRelease,
		Says:     "After a job.resubmit from checkpoint n in mode no-claim, no checkpoint completes holding a snapshot the new job took that refers to a piece n refers to: the new job's first checkpoint is a full one, so that the user may delete n once it completed.",
		Evidence: "job.resubmit with mode, snapshot.taken (pieces), checkpoint.complete",
		Without:  "unexercised without a no-claim resubmission",
		Covers:   []string{"RestoreMode.no-claim"},
		Flink:    "RestoreMode.NO_CLAIM (the first checkpoint after the restore is a full one)",
	},
	{
		ID: "R11", Name: ruleKeyGroupsOnce, Property: PropRestoreFidelity,
		Says:     "After a rescale (job.resubmit with tasks), each time the rescaled job restores from checkpoint n and every task it lists has restored, every key group a snapshot of n held (snapshot.taken keygroups) is restored exactly once: by one task.restore that lists that snapshot in rescaled-from and owns the group (its keygroups), so that no key's state is lost or counted twice.",
		Evidence: "job.resubmit with tasks, job.failover, task.restore with rescaled-from and keygroups, snapshot.taken with keygroups",
		Without:  "not judged: a round of restores a crash, failover or resubmission cut short (unknown when no round is whole), restores that name no key groups; unexercised without a rescaled restore",
		Flink:    "StateAssignmentOperation, KeyGroupRangeAssignment (FLINK-19748, FLINK-26063)",
	},
	{
		ID: "R12", Name: ruleChannelStateOnce, Property: PropRestoreFidelity,
		Says:     "After a rescale, each time the rescaled job restores from checkpoint n and every task it lists has restored, the records in flight that each snapshot of n held (snapshot.taken chan.* and out.* counts) are replayed exactly once: the counts the round's task.restore events give for that snapshot in replayed add up to its records, and no restore replays records of a task that took no snapshot for n. The new job's channels are new, so no record of the old ones is replayed on its own channel: lost or doubled records in flight show here even where the output could not tell.",
		Evidence: "job.resubmit with tasks, job.failover, task.restore with rescaled-from and replayed, snapshot.taken with chan.* and out.*",
		Without:  "a whole round from a checkpoint with channel state whose restores do not all carry replayed is judged for records replayed twice only, and leaves the property unknown, as do records replayed from a snapshot without chan.* or out.* counts; rescaled restores in no whole round (a crash, failover or resubmission cut each short) leave it unknown; unexercised without a rescaled restore",
		Flink:    "StateAssignmentOperation.reDistributeInputChannelStates/ResultSubpartitionStates, InflightDataRescalingDescriptor (FLINK-19801, FLINK-31963)",
	},
	{
		ID: "R13", Name: ruleUnionEverywhere, Property: PropRestoreFidelity,
		Says:     "After a rescale, each time the rescaled job restores from checkpoint n and every task it lists has restored, union list state reaches every task: a restore that keeps entries of a union state (union.<state> on task.restore) read every snapshot of n that holds entries of it (rescaled-from), and every entry those snapshots held (union.<state> on snapshot.taken, key:value items) is kept by exactly one restore of the round, with the value the snapshot held, and no restore keeps an entry none held. An entry is held by one snapshot of a checkpoint, and no restore keeps entries of a union state no snapshot of n holds.",
		Evidence: "job.resubmit with tasks, job.failover, task.restore with rescaled-from and union.<state>, snapshot.taken with union.<state>",
		Without:  "unknown: a whole round from a checkpoint whose snapshots hold a union state no restore says it kept, and rescaled restores in no whole round; unexercised without a rescaled restore",
		Flink:    "OperatorStateHandle.Mode.UNION, RoundRobinOperatorStateRepartitioner, FlinkKafkaConsumerBase (FLINK-6006, FLINK-7143)",
	},
}
