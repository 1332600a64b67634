package checker

// taskRules are about what tasks do with barriers, triggers and cancel markers, and about
// the snapshots they take.
var taskRules = []Rule{
	{
		ID: "T1", Name: "cut.consistent", Property: PropConsistentCut,
		Says:     "Every completed checkpoint is a consistent cut: for each channel, what the receiver consumed plus what it saved as channel state plus what the sender saved as output channel state is what the sender sent before its snapshot.",
		Evidence: "snapshot.taken and snapshot.carried of every task before checkpoint.complete, with their channel counts",
		Without:  "unknown: a completed checkpoint without snapshots, a channel counted at neither end, or, in a cut that lists recorded messages, a channel counted without its list",
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
	{
		ID: "T5", Name: "task.answers-trigger", Property: PropBarrierHandling,
		Says:     "A task that takes a trigger of checkpoint n in answers it at once, before it takes anything else in: it snapshots n (barrier.send n on its outputs, or snapshot.taken n) or declines n; a duplicate of a trigger it answered, or one of a checkpoint it knows ended, owes nothing.",
		Evidence: "trigger.recv, then the task's snapshot.taken, barrier.send or snapshot.decline of n before its next trigger.recv, barrier.recv, marker.recv, notify.* or record.recv; snapshot.ack, notify.abort, notify.complete and task.restore for what it knew",
		Without:  "unknown: checkpoint.trigger without any trigger.recv; unexercised when no task took a trigger in",
		Covers:   []string{"Msg.trigger"},
		Flink:    "Task.triggerCheckpointBarrier, which declines a trigger it cannot act on (CHECKPOINT_DECLINED_TASK_NOT_READY)",
	},
	{
		ID: "T6", Name: "channel.ids-increase", Property: PropBarrierHandling,
		Says:     "On one channel the barriers and cancel markers a sender incarnation sends carry increasing checkpoint ids: each names a newer checkpoint than the last, save that a cancel marker may follow the barrier of its own checkpoint (a task giving up what it already forwarded).",
		Evidence: "barrier.send and marker.send per task and to, task.restore, task.crash, task.finish, job.failover",
		Without:  "unexercised when no task sent a barrier or cancel marker",
		Flink:    "CheckpointBarrierHandler, whose newer barrier or cancel marker proves an older barrier will never come on that channel",
	},
	{
		ID: "T7", Name: "cancel.on-give-up", Property: PropBarrierHandling,
		Says:     "A task that gives up a checkpoint after its barrier came (it declines it, or is told it aborted while still aligning it) sends a cancel marker of it on every output that carried no barrier or cancel marker of it or of a newer one: at once after a decline, and after an abort notice at once or when the abandoned alignment would have completed, as Flink does; the marker may wait while an older checkpoint the task still aligns has not gone to that output (or while a newer marker it owes there waits so), and follows it at once.",
		Evidence: "barrier.recv (of a checkpoint newer than all the task knew), then snapshot.decline or notify.abort, and marker.send per output before the task's next input; barrier.send and marker.send for what each output carried",
		Without:  "unknown: a give-up owes a cancel marker in a trace without any marker.send or marker.recv",
		Covers:   []string{"Event.cancel-marker"},
		Flink:    "SubtaskCheckpointCoordinatorImpl.abortCheckpointOnBarrier, which declines and broadcasts a CancelCheckpointMarker; FLINK-18238 for the abort notice",
	},
	{
		ID: "T8", Name: "cancel.on-marker", Property: PropBarrierHandling,
		Says:     "A cancel marker of n ends n and every older checkpoint at the task, whatever input it came on: no barrier or snapshot of them follows it; and when n was newer than all the task knew, or is the checkpoint it was aligning, the task declines n and sends a cancel marker of n on every output still waiting for it, at once.",
		Evidence: "marker.recv, snapshot.decline, marker.send, barrier.send, snapshot.taken, barrier.recv, trigger.recv, notify.abort, notify.complete, task.restore",
		Without:  "unknown: marker.send followed by a newer barrier on its channel, but no marker.recv in the trace",
		Covers:   []string{"Event.cancel-marker"},
		Flink:    "SingleCheckpointBarrierHandler.processCancellationBarrier and CheckpointBarrierTracker.processCancellationBarrier (CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)",
	},
	{
		ID: "T9", Name: "cancel.on-known-abort", Property: PropBarrierHandling,
		Says:     "A barrier, trigger or cancel marker of a checkpoint the task was told aborted (and nothing newer came in before it) makes the task send a cancel marker of it on every output that carried nothing of it or newer, at once for a trigger or marker and, for a barrier, at once or when the alignment would have completed, as Flink does; the task never forwards that checkpoint's barrier nor snapshots it.",
		Evidence: "notify.abort, then barrier.recv, trigger.recv or marker.recv of the checkpoint, marker.send per output before the next input; barrier.send and snapshot.taken after notify.abort",
		Without:  "unknown: a barrier owes a cancel marker in a trace without any marker.send or marker.recv",
		Covers:   []string{"Event.cancel-marker"},
		Flink:    "FLINK-18238",
	},
	{
		ID: "T10", Name: "alignment.newer-barrier", Property: PropBarrierHandling,
		Says:     "A barrier of n taken in on an input where an older checkpoint the task is aligning has had no barrier ends that checkpoint at the task, since its barrier can no longer come on that channel: the task declines it at once, before it takes anything else in (and before the trace moves on in time, when the alignments block every input and nothing comes in), and never snapshots it.",
		Evidence: "barrier.recv per task and from (the older checkpoint's, then n's), then snapshot.decline of the older one before the task's next input or the trace's end; snapshot.taken after",
		Without:  "unexercised when no newer barrier overtook an alignment",
		Covers:   []string{"Reason.newer-barrier"},
		Flink:    "SingleCheckpointBarrierHandler, which aborts the checkpoint in progress when a newer barrier comes (CHECKPOINT_DECLINED_SUBSUMED); FLINK-2427 for the tests that pin it",
	},
}
