package checker

// ruleStoreRecoversLatest is durable-before-visible's rule for the store's history.
const ruleStoreRecoversLatest = "store.recovers-latest"

// recoveryRules are about failover, restore and the completed-checkpoint store.
var recoveryRules = []Rule{
	{
		ID: "R1", Name: "restore.from-completed", Property: PropRestoreFidelity,
		Says:     "A task restored from checkpoint n gets the state its snapshot for n held, n completed before the restore and is no savepoint; a job.failover names a completed checkpoint too.",
		Evidence: "task.restore with state, snapshot.taken and snapshot.carried with state, checkpoint.complete, checkpoint.trigger (savepoint)",
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
}
