package protocol

import "errors"

// Expected failures, returned to the host. Each is safe to ignore in the
// sense that the protocol state is unchanged (or changed only as the doc of
// the returning method says); they exist so a host can count or log them.
var (
	// ErrUnknownCheckpoint: the input names a checkpoint the receiver does
	// not know (never triggered, already finished, or from an earlier
	// incarnation). Late and duplicate messages produce it.
	ErrUnknownCheckpoint = errors.New("protocol: unknown checkpoint")
	// ErrUnknownTask: a message names a task outside the topology.
	ErrUnknownTask = errors.New("protocol: unknown task")
	// ErrUnexpectedMessage: a message of a type the receiver never gets
	// (an ack sent to a task, a trigger sent to the coordinator).
	ErrUnexpectedMessage = errors.New("protocol: unexpected message type")
	// ErrTooManyPending: the request would exceed MaxPendingCheckpoints.
	ErrTooManyPending = errors.New("protocol: too many pending checkpoints")
	// ErrFailingOver: the coordinator is between a failover plan and
	// JobRestarted and accepts no new checkpoints.
	ErrFailingOver = errors.New("protocol: job is failing over")
	// ErrJobFinished: every task has fully finished; nothing to checkpoint.
	ErrJobFinished = errors.New("protocol: job finished")
	// ErrStopPending: a stop-with-savepoint is pending; the job takes no
	// other savepoint until it ends.
	ErrStopPending = errors.New("protocol: stop-with-savepoint pending")
	// ErrAlreadyStarted: Restore was called after the task took input.
	ErrAlreadyStarted = errors.New("protocol: task already started")
	// ErrBadInput: an input index or channel event the task cannot accept
	// (out of range, closed channel, malformed event).
	ErrBadInput = errors.New("protocol: bad input")
	// ErrChannelStateOpen: the host completed an unaligned snapshot before
	// the task sealed its channel state (TaskReady.Sealed).
	ErrChannelStateOpen = errors.New("protocol: channel state not sealed yet")
	// ErrNotFinishable: Finish was called while inputs are still open.
	ErrNotFinishable = errors.New("protocol: task has open inputs")
)
