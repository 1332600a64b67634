package checker

// traceRules are about the trace itself and about a run as a whole.
var traceRules = []Rule{
	{
		ID: "G1", Name: "trace.well-formed", Property: PropWellFormed,
		Says:     "Sequence numbers count from 0 by one, virtual time never goes back, and every event has exactly the fields and attributes its kind's schema gives it, with values of their form (counts are non-negative integers; chanmsgs.* lists them; replayed lists task:count items, union.* key:value items).",
		Evidence: "every event",
		Without:  "unknown: the trace holds no events",
	},
	{
		ID: "G2", Name: "trace.deterministic", Property: PropDeterminism,
		Says:     "The same scenario and seed give the same trace, event for event.",
		Evidence: "Reference.TraceHash and the trace as written",
		Without:  "unknown: the reference has no hash",
		Covers:   []string{"Config.JitterSeed", "Config.Random"},
	},
	{
		ID: "G3", Name: "task.fails-for-a-cause", Property: PropFailureCause,
		Says:     "A task fails by itself only after something that can make a healthy task fail: an external-system fault, a failover or a coordinator crash, or a storage fault while it restores (once it runs, a failed upload declines instead); the coordinator never fails by itself.",
		Evidence: "task.crash and coordinator.crash with a reason, fault, job.failover, coordinator.crash, task.restore",
		Without:  "unexercised: no task.crash with a reason",
		Flink:    "FLINK-10377",
	},
	{
		ID: "G4", Name: "engine.keeps-the-contract", Property: PropContract,
		Says:     "Engine and protocol never disagree about the contract between them: the protocol hands the engine nothing it rules out (a second snapshot request for a checkpoint, channel state or a seal for a snapshot that records none, a restore without the task's snapshot, an error where it promises none, a panic), and an engine that meets one traces contract.broken and halts rather than go on or crash.",
		Evidence: "contract.broken (task cp; what, detail)",
		Without:  "unknown: the trace holds no events; an engine that checks nothing traces no contract.broken, and this rule then judges nothing it did",
		Covers:   []string{"Msg.trigger", "Event.barrier"},
		Flink:    "Preconditions.checkState in the task-side checkpointing (SubtaskCheckpointCoordinatorImpl, the barrier handlers): a state the protocol rules out throws IllegalStateException, which fails the task",
	},
}
