package protocol

// EventType says what an in-band channel event is. Channel events travel on
// the data channels between tasks, in order with the records (channels are
// FIFO), which is what makes a barrier a cut through the stream.
type EventType uint8

const (
	// EventBarrier separates the records before checkpoint Checkpoint from
	// those after it.
	EventBarrier EventType = iota + 1
	// EventCancelMarker tells downstream tasks that checkpoint Checkpoint
	// was abandoned upstream, so they stop aligning for it instead of
	// waiting for a barrier that will never come.
	EventCancelMarker
	// EventEndOfPartition closes the channel: no record, barrier or marker
	// follows. The receiver stops waiting for barriers on it. It implies
	// end of data.
	EventEndOfPartition
	// EventEndOfData says no record follows on the channel, but the channel
	// stays open for barriers: a finished task keeps forwarding barriers
	// until its final checkpoint completes, so one final checkpoint can
	// cover a whole finished pipeline. A task may Finish once every input
	// delivered end of data (or end of partition).
	EventEndOfData
)

// ChannelEvent is one in-band event. As with Message, a single flat struct
// keeps the hot paths free of interface boxing.
type ChannelEvent struct {
	_    struct{}
	Type EventType
	// Checkpoint is set on barriers and cancel markers.
	Checkpoint CheckpointID
	// Kind is set on barriers.
	Kind Kind
	// Mode is set on barriers: how the receiver must handle this barrier.
	// ModeAlignedWithTimeout means "aligned, but may switch to unaligned";
	// a task that switched forwards the barrier as ModeUnaligned.
	Mode Mode
	// Timestamp is the coordinator's trigger time, carried for statistics.
	Timestamp Time
}

// String renders e.g. "barrier cp=3 checkpoint aligned", "cancel-marker
// cp=3", "end-of-data" or "end-of-partition".
func (e ChannelEvent) String() string {
	switch e.Type {
	case EventBarrier:
		return "barrier cp=" + e.Checkpoint.String() + " " + e.Kind.String() + " " + e.Mode.String()
	case EventCancelMarker:
		return "cancel-marker cp=" + e.Checkpoint.String()
	}
	return e.Type.String()
}

// Barrier builds an EventBarrier.
func Barrier(id CheckpointID, kind Kind, mode Mode, at Time) ChannelEvent {
	return ChannelEvent{Type: EventBarrier, Checkpoint: id, Kind: kind, Mode: mode, Timestamp: at}
}

// CancelMarker builds an EventCancelMarker.
func CancelMarker(id CheckpointID) ChannelEvent {
	return ChannelEvent{Type: EventCancelMarker, Checkpoint: id}
}

// EndOfPartition builds an EventEndOfPartition.
func EndOfPartition() ChannelEvent { return ChannelEvent{Type: EventEndOfPartition} }

// EndOfData builds an EventEndOfData.
func EndOfData() ChannelEvent { return ChannelEvent{Type: EventEndOfData} }
