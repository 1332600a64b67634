package protocol

import (
	"math/rand/v2"
	"time"
)

// Limits that no configuration may exceed. They keep every queue in the
// protocol bounded even when a host passes absurd values.
const (
	// MaxPendingCheckpointsLimit caps Config.MaxPendingCheckpoints.
	MaxPendingCheckpointsLimit = 1024
	// MaxRetainedCheckpointsLimit caps Config.RetainedCheckpoints.
	MaxRetainedCheckpointsLimit = 1024
)

// RandomSource is the only randomness the protocol uses: the jitter of the
// first periodic trigger. *math/rand/v2.PCG and *math/rand/v2.Rand satisfy
// it. The host passes a sub-stream derived from its run seed, so adding a
// draw elsewhere never shifts the coordinator's draws.
type RandomSource interface {
	Uint64() uint64
}

// Config is the checkpointing policy of one job. The coordinator uses all of
// it; tasks use the part TaskConfig copies. Durations are virtual time.
type Config struct {
	_ struct{}
	// Mode is how barriers are handled (savepoints are aligned anyway).
	Mode Mode
	// Interval is the time between periodic triggers; 0 disables periodic
	// checkpoints (manual triggers and savepoints still work).
	Interval time.Duration
	// Timeout is how long a checkpoint may stay pending, from its trigger,
	// before it expires. The wait for its id (the counter write) does not
	// count, as in Flink, whose timeout starts with the pending checkpoint.
	Timeout time.Duration
	// MaxConcurrent is how many checkpoints and started savepoints may be
	// in flight at once. A started savepoint holds a slot like a
	// checkpoint (as in Flink), so checkpoints wait for it. A savepoint
	// itself goes beyond the bound in ModeAligned and ModeAtLeastOnce (Flink
	// forces it); in the unaligned modes it waits for a slot, ahead of any
	// checkpoint. Unaligned modes need 1: a second in-flight unaligned
	// checkpoint would have to record channel state for the first, and an
	// unaligned barrier sent with Priority could overtake a concurrent
	// savepoint's barrier.
	MaxConcurrent int
	// MinPause is the least time between the completion of one checkpoint
	// and the trigger of the next, so a slow job is not checkpointing all
	// the time.
	MinPause time.Duration
	// TolerableFailures is how many checkpoint failures in a row (see
	// Reason.CountsAsFailure) are tolerated; one more and the coordinator
	// asks the host to fail the job over. A completion newer than every
	// earlier one resets the count.
	TolerableFailures int
	// RetainedCheckpoints is how many completed checkpoints (savepoints
	// are not counted) stay in the completed-checkpoint store.
	RetainedCheckpoints int
	// AlignmentTimeout is, in ModeAlignedWithTimeout, how long a task may
	// align before it switches to unaligned. Must be 0 in other modes.
	AlignmentTimeout time.Duration
	// MaxPendingCheckpoints bounds every per-checkpoint table: at the
	// coordinator, pending checkpoints and savepoints (reserving, queued,
	// in flight) and the aborts kept for re-announcement; at a task,
	// alignments, snapshots in flight, the window of acked ids (which
	// tells a repeated upload report from an abandoned one) and the window
	// of abort notifications already delivered (deduplication).
	MaxPendingCheckpoints int
	// MaxBufferedRecords bounds what one task records as channel state for
	// one checkpoint (unaligned, or aligned-with-timeout after the switch),
	// counted in AdmitRecord answers: records if the host calls Task.Admit
	// per record, network buffers if it calls it per buffer, as our engine
	// does. Beyond it the task declines the checkpoint
	// (ReasonChannelStateOverflow) rather than grow without limit.
	MaxBufferedRecords int
	// CheckInvariants makes the coordinator check its internal invariants
	// after every call and panic with an *InvariantError when one is
	// broken (TaskConfig copies it for the tasks). Test harnesses and
	// simulators turn it on; it costs a host that leaves it off nothing
	// but one branch per call.
	CheckInvariants bool
	// JitterSeed seeds the first-trigger jitter when Random is nil.
	JitterSeed uint64
	// Random, if not nil, replaces JitterSeed as the jitter source.
	Random RandomSource
}

// DefaultConfig returns a valid aligned configuration with one-second
// virtual intervals, suitable as a starting point.
func DefaultConfig() Config {
	return Config{
		Mode:                  ModeAligned,
		Interval:              time.Second,
		Timeout:               10 * time.Second,
		MaxConcurrent:         1,
		MinPause:              0,
		TolerableFailures:     3,
		RetainedCheckpoints:   1,
		MaxPendingCheckpoints: 16,
		MaxBufferedRecords:    100000,
	}
}

// ConfigError is returned by Config.Validate; Field names the offending
// field so a scenario author sees exactly what to change.
type ConfigError struct {
	Field   string
	Problem string
}

func (e *ConfigError) Error() string {
	return "protocol: config: " + e.Field + ": " + e.Problem
}

// Validate checks every field and returns a *ConfigError for the first
// invalid one (in field order), or nil.
func (c Config) Validate() error {
	bad := func(field, problem string) error { return &ConfigError{Field: field, Problem: problem} }
	switch {
	case c.Mode < ModeAligned || c.Mode > ModeAtLeastOnce:
		return bad("Mode", "unknown mode "+c.Mode.String())
	case c.Interval < 0:
		return bad("Interval", "must not be negative")
	case c.Timeout <= 0:
		return bad("Timeout", "must be positive")
	case c.MaxConcurrent < 1:
		return bad("MaxConcurrent", "must be at least 1")
	case c.MaxConcurrent > c.MaxPendingCheckpoints && c.MaxPendingCheckpoints >= 1:
		return bad("MaxConcurrent", "must not exceed MaxPendingCheckpoints")
	case c.MaxConcurrent != 1 && (c.Mode == ModeUnaligned || c.Mode == ModeAlignedWithTimeout):
		return bad("MaxConcurrent", "must be 1 in mode "+c.Mode.String())
	case c.MinPause < 0:
		return bad("MinPause", "must not be negative")
	case c.TolerableFailures < 0:
		return bad("TolerableFailures", "must not be negative")
	case c.RetainedCheckpoints < 1:
		return bad("RetainedCheckpoints", "must be at least 1")
	case c.RetainedCheckpoints > MaxRetainedCheckpointsLimit:
		return bad("RetainedCheckpoints", "must not exceed MaxRetainedCheckpointsLimit")
	case c.AlignmentTimeout < 0:
		return bad("AlignmentTimeout", "must not be negative")
	case c.Mode == ModeAlignedWithTimeout && c.AlignmentTimeout == 0:
		return bad("AlignmentTimeout", "must be positive in mode aligned-with-timeout")
	case c.Mode != ModeAlignedWithTimeout && c.AlignmentTimeout != 0:
		return bad("AlignmentTimeout", "must be 0 in mode "+c.Mode.String())
	case c.MaxPendingCheckpoints < 1:
		return bad("MaxPendingCheckpoints", "must be at least 1")
	case c.MaxPendingCheckpoints > MaxPendingCheckpointsLimit:
		return bad("MaxPendingCheckpoints", "must not exceed MaxPendingCheckpointsLimit")
	case c.MaxBufferedRecords < 1:
		return bad("MaxBufferedRecords", "must be at least 1")
	}
	return nil
}

// randomSource returns the configured source, or a PCG seeded from
// JitterSeed. The second PCG word is a fixed constant so that one seed
// always means one stream.
func (c Config) randomSource() RandomSource {
	if c.Random != nil {
		return c.Random
	}
	return rand.NewPCG(c.JitterSeed, 0x636b707473696d) // "ckptsim"
}

// TaskConfig is what one task needs to know. Build it with Config.TaskConfig
// so that job-wide limits stay the same everywhere.
type TaskConfig struct {
	_  struct{}
	ID TaskID
	// Inputs and Outputs are the task's data channels. The task refers to
	// them by index into these slices (input int, output int) on its hot
	// paths, so the order is fixed for the life of the Task.
	Inputs  []ChannelID
	Outputs []ChannelID
	// AlignmentTimeout is used for barriers in ModeAlignedWithTimeout.
	AlignmentTimeout time.Duration
	// MaxPendingCheckpoints bounds the task's per-checkpoint tables:
	// alignments, snapshots in flight, and the windows of acked ids and
	// delivered abort notifications.
	MaxPendingCheckpoints int
	// MaxBufferedRecords bounds channel-state records per checkpoint.
	MaxBufferedRecords int
	// WaitForFinalCheckpoint makes a finished task wait for a completed
	// checkpoint holding its final snapshot before it may exit (bounded
	// input with exactly-once sinks needs it: the last transactions are
	// committed by that checkpoint's notification). Config.TaskConfig
	// always sets it, with or without periodic checkpoints: the
	// coordinator triggers the final checkpoint itself once every task has
	// finished. Turn it off only for a task that runs without a
	// coordinator: one that exits at Finish never acks again, so every
	// later checkpoint of a coordinated job would wait for it and expire.
	WaitForFinalCheckpoint bool
	// FinishedResend is how long a finished task waiting for its final
	// checkpoint lets pass before it tells the coordinator again that it
	// finished (0: it tells once). The message may be lost, and the
	// coordinator asks for the final checkpoint only once every task said
	// so. Periodic checkpoints reach a task whose message was lost anyway;
	// without them (Interval 0) nothing else would, so Config.TaskConfig
	// sets the job's Timeout then.
	FinishedResend time.Duration
	// CheckInvariants makes the task check its internal invariants after
	// every call (see Config.CheckInvariants).
	CheckInvariants bool
}

// TaskConfig derives the configuration of one task from the job's.
func (c Config) TaskConfig(id TaskID, inputs, outputs []ChannelID) TaskConfig {
	return TaskConfig{
		ID:                     id,
		Inputs:                 inputs,
		Outputs:                outputs,
		AlignmentTimeout:       c.AlignmentTimeout,
		MaxPendingCheckpoints:  c.MaxPendingCheckpoints,
		MaxBufferedRecords:     c.MaxBufferedRecords,
		WaitForFinalCheckpoint: true,
		FinishedResend:         c.finishedResend(),
		CheckInvariants:        c.CheckInvariants,
	}
}

// finishedResend is TaskConfig.FinishedResend: the Timeout without periodic
// checkpoints, else 0.
func (c Config) finishedResend() time.Duration {
	if c.Interval > 0 {
		return 0
	}
	return c.Timeout
}

// Validate checks the task configuration, naming the offending field.
func (c TaskConfig) Validate() error {
	bad := func(field, problem string) error { return &ConfigError{Field: "TaskConfig." + field, Problem: problem} }
	switch {
	case c.ID == "":
		return bad("ID", "must not be empty")
	case c.AlignmentTimeout < 0:
		return bad("AlignmentTimeout", "must not be negative")
	case c.MaxPendingCheckpoints < 1 || c.MaxPendingCheckpoints > MaxPendingCheckpointsLimit:
		return bad("MaxPendingCheckpoints", "must be in [1, MaxPendingCheckpointsLimit]")
	case c.MaxBufferedRecords < 1:
		return bad("MaxBufferedRecords", "must be at least 1")
	case c.FinishedResend < 0:
		return bad("FinishedResend", "must not be negative")
	}
	for i, in := range c.Inputs {
		if in.To != c.ID {
			return bad("Inputs", "channel "+in.String()+" does not end at "+string(c.ID))
		}
		for _, other := range c.Inputs[:i] {
			if other == in {
				return bad("Inputs", "duplicate channel "+in.String())
			}
		}
	}
	for i, out := range c.Outputs {
		if out.From != c.ID {
			return bad("Outputs", "channel "+out.String()+" does not start at "+string(c.ID))
		}
		for _, other := range c.Outputs[:i] {
			if other == out {
				return bad("Outputs", "duplicate channel "+out.String())
			}
		}
	}
	return nil
}
