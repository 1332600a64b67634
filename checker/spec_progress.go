package checker

// The progress rules, which liveness's violations name.
const (
	ruleCheckpointAfterHeal = "progress.checkpoint-after-heal"
	ruleBoundedJobFinishes  = "progress.bounded-job-finishes"
	ruleAlignmentEnds       = "progress.alignment-ends"
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
}
