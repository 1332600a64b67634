package checker

// The progress rules, which liveness's violations name.
const (
	ruleCheckpointAfterHeal = "progress.checkpoint-after-heal"
	ruleBoundedJobFinishes  = "progress.bounded-job-finishes"
	ruleAlignmentEnds       = "progress.alignment-ends"
	ruleStopEndsTheJob      = "stop.ends-the-job"
	ruleStopFailedRunsOn    = "stop.failed-job-runs-on"
)

// progressRules are about what must happen once faults stop.
var progressRules = []Rule{
	{
		ID: "P1", Name: ruleCheckpointAfterHeal, Property: PropLiveness,
		Says:     "A checkpoint (not a savepoint) completes within a bound of the start of the liveness phase.",
		Evidence: "phase, checkpoint.complete, Liveness.CheckpointAfterHealNanos",
		Without:  "unknown when the deadline is past the trace's end",
	},
	{
		ID: "P2", Name: ruleBoundedJobFinishes, Property: PropLiveness,
		Says:     "A bounded job's tasks end with task.finish and all of its output committed; an engine that traces its report of the end says job.finish once they all have, never before.",
		Evidence: "task.finish, sink.commit, job.finish, Liveness.FinishTasks, Liveness.JobFinishTraced, Reference.Output",
		Without:  "unknown when the deadline is past the trace's end",
		Covers:   []string{"Event.end-of-partition", "Event.end-of-data"},
		Flink:    "FLINK-1775",
	},
	{
		ID: "P3", Name: ruleAlignmentEnds, Property: PropLiveness,
		Says:     "No task stays in alignment longer than a bound unless the checkpoint aborts.",
		Evidence: "barrier.recv, snapshot.taken, snapshot.decline, notify.abort, checkpoint.abort, Liveness.AlignmentMaxNanos",
		Without:  "not judged without the bound: a zero bound is none",
	},
	{
		ID: "P4", Name: ruleStopEndsTheJob, Property: PropLiveness,
		Says:     "A stop-with-savepoint that completed ends the job unless a failover, a coordinator crash or a resubmission restarts it first: every task exits (with task.finish, naming it unless the task had reached the end of its input first; with drain, every task reaches the end of its input first), and an engine that traces job.finish names it there.",
		Evidence: "checkpoint.trigger (stop=true, drain=true), checkpoint.complete, task.finish (stop), job.finish (stop), job.failover, coordinator.crash, job.resubmit, Liveness.FinishTasks",
		Without:  "unexercised without a completed stop-with-savepoint",
		Covers:   []string{"Kind.stop-savepoint", "Kind.drain-savepoint"},
		Flink:    "StopWithSavepointTerminationHandlerImpl (FLINK-21030, FLINK-22367)",
	},
	{
		ID: "P5", Name: ruleStopFailedRunsOn, Property: PropLiveness,
		Says:     "A stop-with-savepoint that aborted leaves the job running: its sources go on, and the bounded job still reaches the end of its input or a later stop-with-savepoint ends it. One with drain, whose sources ended their input, fails the job over so that it runs on from a checkpoint before it.",
		Evidence: "checkpoint.trigger (stop=true, drain=true), checkpoint.abort, task.finish, job.failover, coordinator.crash, Liveness.FinishTasks",
		Without:  "unexercised without an aborted stop-with-savepoint",
		Covers:   []string{"Kind.stop-savepoint", "Kind.drain-savepoint", "Reason.drain-failed"},
		Flink:    "FLINK-12858 (a declined synchronous savepoint left the sources blocked); FLINK-21030 (the tasks of a failed synchronous savepoint fail over)",
	},
}
