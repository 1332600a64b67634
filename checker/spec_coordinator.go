package checker

// coordinatorRules are about the checkpoint coordinator: triggers, completion, aborts and
// the failure budget.
var coordinatorRules = []Rule{
	{
		ID: "C1", Name: "checkpoint.ends", Property: PropCheckpointOutcome,
		Says:     "Every checkpoint asked for ends once: with checkpoint.complete or with checkpoint.abort and a reason, unless its coordinator crashed first; none is still pending when the job has ended.",
		Evidence: "checkpoint.request (or checkpoint.trigger), checkpoint.complete, checkpoint.abort, coordinator.crash, task.finish",
		Without:  "unknown without any request; unexercised when none ended",
		Covers:   []string{"Reason.job-finished", "Reason.task-finished", "Kind.checkpoint", "Msg.ack"},
		Flink:    "CheckpointCoordinator.abortPendingCheckpoints",
	},
	{
		ID: "C2", Name: "failure.budget", Property: PropFailureAccounting,
		Says:     "A checkpoint failure counts towards the budget when its reason is expired, upload-failed, persist-failed, channel-state-overflow or too-many-pending, once per id and only above the latest completed checkpoint; a subsumed, cancelled, overtaken, failed-over or finished checkpoint, and a savepoint, count nothing; a newer completion, a failover and a coordinator crash start the count again; the job fails over for tolerable-failures-exceeded exactly when the count exceeds the budget, never within it, and no checkpoint is triggered after the budget was exceeded without a failover in between.",
		Evidence: "checkpoint.abort reasons, checkpoint.trigger, checkpoint.complete, job.failover with its reason, coordinator.crash, Reference.Policy.TolerableFailures",
		Without:  "unknown: the reference does not give the budget, or an abort's reason is unknown",
		Covers: []string{"Config.TolerableFailures", "Reason.expired", "Reason.upload-failed", "Reason.persist-failed",
			"Reason.channel-state-overflow", "Reason.too-many-pending", "Config.MaxPendingCheckpoints", "Config.MaxBufferedRecords", "Reason.subsumed", "Reason.canceled",
			"Reason.newer-barrier", "Reason.aborted", "Reason.trigger-failed", "Reason.failover",
			"Reason.tolerable-failures-exceeded"},
		Flink: "CheckpointFailureManager.checkFailureCounter",
	},
	{
		ID: "C3", Name: "trigger.not-in-failover", Property: PropNoTriggerInFailover,
		Says:     "No checkpoint is triggered between a job.failover and the restore of every job task.",
		Evidence: "job.failover, task.restore, checkpoint.trigger",
		Without:  "unexercised without a job.failover; unknown without a task.restore before it",
		Flink:    "FLINK-13969",
	},
	{
		ID: "C4", Name: "failover.no-pending", Property: PropNoPendingAcrossFailover,
		Says:     "At a job.failover no checkpoint its coordinator triggered is still pending: each completed or aborted (reason failover) before it.",
		Evidence: "job.failover, checkpoint.trigger, checkpoint.complete, checkpoint.abort",
		Without:  "unexercised without a failover",
		Covers:   []string{"Reason.task-failure"},
	},
	{
		ID: "C5", Name: "trigger.not-after-finish", Property: PropNoTriggerAfterFinish,
		Says:     "No checkpoint is triggered once every job task's last lifecycle event is task.finish.",
		Evidence: "task.restore, task.finish, checkpoint.trigger",
		Without:  "unexercised in a job that never finished",
	},
}
