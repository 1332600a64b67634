package checker

// ruleCommitAfterDurable is durable-before-visible's rule for what it makes visible.
const ruleCommitAfterDurable = "commit.after-durable"

// ruleExactlyOnce and ruleOutputEndsAtStop are exactly-once's rules: the committed output
// against the reference, and against the cut of a stop-with-savepoint that ended the job.
const (
	ruleExactlyOnce      = "output.exactly-once"
	ruleOutputEndsAtStop = "output.ends-at-the-stop"
)

// sinkRules are about the output the job makes visible.
var sinkRules = []Rule{
	{
		ID: "S1", Name: ruleExactlyOnce, Property: PropExactlyOnce,
		Says:     "The committed output equals the reference output: each record id committed as often as expected, with its value, and nothing else.",
		Evidence: "Reference.Output, sink.write(s), sink.commit, sink.upsert, task.finish",
		Without:  "unknown: no expected output, or the job has not finished and nothing else fails",
		Covers:   []string{"Mode.aligned", "Mode.unaligned", "Mode.aligned-with-timeout"},
	},
	{
		ID: "S2", Name: "output.at-least-once", Property: PropAtLeastOnce,
		Says:     "No record of the reference output is lost; duplicates and changed values are allowed.",
		Evidence: "as output.exactly-once",
		Without:  "as output.exactly-once",
		Covers:   []string{"Mode.at-least-once"},
	},
	{
		ID: "S3", Name: ruleCommitAfterDurable, Property: PropDurableVisible,
		Says:     "A sink commits checkpoint n's transaction only after the completion of some m >= n, and a completion notification follows its checkpoint.complete.",
		Evidence: "sink.commit, notify.complete, checkpoint.complete",
		Without:  "unknown: a completion without checkpoint.persist; unexercised when nothing was made visible",
		Flink:    "FLINK-31077",
	},
	{
		ID: "S4", Name: "output.linearizable", Property: PropSinkVisibility,
		Says:     "Readers of the external store see only committed output, and output never shrinks.",
		Evidence: "sink.read with start, sink.commit, sink.upsert",
		Without:  "unknown: no sink.read, or porcupine could not decide",
	},
	{
		ID: "S5", Name: ruleOutputEndsAtStop, Property: PropExactlyOnce,
		Says:     "A job that stop-with-savepoint ended owes the output of its input up to the savepoint's cut, each source's where its snapshot for it says it stopped: the attempt that took the stop makes no record from past the cut visible (an earlier attempt that read further before the job went back may have, to a sink that writes at once), and the records before it are owed as output.exactly-once and output.at-least-once say.",
		Evidence: "job.finish (stop), snapshot.taken (stop: split=offset), Reference.Output with each record's split and offset, sink.write(s), sink.commit, sink.upsert",
		Without:  "unknown: the job stopped but a source's offsets or a record's origin are not given; an at-least-once job is owed the records before the cut, and what it commits past it is not judged",
		Covers:   []string{"Kind.stop-savepoint"},
		Flink:    "FLINK-23541 (sources emitted after the final savepoint's barrier)",
	},
}
