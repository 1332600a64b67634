package protocol

import "strconv"

// SnapshotRequest asks the host to snapshot the task now: synchronously
// copy (or mark copy-on-write) the operator state, source offsets and, for a
// two-phase-commit sink, pre-commit its transaction — all before processing
// any further record — then upload asynchronously and report with
// Task.SnapshotCompleted or Task.SnapshotFailed.
type SnapshotRequest struct {
	_          struct{}
	Checkpoint CheckpointID
	Kind       Kind
	// Mode is the mode the snapshot was taken in. ModeUnaligned means the
	// snapshot may have channel state.
	Mode Mode
	// AwaitChannelState: records are still being recorded as channel state
	// for this checkpoint (AdmitRecord); the upload is complete only when
	// the task lists the id in TaskReady.Sealed, and SnapshotCompleted must
	// not be called before.
	AwaitChannelState bool
	// Final: the task has finished; this snapshot holds its last state.
	Final bool
	// Source: the task has no inputs; it is where barriers are injected,
	// and its snapshot must record the read positions of its splits
	// (TaskSnapshot.SourceOffsets) at the cut, so that a restore rewinds
	// to exactly the first record after the barrier.
	Source bool
	// Timestamp is the coordinator's trigger time.
	Timestamp Time
}

// String renders "snapshot cp=n kind mode" plus " source",
// " await-channel-state" and " final" when set.
func (r SnapshotRequest) String() string {
	s := "snapshot cp=" + r.Checkpoint.String() + " " + r.Kind.String() + " " + r.Mode.String()
	if r.Source {
		s += " source"
	}
	if r.AwaitChannelState {
		s += " await-channel-state"
	}
	if r.Final {
		s += " final"
	}
	return s
}

// Send asks the host to put Event on output channel Output (an index into
// TaskConfig.Outputs). Without Priority the event goes behind everything
// already queued on that channel. With Priority (unaligned barriers) the
// host may instead put it ahead of the queued records, but never ahead of
// a queued channel event, and must then keep the overtaken records as
// output-side channel state of the snapshot and emit them first on restore
// (see ChannelStateHandle); appending it behind them is always correct.
type Send struct {
	_        struct{}
	Output   int
	Event    ChannelEvent
	Priority bool
}

// String renders "output=i event" plus " priority".
func (s Send) String() string {
	r := "output=" + strconv.Itoa(s.Output) + " " + s.Event.String()
	if s.Priority {
		r += " priority"
	}
	return r
}

// TaskReady is what a task asks its host to do. Handle the fields in the
// order listed; the package documentation explains why.
type TaskReady struct {
	_ struct{}
	// Snapshots to take now, before processing any further record.
	Snapshots []SnapshotRequest
	// Sends to put on output channels, in order, after the snapshots.
	Sends []Send
	// Sealed lists unaligned checkpoints whose channel state is complete:
	// finish their upload, then call SnapshotCompleted.
	Sealed []CheckpointID
	// Aborted lists checkpoints this task gave up: cancel their uploads
	// and drop their recorded channel state. With Exit it lists whatever
	// the task still had in progress.
	Aborted []Abort
	// Released lists uploaded state the task reported after its
	// checkpoint was aborted; the host may delete it.
	Released []StateRelease
	// Messages to send to the coordinator (acks, declines, task-finished;
	// a decline may refuse a stale barrier or trigger).
	Messages []Message
	// Notifications to deliver to the task's listeners, in order, after
	// the snapshots above were taken.
	Notifications []Notification
	// Splits are splits of a split source given to this reader: read them,
	// after the snapshots above (they are in no snapshot taken so far).
	Splits []string
	// NoMoreSplits: no split is left for this reader; once it has read
	// its splits its input has ended (Finish).
	NoMoreSplits bool
	// Exit: the task finished and its final snapshot is in a completed
	// checkpoint (or it needs none); after handling this Ready, including
	// the end-of-partition events in Sends and the uploads given up in
	// Aborted, the host may stop the task. Later inputs are ignored.
	Exit bool
}

// IsEmpty reports whether the Ready asks for nothing.
func (rd *TaskReady) IsEmpty() bool {
	return len(rd.Snapshots) == 0 && len(rd.Sends) == 0 && len(rd.Sealed) == 0 &&
		len(rd.Aborted) == 0 && len(rd.Released) == 0 && len(rd.Messages) == 0 &&
		len(rd.Notifications) == 0 && len(rd.Splits) == 0 && !rd.NoMoreSplits && !rd.Exit
}
