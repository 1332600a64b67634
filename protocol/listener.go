package protocol

// Listener is implemented by the parts of a task that act on checkpoint
// outcomes, typically an exactly-once sink (see TwoPhaseCommit). The
// protocol never calls a Listener itself: a Task emits Notifications in
// TaskReady and the host delivers them, in order, with Notification.Deliver.
// What reaches the host has already been filtered so that the host's
// listeners see exactly the following contract (stronger than Flink's best
// effort; ckptsim's checker verifies it on every trace):
//
//   - Per task incarnation, completion notifications have strictly
//     increasing ids, each greater than the id the task was restored from,
//     and each is delivered at most once. A notification may be skipped (a
//     lost message, or a newer checkpoint completing first): the
//     notification of n stands for every checkpoint up to n.
//   - A completion notification for id n comes only after n is durably
//     complete (its metadata is in the completed-checkpoint store), and
//     never for an aborted checkpoint, a checkpoint subsumed before it
//     completed, or a savepoint (savepoints never commit side effects).
//   - An abort notification never names a completed id.
//   - A two-phase-commit sink commits the transactions of checkpoint n only
//     after the notification of some m >= n, or on restore from a
//     checkpoint that holds them; a commit is idempotent and its effect
//     happens once.
//   - Once faults stop, every live task is eventually notified of the
//     latest completed checkpoint, and of the aborts newer than it (the
//     coordinator re-sends a notification that has not gone out for
//     Config.Timeout, and a recovered coordinator re-announces the latest
//     completion at once).
//
// Listeners run on the host's task thread, after the snapshot requests of
// the same TaskReady were taken: a notification for n therefore never
// overtakes the snapshot of n.
type Listener interface {
	// NotifyCheckpointComplete says checkpoint id is durably complete and
	// everything it covers may be made visible (committed).
	NotifyCheckpointComplete(id CheckpointID)
	// NotifyCheckpointAborted says checkpoint id will never complete. It is
	// advisory: work tied to id is covered by the next completed
	// checkpoint, so a listener must not discard it.
	NotifyCheckpointAborted(id CheckpointID)
}

// NotificationType is complete or aborted.
type NotificationType uint8

const (
	NotifyComplete NotificationType = iota + 1
	NotifyAborted
)

// Notification is one listener call a task asks its host to make.
type Notification struct {
	Type       NotificationType
	Checkpoint CheckpointID
}

// String renders "notify-complete cp=n" or "notify-aborted cp=n", the names
// the trace uses.
func (n Notification) String() string {
	return "notify-" + n.Type.String() + " cp=" + n.Checkpoint.String()
}

// Deliver calls the matching method of l.
func (n Notification) Deliver(l Listener) {
	switch n.Type {
	case NotifyComplete:
		l.NotifyCheckpointComplete(n.Checkpoint)
	case NotifyAborted:
		l.NotifyCheckpointAborted(n.Checkpoint)
	default:
		panic("protocol: Deliver of notification with unknown type " + n.String())
	}
}
