package protocol

import "fmt"

// The String methods of the enums (Kind, Mode, Reason, ...) are generated
// from the constants' names by internal/enumgen: see enum_string.go.
//
//go:generate go run ./internal/enumgen -o enum_string.go Kind Mode Reason RestoreMode:Restore MessageType:Msg:message EventType:Event:event NotificationType:Notify:notification AdmitAction:Admit:admit TransactionActionType:Transaction:transaction-action

// Kind says what a checkpoint is for.
type Kind uint8

const (
	// KindCheckpoint is a periodic (or manually triggered) checkpoint: it
	// may be subsumed by a newer one, it commits side effects (listeners are
	// notified of its completion) and it is a candidate for automatic
	// recovery.
	KindCheckpoint Kind = iota + 1
	// KindSavepoint is a user-requested snapshot. It is always aligned (so
	// it has no channel state and can be restored into a changed job), it
	// is never subsumed, never used for automatic recovery, and never
	// commits side effects: no task is notified of its completion, because
	// a job restored from an older checkpoint would otherwise duplicate the
	// effects that the savepoint made visible.
	KindSavepoint
	// KindStopSavepoint is the synchronous savepoint of stop-with-savepoint
	// (Coordinator.StopWithSavepoint). It is aligned and never subsumed like
	// a savepoint, and a source that takes its snapshot emits nothing more
	// (Task.Stopping) until it aborts. Unlike a savepoint, its completion is
	// announced, so sinks commit up to it, and it ends the job: it is the
	// latest restorable checkpoint, and every task exits once told of it.
	// If it aborts, the sources go on and the job keeps running.
	KindStopSavepoint
	// KindDrainSavepoint is the synchronous savepoint of stop-with-savepoint
	// with drain (Coordinator.DrainWithSavepoint): a KindStopSavepoint whose
	// sources end their input before they take their snapshot, so that every
	// task finishes and the savepoint holds final snapshots only. Its
	// sources cannot go back: if it aborts, the job fails over
	// (ReasonDrainFailed) to go on from the latest checkpoint before it.
	KindDrainSavepoint
)

// IsSavepoint reports whether k is a savepoint, synchronous or not: always
// aligned, never subsumed, its state the user's.
func (k Kind) IsSavepoint() bool { return k == KindSavepoint || k.IsStop() }

// IsStop reports whether k is the synchronous savepoint of a
// stop-with-savepoint, with or without drain.
func (k Kind) IsStop() bool { return k == KindStopSavepoint || k == KindDrainSavepoint }

// Mode is how tasks treat barriers. A job picks one mode in Config; each
// barrier also carries the mode it must be handled in, because a savepoint
// barrier is aligned in every job and a barrier forwarded after an
// alignment timeout is unaligned.
type Mode uint8

const (
	// ModeAligned gives exactly-once state: a task blocks each input
	// channel on which barrier n arrived until barrier n arrived on every
	// open input, then snapshots and forwards the barrier. No channel state.
	ModeAligned Mode = iota + 1
	// ModeUnaligned snapshots at the first barrier and forwards it at once;
	// records that arrive on channels whose barrier has not arrived yet are
	// recorded as channel state and replayed on restore. Exactly-once,
	// never blocks, works on cyclic graphs.
	ModeUnaligned
	// ModeAlignedWithTimeout starts aligned and switches to unaligned when
	// the alignment at a task lasts longer than Config.AlignmentTimeout.
	ModeAlignedWithTimeout
	// ModeAtLeastOnce counts barriers and never blocks: the snapshot is
	// taken when barrier n arrived on every open input. Records that
	// overtook a barrier are in the snapshot and are replayed again after
	// recovery, so duplicates are expected.
	ModeAtLeastOnce
)

// ParseMode is the inverse of Mode.String.
func ParseMode(s string) (Mode, error) {
	for m := ModeAligned; m <= ModeAtLeastOnce; m++ {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("protocol: unknown mode %q", s)
}
