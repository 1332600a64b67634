package engine

// PlantedBug is a deliberate defect a job can be run with (Config.Bug), one of the classic
// ways a checkpointing engine goes wrong. It exists to measure the harness: how many seeds
// of a fault-injecting scenario it takes before a checker catches the bug (the
// yardstick "seeds needed to detect each planted bug"), and to let a user watch a checker
// catch one. None is on unless asked for, and none touches the protocol package: each is a
// mistake an engine embedding the protocol could make.
type PlantedBug string

const (
	// NoBug is the engine as it should be.
	NoBug PlantedBug = ""
	// BugSourceOffsetAhead snapshots each source partition's offset one record past what
	// the source has read (at most to the end of a bounded partition): after a restore
	// from such a checkpoint the record at the old offset is never read again. It shows
	// only after a failover, as lost output.
	BugSourceOffsetAhead PlantedBug = "source-offset-ahead"
	// BugForgetChannelState leaves out every record an unaligned snapshot should store as
	// channel state: those it overtook in its input queues, those admitted on channels
	// whose barrier had not arrived, and those its barrier overtook in its output queues.
	// The cut is inconsistent whenever a barrier overtook records, and those records are
	// lost by a restore from it.
	BugForgetChannelState PlantedBug = "forget-channel-state"
	// BugCommitOnAbort makes a two-phase-commit sink treat an aborted checkpoint like a
	// completed one and commit its pending transactions at once, instead of leaving them
	// to the next completed checkpoint: output becomes visible that no durable checkpoint
	// covers. It needs a checkpoint to abort after the sink pre-committed.
	BugCommitOnAbort PlantedBug = "commit-on-abort"
	// BugSkipStateRestore restarts operators with empty state instead of the state in the
	// checkpoint they restore (sources and sinks still restore theirs). It needs a
	// failover with state to lose.
	BugSkipStateRestore PlantedBug = "skip-state-restore"
)

// PlantedBugs lists every planted bug, in a fixed order.
func PlantedBugs() []PlantedBug {
	return []PlantedBug{BugSourceOffsetAhead, BugForgetChannelState, BugCommitOnAbort, BugSkipStateRestore}
}

// skipAhead is BugSourceOffsetAhead: it moves the offsets a snapshot is about to store one
// record on, short of the end of a bounded partition. Only the snapshot is wrong; the live
// source reads on from where it is.
func (s *sourcePart) skipAhead(offsets []int64) {
	for i := range offsets {
		if limit := s.logs[i].spec.Records; limit == 0 || offsets[i] < limit {
			offsets[i]++
		}
	}
}

// keepsChannelState is false when BugForgetChannelState is planted.
func (t *task) keepsChannelState() bool { return t.rt.cfg.Bug != BugForgetChannelState }
