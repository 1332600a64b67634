package protocol_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

func actionsString(actions []protocol.TransactionAction) string {
	return fmt.Sprint(actions)
}

// TestTwoPhaseCommitLifecycle walks one sink through pre-commits,
// an aborted checkpoint, a notification that covers several checkpoints,
// and a restore.
func TestTwoPhaseCommitLifecycle(t *testing.T) {
	c, err := protocol.NewTwoPhaseCommit("t1", 8)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := c.PreCommit(1, "t2")
	if err != nil {
		t.Fatal(err)
	}
	if got := s1.String(); got != "pending=[t1@1] current=t2" {
		t.Fatalf("state at 1: %s", got)
	}
	// Checkpoint 1 is aborted: nothing happens, t1 stays pending.
	if a := c.NotifyCheckpointAborted(1); a != nil {
		t.Fatalf("abort produced actions %v", a)
	}
	s2, _ := c.PreCommit(2, "t3")
	s3, _ := c.PreCommit(3, "t4")
	if got := s3.String(); got != "pending=[t1@1 t2@2 t3@3] current=t4" {
		t.Fatalf("state at 3: %s", got)
	}
	// Notification of 2 commits everything tied to ids <= 2, oldest first.
	if got := actionsString(c.NotifyCheckpointComplete(2)); got != "[commit t1@1 commit t2@2]" {
		t.Fatalf("notify 2: %s", got)
	}
	// A repeated or older notification commits nothing again.
	if got := c.NotifyCheckpointComplete(2); got != nil {
		t.Fatalf("repeated notify 2: %v", got)
	}
	if got := c.Pending(); !slices.Equal(got, []protocol.PendingTransaction{{Checkpoint: 3, Transaction: "t3"}}) {
		t.Fatalf("pending after notify 2: %v", got)
	}
	// Crash; restore from checkpoint 2 (whose notification may or may not
	// have arrived): recommit its pending transactions, abort the one
	// that was open at the snapshot.
	r, actions, err := protocol.RestoreTwoPhaseCommit(s2, 2, "t9", 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := actionsString(actions); got != "[commit t1@1 commit t2@2 abort t3@2]" {
		t.Fatalf("restore actions: %s", got)
	}
	if r.Current() != "t9" || len(r.Pending()) != 0 {
		t.Fatalf("restored helper: current %s pending %v", r.Current(), r.Pending())
	}
	// Pre-commits after a restore must be newer than the restored id.
	if _, err := r.PreCommit(2, "t10"); err == nil {
		t.Fatal("pre-commit at the restored id accepted")
	}
}

func TestTwoPhaseCommitBounds(t *testing.T) {
	if _, err := protocol.NewTwoPhaseCommit("", 1); err == nil {
		t.Fatal("empty transaction id accepted")
	}
	if _, err := protocol.NewTwoPhaseCommit("a", 0); err == nil {
		t.Fatal("maxPending 0 accepted")
	}
	c, _ := protocol.NewTwoPhaseCommit("a", 2)
	if _, err := c.PreCommit(1, "a"); err == nil {
		t.Fatal("reused transaction id accepted")
	}
	c.PreCommit(1, "b")
	c.PreCommit(2, "c")
	if _, err := c.PreCommit(3, "d"); !errors.Is(err, protocol.ErrTooManyPendingTransactions) {
		t.Fatalf("third pre-commit with maxPending 2: %v", err)
	}
	if c.Current() != "c" {
		t.Fatalf("a refused pre-commit changed the current transaction to %s", c.Current())
	}
}

func TestTwoPhaseCommitRestoreRejectsForeignState(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("restore of a state holding a later checkpoint's transaction did not panic")
		}
	}()
	state := protocol.TwoPhaseCommitState{Pending: []protocol.PendingTransaction{{Checkpoint: 5, Transaction: "x"}}}
	protocol.RestoreTwoPhaseCommit(state, 4, "y", 4)
}

// TestTwoPhaseCommitAbortsDoNotStall: transactions of aborted checkpoints
// stay pending (the next completion commits them) but no longer count
// towards maxPending. If they did, maxPending aborts in a row would make
// every later pre-commit fail, the sink would decline every checkpoint,
// and none could complete to commit them.
func TestTwoPhaseCommitAbortsDoNotStall(t *testing.T) {
	c, _ := protocol.NewTwoPhaseCommit("t1", 2)
	for id := protocol.CheckpointID(1); id <= 5; id++ {
		if _, err := c.PreCommit(id, protocol.TransactionID(fmt.Sprintf("t%d", id+1))); err != nil {
			t.Fatalf("pre-commit %v after %v aborts: %v", id, id-1, err)
		}
		c.NotifyCheckpointAborted(id)
		c.NotifyCheckpointAborted(id) // repeated: counted once
	}
	// Two open pre-commits fill the bound; aborted ones do not.
	c.PreCommit(6, "t7")
	state, err := c.PreCommit(7, "t8")
	if err != nil {
		t.Fatalf("second open pre-commit: %v", err)
	}
	if len(state.Pending) != 7 {
		t.Fatalf("snapshot of 7 lists %d pending transactions, want all 7: %v", len(state.Pending), state)
	}
	if _, err := c.PreCommit(8, "t9"); !errors.Is(err, protocol.ErrTooManyPendingTransactions) {
		t.Fatalf("third open pre-commit with maxPending 2: %v", err)
	}
	// The next completion commits the aborted checkpoints' transactions
	// with its own, oldest first, and frees the bound.
	if got := actionsString(c.NotifyCheckpointComplete(6)); got != "[commit t1@1 commit t2@2 commit t3@3 commit t4@4 commit t5@5 commit t6@6]" {
		t.Fatalf("notify 6: %s", got)
	}
	if _, err := c.PreCommit(8, "t9"); err != nil {
		t.Fatalf("pre-commit after the completion: %v", err)
	}
}

// TestTwoPhaseCommitBoundsAbortedTransactions: aborted checkpoints'
// transactions are bounded too, by MaxPendingCheckpointsLimit; that many
// aborts without a completion is a job that cannot checkpoint at all.
func TestTwoPhaseCommitBoundsAbortedTransactions(t *testing.T) {
	c, _ := protocol.NewTwoPhaseCommit("t0", 1)
	for id := protocol.CheckpointID(1); id <= protocol.MaxPendingCheckpointsLimit; id++ {
		if _, err := c.PreCommit(id, protocol.TransactionID(fmt.Sprintf("t%d", id))); err != nil {
			t.Fatalf("pre-commit %v: %v", id, err)
		}
		c.NotifyCheckpointAborted(id)
	}
	if _, err := c.PreCommit(protocol.MaxPendingCheckpointsLimit+1, "last"); !errors.Is(err, protocol.ErrTooManyPendingTransactions) {
		t.Fatalf("pre-commit beyond the limit of aborted transactions: %v", err)
	}
}
