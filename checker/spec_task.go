package checker

// taskRules are about what tasks do with barriers, triggers and cancel markers, and about
// the snapshots they take.
var taskRules = []Rule{
	{
		ID: "T1", Name: "cut.consistent", Property: PropConsistentCut,
		Says:     "Every completed checkpoint is a consistent cut: for each channel, what the receiver consumed plus what it saved as channel state plus what the sender saved as output channel state is what the sender sent before its snapshot.",
		Evidence: "snapshot.taken and snapshot.carried of every task before checkpoint.complete, with their channel counts",
		Without:  "unknown: a completed checkpoint without snapshots, or a channel counted at neither end",
		Covers:   []string{"Config.Mode", "Mode.aligned", "Mode.unaligned", "Event.barrier"},
		Flink:    "Carbone et al., Lightweight Asynchronous Snapshots for Distributed Dataflows",
	},
	{
		ID: "T2", Name: "cut.as-expected", Property: PropExpectedSnapshot,
		Says:     "Each global snapshot the reference expects completes with the expected tokens per process and the expected messages per channel.",
		Evidence: "Reference.Snapshots, the cut as for cut.consistent, tokens and chanmsgs",
		Without:  "unknown: an expected snapshot never completed, or its cut lacks a count it needs",
	},
	{
		ID: "T3", Name: "alignment.switches-in-time", Property: PropAlignmentTimeout,
		Says:     "A task aligning with a timeout forwards the barrier within the timeout plus a bound of receiving its first one, while no fault is in force.",
		Evidence: "barrier.recv, barrier.send, snapshot.taken, Reference.Policy.AlignmentTimeoutNanos, Liveness.SwitchMaxNanos",
		Without:  "unknown without the timeout or the bound (left out by default)",
		Covers:   []string{"Config.AlignmentTimeout", "Mode.aligned-with-timeout"},
		Flink:    "AlternatingWaitingForFirstBarrierUnaligned",
	},
	{
		ID: "T4", Name: "abort.reaches-tasks", Property: PropAbortReach,
		Says:     "When the coordinator aborts a checkpoint, every live task that took part is notified of the abort, or of a newer completion, within a bound, while no fault is in force.",
		Evidence: "checkpoint.abort, barrier.send, barrier.recv, snapshot.*, notify.abort, notify.complete, Liveness.AbortReachMaxNanos",
		Without:  "unknown without the bound (left out by default)",
		Covers:   []string{"Msg.notify-aborted"},
		Flink:    "CheckpointCoordinator.sendAbortedMessages",
	},
}
