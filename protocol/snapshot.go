package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// SourceOffset is the read position of a source in one of its splits
// (partitions, files, ...). The protocol never interprets it: the host puts
// it into the snapshot of a source task and gets it back on restore.
type SourceOffset struct {
	Split  string
	Offset int64
}

// String renders "split:offset".
func (o SourceOffset) String() string {
	return o.Split + ":" + strconv.FormatInt(o.Offset, 10)
}

// ChannelStateHandle points at the records a task recorded as channel state
// for one channel (unaligned checkpoints only). In the snapshot of the
// channel's receiver (Input.To is the task) it is input-side state: on
// restore the host replays it into the task before any new record of that
// channel. In the snapshot of the sender (Input.From is the task; a host
// whose Priority barriers overtook queued output may record it so) it is
// output-side state: on restore the sender emits it on the channel before
// any new record, and the receiver, having replayed its own input-side
// state first, consumes it in order.
type ChannelStateHandle struct {
	_       struct{}
	Input   ChannelID
	Handle  string
	Records int
}

// String renders "input=handle(records)".
func (h ChannelStateHandle) String() string {
	return h.Input.String() + "=" + h.Handle + "(" + strconv.Itoa(h.Records) + ")"
}

// SharedPiece is one immutable piece of an incremental snapshot's state
// (an SST file, say): uploaded once, for the checkpoint UploadedFor, and
// referenced by that snapshot and by later snapshots of the same task that
// still need it. The coordinator's registry keeps a piece while a retained
// checkpoint or a pending checkpoint's acked snapshot refers to it, and
// releases it when none does (see "Shared state" in the package
// documentation).
type SharedPiece struct {
	_ struct{}
	// Handle names the piece in storage; it is unique per upload.
	Handle string
	// Bytes is the piece's size, for statistics.
	Bytes int64
	// UploadedFor is the checkpoint the piece was uploaded for. A piece
	// whose UploadedFor is not the snapshot's own checkpoint is reused.
	UploadedFor CheckpointID
}

// String renders "handle@cp".
func (p SharedPiece) String() string {
	return p.Handle + "@" + p.UploadedFor.String()
}

// reusedIn reports whether p, referenced by a snapshot for checkpoint id, was
// uploaded for an earlier checkpoint.
func (p SharedPiece) reusedIn(id CheckpointID) bool { return p.UploadedFor != id }

// TaskSnapshot describes what one task wrote to durable storage for one
// checkpoint. Only the host can read the state behind Handle; the protocol
// carries the description from the task (ack) to the coordinator (completed
// checkpoint) and back to the task (restore).
type TaskSnapshot struct {
	_ struct{}
	// Handle names the uploaded state, opaque to the protocol.
	Handle string
	// StateSizeBytes is the size of the uploaded state, for statistics.
	StateSizeBytes int64
	// SourceOffsets are the read positions of a source task at the cut.
	SourceOffsets []SourceOffset
	// ChannelState lists the recorded in-flight records of an unaligned
	// checkpoint, one handle per channel that had any.
	ChannelState []ChannelStateHandle
	// Shared lists the pieces of an incremental snapshot, in the order
	// the host restores them: those uploaded for this checkpoint and those
	// reused from the task's earlier ones. A savepoint reuses none (it
	// belongs to the user, and must outlive every checkpoint).
	Shared []SharedPiece
	// Final is set by the protocol when the snapshot was taken after the
	// task finished (Task.Finish): it is the task's last state, and a
	// completed checkpoint holding it lets the task exit.
	Final bool
	// TakenFor is the checkpoint the snapshot was taken for, set by the
	// protocol like Final (Task.SnapshotCompleted and the coordinator's ack
	// fill it in). In a CompletedCheckpoint it equals the checkpoint's ID,
	// except for a finished task's final snapshot carried over into a later
	// checkpoint: there it names the earlier checkpoint. A host traces that
	// as snapshot.carried with taken = TakenFor (see "Tracing"). A host that
	// stores completed checkpoints keeps it with them; 0 means unknown.
	TakenFor CheckpointID
}

// Carried reports whether s, held by checkpoint id, is a final snapshot
// carried over from an earlier checkpoint rather than taken for id. A
// snapshot whose TakenFor is unknown (0) is not reported as carried.
func (s TaskSnapshot) Carried(id CheckpointID) bool {
	return s.TakenFor != 0 && s.TakenFor != id
}

// String renders the snapshot on one line, fields in a fixed order.
func (s TaskSnapshot) String() string {
	var b strings.Builder
	b.WriteString("handle=")
	b.WriteString(s.Handle)
	b.WriteString(" size=")
	b.WriteString(strconv.FormatInt(s.StateSizeBytes, 10))
	writeList(&b, " offsets=", s.SourceOffsets)
	writeList(&b, " channel-state=", s.ChannelState)
	writeList(&b, " shared=", s.Shared)
	if s.TakenFor != 0 {
		b.WriteString(" taken=")
		b.WriteString(s.TakenFor.String())
	}
	if s.Final {
		b.WriteString(" final")
	}
	return b.String()
}

// writeList writes name and the items in brackets, separated by spaces; nothing for none.
func writeList[T fmt.Stringer](b *strings.Builder, name string, items []T) {
	if len(items) == 0 {
		return
	}
	b.WriteString(name)
	b.WriteByte('[')
	for i, item := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(item.String())
	}
	b.WriteByte(']')
}

// TaskState pairs a task with its snapshot inside a completed checkpoint.
type TaskState struct {
	Task     TaskID
	Snapshot TaskSnapshot
}

// CompletedCheckpoint is the metadata of a checkpoint whose every task
// acknowledged it. The coordinator hands it to the host to persist in the
// completed-checkpoint store (CoordinatorReady.MetadataWrites); a recovering
// coordinator is built from the stored ones (Durable.Completed); a failover
// plan names one to restore from.
type CompletedCheckpoint struct {
	_           struct{}
	ID          CheckpointID
	Kind        Kind
	TriggeredAt Time
	CompletedAt Time
	// Tasks holds one entry per task of the job, in the order of
	// Topology.Tasks. A task that had fully finished before the checkpoint
	// was triggered is carried over with its final snapshot.
	Tasks []TaskState
	// Unassigned is the split enumerator's state: the splits of the split
	// sources that no reader had been given as the triggers went out.
	Unassigned []string
}

// Snapshot returns the snapshot of task in c, and whether c has one.
func (c *CompletedCheckpoint) Snapshot(task TaskID) (TaskSnapshot, bool) {
	for i := range c.Tasks {
		if c.Tasks[i].Task == task {
			return c.Tasks[i].Snapshot, true
		}
	}
	return TaskSnapshot{}, false
}

// String renders the id, kind and times on one line (task states are left
// out: with thousands of tasks the line would be useless).
func (c *CompletedCheckpoint) String() string {
	return "cp=" + c.ID.String() + " kind=" + c.Kind.String() +
		" triggered=" + c.TriggeredAt.String() + " completed=" + c.CompletedAt.String() +
		" tasks=" + strconv.Itoa(len(c.Tasks))
}

// StateRelease tells the host that state it uploaded is no longer
// referenced by any checkpoint or savepoint, so it may delete it: the
// snapshot of a late, duplicate or unknown ack, of an aborted checkpoint,
// or of a completed checkpoint that fell out of retention (unless a later
// checkpoint carries it over). Checkpoint is the id it was uploaded for.
type StateRelease struct {
	_          struct{}
	Task       TaskID
	Checkpoint CheckpointID
	Snapshot   TaskSnapshot
	// Pieces are the shared pieces of Snapshot to delete with it: those
	// nothing else holds. The others stay.
	Pieces []SharedPiece
}

// String renders "task cp=n handle=..." and the pieces to delete.
func (r StateRelease) String() string {
	var b strings.Builder
	b.WriteString(string(r.Task) + " cp=" + r.Checkpoint.String() + " " + r.Snapshot.String())
	writeList(&b, " delete=", r.Pieces)
	return b.String()
}
