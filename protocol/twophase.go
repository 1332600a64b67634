package protocol

import (
	"errors"
	"slices"
	"strings"
)

// TransactionID names one transaction in a sink's external system. The host
// chooses ids; including the task id and incarnation in them keeps a
// restarted task from colliding with transactions its predecessor left open.
type TransactionID string

// PendingTransaction is a pre-committed transaction waiting for the
// checkpoint it is tied to (or a later one) to complete.
type PendingTransaction struct {
	Checkpoint  CheckpointID
	Transaction TransactionID
}

// String renders "txn@cp".
func (p PendingTransaction) String() string {
	return string(p.Transaction) + "@" + p.Checkpoint.String()
}

// TransactionActionType is commit or abort.
type TransactionActionType uint8

const (
	TransactionCommit TransactionActionType = iota + 1
	TransactionAbort
)

// TransactionAction is one call the host must make on its external system.
// Commits must be idempotent there (committing a committed transaction is a
// no-op), because after a crash the same transaction is committed again from
// the restored snapshot. A commit that fails must be retried (or the task
// failed over, after which the restore recommits it); it must never be
// dropped, or its records are lost.
type TransactionAction struct {
	_           struct{}
	Type        TransactionActionType
	Transaction TransactionID
	// Checkpoint is the checkpoint the transaction is tied to (for an
	// abort on restore: the checkpoint it would have been tied to next).
	Checkpoint CheckpointID
}

// String renders e.g. "commit txn-3@3".
func (a TransactionAction) String() string {
	return a.Type.String() + " " + string(a.Transaction) + "@" + a.Checkpoint.String()
}

// TwoPhaseCommitState is the part of a sink's snapshot that the helper
// needs back on restore. The host stores it with the sink's state.
type TwoPhaseCommitState struct {
	_ struct{}
	// Pending are the transactions pre-committed up to and including the
	// snapshot's checkpoint and not known to be committed at that time.
	Pending []PendingTransaction
	// Current is the transaction that began at the snapshot; on restore it
	// holds records the restored state does not cover, so it is aborted.
	Current TransactionID
}

// String renders "pending=[...] current=txn".
func (s TwoPhaseCommitState) String() string {
	parts := make([]string, len(s.Pending))
	for i, p := range s.Pending {
		parts[i] = p.String()
	}
	return "pending=[" + strings.Join(parts, " ") + "] current=" + string(s.Current)
}

// ErrTooManyPendingTransactions is returned by PreCommit when the bound on
// pre-committed transactions is reached (see TwoPhaseCommit); the host
// should fail the snapshot (Task.SnapshotFailed with ReasonTooManyPending)
// instead of growing.
var ErrTooManyPendingTransactions = errors.New("protocol: too many pending transactions")

// TwoPhaseCommit is the bookkeeping of an exactly-once sink. It is sans-I/O
// like the rest of the package: it never talks to the external system but
// returns TransactionActions for the host to perform. The life of a
// transaction:
//
//  1. Records go into Current().
//  2. At the snapshot of checkpoint n the host calls PreCommit(n, next):
//     Current (after the host flushed it) is tied to n and becomes pending,
//     next becomes Current, and the returned state goes into the snapshot.
//  3. On NotifyCheckpointComplete(m), every pending transaction tied to an
//     id <= m is committed, oldest first.
//  4. On NotifyCheckpointAborted(k), the transaction tied to k stays
//     pending, as in Flink's two-phase-commit sink: its records precede
//     the cut of every later checkpoint, so the next completed checkpoint
//     commits it (and the snapshot of every later checkpoint lists it, so
//     a restore from one recommits it). It no longer counts towards
//     maxPending.
//  5. On restore from a snapshot, RestoreTwoPhaseCommit recommits the
//     snapshot's pending transactions (their checkpoint is complete, since
//     the task restores from it, but the notification may never have
//     arrived) and aborts the transaction that was current at the snapshot.
//
// The bound: maxPending limits transactions whose checkpoint's fate is
// still open (pre-committed, neither completed nor aborted as far as the
// sink heard). Transactions of aborted checkpoints do not count: if they
// did, a run of aborts would fill the bound, every later pre-commit would
// fail, the sink would decline every checkpoint and none could complete to
// commit them, a stall only a failover ends. They are limited separately,
// to MaxPendingCheckpointsLimit; that many aborts in a row without a
// completion is a job that cannot checkpoint at all.
//
// Transactions pre-committed after the snapshot a task restores from (for
// checkpoints that never completed) are in no snapshot, so no action names
// them: the external system must abort them, by a transaction timeout or
// because the host names transactions per incarnation and aborts the open
// ones of earlier incarnations on restore.
//
// TwoPhaseCommit does not implement Listener because its methods return
// actions; a sink's Listener forwards to it.
type TwoPhaseCommit struct {
	current TransactionID
	pending []PendingTransaction
	// orphaned[k]: pending[k]'s checkpoint was notified as aborted.
	orphaned      []bool
	orphans       int
	lastPreCommit CheckpointID
	maxPending    int
	// pendingChunk and actionChunk hold the copies of pending handed out
	// (by Pending, in every pre-commit's state) and the commit actions,
	// so that a checkpoint does not cost the sink two allocations; see
	// carve.
	pendingChunk []PendingTransaction
	actionChunk  []TransactionAction
}

// NewTwoPhaseCommit starts fresh with first as the current transaction and
// at most maxPending pre-committed transactions of checkpoints whose fate
// is open.
func NewTwoPhaseCommit(first TransactionID, maxPending int) (*TwoPhaseCommit, error) {
	if first == "" {
		return nil, errors.New("protocol: two-phase commit: first transaction id is empty")
	}
	if maxPending < 1 {
		return nil, errors.New("protocol: two-phase commit: maxPending must be at least 1")
	}
	return &TwoPhaseCommit{current: first, maxPending: maxPending}, nil
}

// RestoreTwoPhaseCommit rebuilds the helper from the state stored in the
// snapshot of checkpoint restored, with next as the new current transaction.
// It returns the actions the host must perform before writing any record:
// recommit every pending transaction, then abort the one that was current at
// the snapshot.
func RestoreTwoPhaseCommit(state TwoPhaseCommitState, restored CheckpointID, next TransactionID, maxPending int) (*TwoPhaseCommit, []TransactionAction, error) {
	c, err := NewTwoPhaseCommit(next, maxPending)
	if err != nil {
		return nil, nil, err
	}
	actions := make([]TransactionAction, 0, len(state.Pending)+1)
	for _, p := range state.Pending {
		if p.Checkpoint > restored {
			panic("protocol: two-phase commit: snapshot of " + restored.String() +
				" holds transaction " + p.String() + " tied to a later checkpoint")
		}
		actions = append(actions, TransactionAction{Type: TransactionCommit, Transaction: p.Transaction, Checkpoint: p.Checkpoint})
	}
	if state.Current != "" {
		actions = append(actions, TransactionAction{Type: TransactionAbort, Transaction: state.Current, Checkpoint: restored})
	}
	c.lastPreCommit = restored
	return c, actions, nil
}

// Current is the transaction records are written to now.
func (c *TwoPhaseCommit) Current() TransactionID { return c.current }

// Pending returns the pre-committed transactions not yet committed, oldest
// first. The slice is a copy.
func (c *TwoPhaseCommit) Pending() []PendingTransaction {
	pending := carve(&c.pendingChunk, len(c.pending))
	copy(pending, c.pending)
	return pending
}

// PreCommit ties the current transaction to checkpoint id, starts next, and
// returns the state to store in the snapshot of id. Ids must increase.
func (c *TwoPhaseCommit) PreCommit(id CheckpointID, next TransactionID) (TwoPhaseCommitState, error) {
	if id <= c.lastPreCommit {
		return TwoPhaseCommitState{}, errors.New("protocol: two-phase commit: pre-commit of " + id.String() +
			" after " + c.lastPreCommit.String())
	}
	if next == "" || next == c.current {
		return TwoPhaseCommitState{}, errors.New("protocol: two-phase commit: next transaction id must be new")
	}
	if len(c.pending)-c.orphans >= c.maxPending || c.orphans >= MaxPendingCheckpointsLimit {
		return TwoPhaseCommitState{}, ErrTooManyPendingTransactions
	}
	c.pending = append(c.pending, PendingTransaction{Checkpoint: id, Transaction: c.current})
	c.orphaned = append(c.orphaned, false)
	c.current = next
	c.lastPreCommit = id
	return TwoPhaseCommitState{Pending: c.Pending(), Current: next}, nil
}

// NotifyCheckpointComplete returns commits for every pending transaction
// tied to an id <= id, oldest first, and forgets them.
func (c *TwoPhaseCommit) NotifyCheckpointComplete(id CheckpointID) []TransactionAction {
	n := 0
	for n < len(c.pending) && c.pending[n].Checkpoint <= id {
		n++
	}
	if n == 0 {
		return nil
	}
	actions := carve(&c.actionChunk, n)
	for i, p := range c.pending[:n] {
		actions[i] = TransactionAction{Type: TransactionCommit, Transaction: p.Transaction, Checkpoint: p.Checkpoint}
	}
	for _, o := range c.orphaned[:n] {
		if o {
			c.orphans--
		}
	}
	c.pending = slices.Delete(c.pending, 0, n)
	c.orphaned = slices.Delete(c.orphaned, 0, n)
	return actions
}

// NotifyCheckpointAborted returns no action: the transaction tied to id
// stays pending and is committed with the next completed checkpoint, which
// covers its records (aborting it here would lose them). It stops counting
// towards maxPending.
func (c *TwoPhaseCommit) NotifyCheckpointAborted(id CheckpointID) []TransactionAction {
	for k, p := range c.pending {
		if p.Checkpoint == id && !c.orphaned[k] {
			c.orphaned[k] = true
			c.orphans++
		}
	}
	return nil
}
