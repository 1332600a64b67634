package checker

// The listener contract's rules, which its violations name.
const (
	ruleNotifyInOrder       = "notify.in-order"
	ruleNotifyAfterComplete = "notify.after-complete"
	ruleNotifyNotAfterExit  = "notify.not-after-exit"
	ruleCommitAfterNotify   = "commit.after-notify"
	ruleNotifyEventually    = "notify.eventually"
)

// listenerRules are the checkpoint-listener contract, per task incarnation.
var listenerRules = []Rule{
	{
		ID: "L1", Name: ruleNotifyInOrder, Property: PropListenerContract,
		Says:     "Completion notifications to one incarnation strictly increase and exceed the id it was restored from, so each comes at most once; no abort notification names a checkpoint at or below either.",
		Evidence: "notify.complete, notify.abort, task.restore, task.crash",
		Without:  "unexercised when no listener was called",
		Covers:   []string{"Msg.notify-complete"},
		Flink:    "CheckpointListener",
	},
	{
		ID: "L2", Name: ruleNotifyAfterComplete, Property: PropListenerContract,
		Says:     "A completion notification for n comes only after checkpoint.complete n, never for an aborted checkpoint or a savepoint; an abort notification never names a completed checkpoint, and no checkpoint both completes and aborts.",
		Evidence: "notify.complete, notify.abort, checkpoint.complete, checkpoint.abort, checkpoint.trigger (savepoint)",
		Without:  "unexercised when no listener was called",
		Flink:    "FLINK-25191",
	},
	{
		ID: "L3", Name: ruleNotifyNotAfterExit, Property: PropListenerContract,
		Says:     "No notification reaches a task that exited: after its task.finish, or after the notification of the checkpoint that carries its final snapshot.",
		Evidence: "task.finish, snapshot.carried, notify.*",
		Without:  "unexercised when no listener was called",
		Covers:   []string{"Msg.task-finished"},
		Flink:    "FLINK-16383",
	},
	{
		ID: "L4", Name: ruleCommitAfterNotify, Property: PropListenerContract,
		Says:     "A two-phase-commit sink commits checkpoint n's transaction only after a completion notification of some m >= n in the same incarnation, or in one restored from such an m; a repeated commit never takes effect again.",
		Evidence: "sink.commit with cp and records, notify.complete, task.restore",
		Without:  "unexercised when no listener was called",
		Flink:    "TwoPhaseCommitSinkFunction, FLINK-8086",
	},
	{
		ID: "L5", Name: ruleNotifyEventually, Property: PropListenerContract,
		Says:     "Once faults stop, every live task is notified of, or restored from, the latest completed checkpoint within a bound of its completion.",
		Evidence: "phase, checkpoint.complete, notify.complete, task.restore, Liveness.NotifyMaxNanos",
		Without:  "not judged without the bound: a zero bound is none",
		Flink:    "FLINK-21080",
	},
	{
		ID: "L6", Name: ruleTransactionsBounded, Property: PropListenerContract,
		Says:     "A two-phase-commit sink holds at most MaxPendingTransactions pre-committed transactions that are neither committed, aborted nor tied to a checkpoint it was told aborted; past that it declines the checkpoint (too-many-pending) rather than open another.",
		Evidence: "sink.precommit, sink.commit, sink.abort and notify.abort per sink incarnation, Reference.Policy.MaxPendingTransactions",
		Without:  "not judged: the reference does not give the bound",
		Covers:   []string{"Reason.too-many-pending"},
		Flink:    "FlinkKafkaProducer's producer pool (kafkaProducersPoolSize): a checkpoint that needs one more producer than the pool holds fails",
	},
}
