package checker

// traceRules are about the trace itself and about a run as a whole.
var traceRules = []Rule{
	{
		ID: "G1", Name: "trace.well-formed", Property: PropWellFormed,
		Says:     "Sequence numbers count from 0 by one, virtual time never goes back, and every event has exactly the fields and attributes its kind's schema gives it.",
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
		Says:     "A task fails by itself only after something that can make a healthy task fail: an external-system fault, a failover or a coordinator crash, or a storage fault while it restores (once it runs, a failed upload declines instead).",
		Evidence: "task.crash with a reason, fault, job.failover, coordinator.crash, task.restore",
		Without:  "unexercised: no task.crash with a reason",
		Flink:    "FLINK-10377",
	},
}
