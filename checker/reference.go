package checker

// Reference is the scenario's reference model: what a correct run must produce, and the
// bounds its liveness is judged by. It is plain data that a scenario (or an engine author
// checking their own traces) fills in; the checkers never look at a simulator. The checkers
// only read it, so one Reference may serve many checks at once (scenarios shares one across
// the seeds of a sweep).
type Reference struct {
	// Guarantee says which output property Check selects by default: exactly-once or
	// at-least-once. Empty: the output is not judged unless a property is asked for.
	Guarantee Guarantee
	// Output maps each record id the sinks must commit to what is expected of it. Nil: no
	// output reference (the output properties return unknown).
	Output map[string]Expected
	// TokenWorkload says the job is a token workload: every completed checkpoint must
	// conserve TokenTotal tokens, which may be zero.
	TokenWorkload bool
	// TokenTotal is the number of tokens in a token workload. A positive total alone also
	// makes a token workload, for references written before TokenWorkload.
	TokenTotal int64
	// Snapshots are the global snapshots the run must record (expected-snapshot): per
	// checkpoint, the tokens of processes and the messages recorded on channels, as a
	// course's golden test states them. Nil: none expected.
	Snapshots []ExpectedSnapshot
	// Liveness holds the bounds that progress after the heal phase is judged by.
	Liveness LivenessBounds
	// Policy is the checkpointing policy the job ran with, for the properties that judge
	// the coordinator's decisions against it.
	Policy Policy
	// TraceHash is the trace hash a replay must reproduce. Empty: determinism is not judged.
	TraceHash string
	// Promises are the properties the job promises to keep: the facts DefaultProperties
	// chooses from. Which properties a checkpoint mode or a sink promises is the engine's
	// knowledge, not the checker's, so whoever builds the reference states it here
	// (scenarios does, from a scenario's mode, sink and check list). Nil: the job does not
	// say, and DefaultProperties chooses from Guarantee alone. Well-formed and determinism
	// need no promise: every trace must be well-formed, and determinism is judged whenever
	// there is a TraceHash.
	Promises []Property
}

// tokenWorkload reports whether the checkpoints must conserve TokenTotal tokens.
func (r Reference) tokenWorkload() bool { return r.TokenWorkload || r.TokenTotal > 0 }

// Guarantee is the delivery guarantee a scenario's sinks promise.
type Guarantee string

const (
	GuaranteeExactlyOnce Guarantee = "exactly-once"
	GuaranteeAtLeastOnce Guarantee = "at-least-once"
)

// Expected is what the committed output must hold for one record id.
type Expected struct {
	Value string // the value the sink must write (sink.write or sink.upsert attr value)
	Count int    // how many times it must be committed; 1 for exactly-once, 0 to forbid it
	// Split and Offset name the source record the output record comes from: the split
	// ("<source>:<partition>") and its offset there. A job that stop-with-savepoint ended
	// owes only the records from before the offsets its sources stopped at; without them its
	// output is not judged. Empty: not known.
	Split  string
	Offset int64
}

// ExpectOnce builds the usual exactly-once output reference: every record once, with its
// value.
func ExpectOnce(values map[string]string) map[string]Expected {
	out := make(map[string]Expected, len(values))
	for rid, value := range values {
		out[rid] = Expected{Value: value, Count: 1}
	}
	return out
}

// Policy is what the properties need to know of the job's checkpointing configuration.
type Policy struct {
	// TolerableFailures is how many counted checkpoint failures in a row the job tolerates;
	// one more and it must fail over (failure-accounting). Nil: not known, and
	// failure-accounting is unknown. A pointer, since zero tolerates none.
	TolerableFailures *int
	// RetainedCheckpoints is how many completed checkpoints (the latest, by id) the job
	// keeps restorable: their state must not be released (state-release), and what falls
	// out of them must be. Zero: not known, and state-release is unknown.
	RetainedCheckpoints int
	// AlignmentTimeoutNanos is, for a job that aligns with a timeout (aligned-with-timeout),
	// how long a task may align before it switches to unaligned (alignment-timeout). Zero:
	// the job has no alignment timeout.
	AlignmentTimeoutNanos int64
	// IntervalNanos is the time between periodic triggers (trigger-pacing); zero: the job
	// takes no periodic checkpoints. Nil: not known. A pointer, since zero is a setting.
	IntervalNanos *int64
	// MinPauseNanos is the least time from a checkpoint's completion to the decision to
	// trigger the next periodic one (trigger-pacing). Nil: not known; zero: no pause.
	MinPauseNanos *int64
	// TimeoutNanos is how long a checkpoint may stay pending, from its trigger, before it
	// expires (checkpoint-timing). Zero: not known.
	TimeoutNanos int64
	// MaxConcurrent is how many checkpoints may be pending at once (trigger-pacing). Zero:
	// not known.
	MaxConcurrent int
	// ChannelStateMaxRecords is the most records one task may record as channel state for one
	// checkpoint: protocol.Config.MaxBufferedRecords admissions, each at most one network
	// buffer of records (channel-state.bounded). Zero: not known.
	ChannelStateMaxRecords int64
	// MaxPendingTransactions is the most pre-committed transactions a two-phase-commit sink
	// may hold open (transactions.bounded). Zero: not known.
	MaxPendingTransactions int64
	// Mode is the job's checkpoint mode as package protocol names it ("aligned",
	// "unaligned", "aligned-with-timeout", "at-least-once"): it says which savepoints may
	// be triggered past MaxConcurrent (trigger-pacing). Empty: not known.
	Mode string
}

// Tolerating returns a pointer to n, for Policy.TolerableFailures in Go literals.
func Tolerating(n int) *int { return &n }

// Nanos returns a pointer to n, for Policy.IntervalNanos and Policy.MinPauseNanos in Go
// literals.
func Nanos(n int64) *int64 { return &n }

// LivenessBounds are the bounds of the liveness phase. Each bound is measured from the phase
// event that starts the liveness phase (phase=liveness), or the heal phase when there is no
// liveness phase event, or the first event when the trace has no phase events. With the fault
// injector's phases, the liveness phase ends (phase=end) when its bound runs out, so the
// natural CheckpointAfterHealNanos is the liveness phase's length. A zero bound is not checked.
type LivenessBounds struct {
	// CheckpointAfterHealNanos: some checkpoint (not a savepoint) completes within this long
	// after the liveness phase starts.
	CheckpointAfterHealNanos int64
	// AlignmentMaxNanos: no task stays in alignment for a checkpoint longer than this (from
	// its first barrier.recv, or from the liveness phase's start if later) unless the
	// checkpoint aborts.
	AlignmentMaxNanos int64
	// NotifyMaxNanos: once faults stop, every live task is notified of (or restored from) a
	// completed checkpoint within this long of its completion: the latest checkpoint whose
	// deadline lies inside the trace is judged (by ListenerContract).
	NotifyMaxNanos int64
	// RecoveryMaxNanos: after each job.failover, a checkpoint completes within this long
	// unless a fault strikes meanwhile (recovery-bound). Zero: not judged.
	RecoveryMaxNanos int64
	// SwitchMaxNanos: a task aligning with a timeout takes its snapshot within
	// Policy.AlignmentTimeoutNanos plus this long of its first barrier, unless a fault strikes
	// meanwhile (alignment-timeout). Zero: not judged.
	SwitchMaxNanos int64
	// AbortReachMaxNanos: a checkpoint the coordinator aborts reaches every live task that
	// took part within this long, unless a fault strikes meanwhile (abort-reach). Zero: not
	// judged.
	AbortReachMaxNanos int64
	// ReactionMaxNanos: how long the coordinator may take, while no fault is in force, to
	// act on what has fallen due (checkpoint-timing): a checkpoint still pending at its
	// timeout ends within this long after it, and one a live task declined ends within this
	// long of the snapshot.decline, the decline's delivery included. Zero: not judged.
	ReactionMaxNanos int64
	// FinishTasks are the tasks of a bounded job that must end with task.finish (normally
	// every task, or at least every source). Empty: the job is unbounded. When set, every
	// record of Reference.Output must also be committed by the end.
	FinishTasks []string
	// JobFinishTraced: the engine traces job.finish when it reports the bounded job
	// finished, so a job whose tasks all finished must end with one, and none may come
	// before they have. False: job.finish is not judged.
	JobFinishTraced bool
}
