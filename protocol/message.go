package protocol

import (
	"strconv"
	"strings"
)

// MessageType says what a control message means. Control messages travel
// between the coordinator and the tasks, outside the data channels; they may
// be lost, delayed or duplicated by the network without breaking safety.
type MessageType uint8

const (
	// MsgTrigger (coordinator -> task): start checkpoint Checkpoint now.
	// Sent to source tasks, and to finished tasks whose inputs have all
	// ended, which cannot receive a barrier any more.
	MsgTrigger MessageType = iota + 1
	// MsgAck (task -> coordinator): the task's snapshot for Checkpoint is
	// durably uploaded; Snapshot describes it.
	MsgAck
	// MsgDecline (task -> coordinator): the task will not complete its part
	// of Checkpoint, for Reason.
	MsgDecline
	// MsgNotifyComplete (coordinator -> task): Checkpoint is durably
	// complete; side effects up to it may be committed.
	MsgNotifyComplete
	// MsgNotifyAborted (coordinator -> task): Checkpoint was aborted for
	// Reason; the task drops whatever it still holds for it.
	MsgNotifyAborted
	// MsgTaskFinished (task -> coordinator): the task processed its last
	// record (bounded input) and now waits for a final checkpoint.
	MsgTaskFinished
	// MsgSplitRequest (task -> coordinator): a reader of a split source
	// asks for a split; Seq is how many split messages it received.
	MsgSplitRequest
	// MsgSplitAssign (coordinator -> task): Split is the reader's, the
	// Seq-th split message to it. Checkpoint is the newest checkpoint
	// pending as it was sent (0: none): the reader takes it only once it
	// has heard of that checkpoint.
	MsgSplitAssign
	// MsgNoMoreSplits (coordinator -> task): no split is left for the
	// reader, which may finish once it has read its own. Numbered and held
	// like MsgSplitAssign.
	MsgNoMoreSplits
)

// Message is one control message. Like raft's Message it is a single flat
// struct rather than one type per kind: slices of it need no boxing (the
// coordinator emits one NotifyComplete per task per checkpoint, ten thousand
// at a time), and a host can serialise and route it without a type switch.
// Only the fields listed for a Type are meaningful; the rest are zero.
type Message struct {
	_    struct{}
	Type MessageType
	// Kind and Mode are set on MsgTrigger.
	Kind Kind
	Mode Mode
	// Reason is set on MsgDecline and MsgNotifyAborted.
	Reason Reason
	// Task is the task at the other end from the coordinator: the
	// destination of trigger and notify messages, the sender of ack,
	// decline and task-finished messages.
	Task TaskID
	// Checkpoint is set for every type except MsgTaskFinished.
	Checkpoint CheckpointID
	// Timestamp is the coordinator's time at trigger (MsgTrigger).
	Timestamp Time
	// Snapshot is set on MsgAck.
	Snapshot TaskSnapshot
	// Split is set on MsgSplitAssign.
	Split string
	// Seq numbers the split messages to a reader: set on MsgSplitAssign and
	// MsgNoMoreSplits; on MsgSplitRequest the count the reader received;
	// on a reader's MsgTrigger the count sent to it before the trigger.
	Seq uint64
}

// String renders the message on one line with the fields of its type, e.g.
// "trigger coordinator->src-0 cp=3 checkpoint aligned t=100".
func (m Message) String() string {
	var b strings.Builder
	b.WriteString(m.Type.String())
	b.WriteByte(' ')
	switch m.Type {
	case MsgTrigger, MsgNotifyComplete, MsgNotifyAborted, MsgSplitAssign, MsgNoMoreSplits:
		b.WriteString(string(CoordinatorTask) + "->" + string(m.Task))
	default:
		b.WriteString(string(m.Task) + "->" + string(CoordinatorTask))
	}
	if m.Type != MsgTaskFinished && m.Type != MsgSplitRequest {
		b.WriteString(" cp=" + m.Checkpoint.String())
	}
	switch m.Type {
	case MsgTrigger:
		b.WriteString(" " + m.Kind.String() + " " + m.Mode.String() + " t=" + m.Timestamp.String())
	case MsgAck:
		b.WriteString(" " + m.Snapshot.String())
	case MsgDecline, MsgNotifyAborted:
		b.WriteString(" reason=" + m.Reason.String())
	case MsgSplitAssign:
		b.WriteString(" split=" + m.Split)
	}
	if m.Seq != 0 || m.Type == MsgSplitRequest {
		b.WriteString(" seq=" + strconv.FormatUint(m.Seq, 10))
	}
	return b.String()
}

// TriggerMessage builds a MsgTrigger.
func TriggerMessage(task TaskID, id CheckpointID, kind Kind, mode Mode, at Time) Message {
	return Message{Type: MsgTrigger, Task: task, Checkpoint: id, Kind: kind, Mode: mode, Timestamp: at}
}

// AckMessage builds a MsgAck.
func AckMessage(task TaskID, id CheckpointID, snapshot TaskSnapshot) Message {
	return Message{Type: MsgAck, Task: task, Checkpoint: id, Snapshot: snapshot}
}

// DeclineMessage builds a MsgDecline.
func DeclineMessage(task TaskID, id CheckpointID, reason Reason) Message {
	return Message{Type: MsgDecline, Task: task, Checkpoint: id, Reason: reason}
}

// NotifyCompleteMessage builds a MsgNotifyComplete.
func NotifyCompleteMessage(task TaskID, id CheckpointID) Message {
	return Message{Type: MsgNotifyComplete, Task: task, Checkpoint: id}
}

// NotifyAbortedMessage builds a MsgNotifyAborted.
func NotifyAbortedMessage(task TaskID, id CheckpointID, reason Reason) Message {
	return Message{Type: MsgNotifyAborted, Task: task, Checkpoint: id, Reason: reason}
}

// TaskFinishedMessage builds a MsgTaskFinished.
func TaskFinishedMessage(task TaskID) Message {
	return Message{Type: MsgTaskFinished, Task: task}
}
