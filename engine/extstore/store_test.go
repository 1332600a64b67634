package extstore

import (
	"errors"
	"testing"
)

func mustBegin(t *testing.T, s *Store, writer string, epoch uint64, id string, now int64) *Txn {
	t.Helper()
	txn, err := s.Begin(writer, epoch, id, now)
	if err != nil {
		t.Fatalf("begin %s: %v", id, err)
	}
	return txn
}

func TestTwoPhaseLifecycle(t *testing.T) {
	s := New(0)
	epoch, _ := s.InitWriter("sink-0")
	mustBegin(t, s, "sink-0", epoch, "t1", 0)
	if err := s.Write("sink-0", epoch, "t1", []string{"a", "b"}, []int64{1, 2}); err != nil {
		t.Fatal(err)
	}
	if s.Visible() != 0 {
		t.Fatal("open transaction visible")
	}
	if _, _, err := s.Commit("sink-0", "t1"); !errors.Is(err, ErrTxnState) {
		t.Fatalf("commit of an open transaction: %v", err)
	}
	if err := s.Prepare("sink-0", epoch, "t1", 3); err != nil {
		t.Fatal(err)
	}
	if err := s.Write("sink-0", epoch, "t1", []string{"c"}, []int64{3}); !errors.Is(err, ErrTxnState) {
		t.Fatalf("write into a prepared transaction: %v", err)
	}
	applied, txn, err := s.Commit("sink-0", "t1")
	if err != nil || !applied || txn.Records() != 2 || txn.Checkpoint != 3 {
		t.Fatalf("commit: %v %v %+v", applied, err, txn)
	}
	if applied, _, err := s.Commit("sink-0", "t1"); err != nil || applied {
		t.Fatalf("second commit must be a no-op: %v %v", applied, err)
	}
	if s.Visible() != 2 || len(s.Rows()) != 2 || s.Rows()[1].RID != "b" {
		t.Fatalf("visible %d rows %v", s.Visible(), s.Rows())
	}
}

// TestTimeoutFencesAndLoses is the trap: a prepared transaction that times out is aborted,
// its writer fenced, and a later commit (by a recovering writer) fails: the data is lost.
func TestTimeoutFencesAndLoses(t *testing.T) {
	s := New(100)
	epoch, _ := s.InitWriter("w")
	txn := mustBegin(t, s, "w", epoch, "t1", 0)
	if err := s.Write("w", epoch, "t1", []string{"a"}, []int64{1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Prepare("w", epoch, "t1", 1); err != nil {
		t.Fatal(err)
	}
	if deadline, ok := s.Deadline(txn); !ok || deadline != 100 {
		t.Fatalf("deadline %d %v", deadline, ok)
	}
	if s.Expire("t1", 99) {
		t.Fatal("expired before its deadline")
	}
	if !s.Expire("t1", 100) || txn.State != Aborted || txn.AbortReason != "timeout" {
		t.Fatalf("not expired at its deadline: %+v", txn)
	}
	if _, err := s.Begin("w", epoch, "t2", 100); !errors.Is(err, ErrFenced) {
		t.Fatalf("the timed-out writer was not fenced: %v", err)
	}
	next, _ := s.InitWriter("w")
	outcomes := s.Recover("w", []string{"t1"})
	if len(outcomes) != 1 || !errors.Is(outcomes[0].Err, ErrAborted) {
		t.Fatalf("recovering commit of a timed-out transaction: %+v", outcomes)
	}
	if s.Visible() != 0 {
		t.Fatal("lost data became visible")
	}
	mustBegin(t, s, "w", next, "t2", 100)
}

func TestRecoverCommitsPendingAndAbortsTheRest(t *testing.T) {
	s := New(0)
	e1, _ := s.InitWriter("w")
	for _, id := range []string{"t1", "t2", "t3"} {
		mustBegin(t, s, "w", e1, id, 0)
		if err := s.Write("w", e1, id, []string{id}, []int64{1}); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.Prepare("w", e1, "t1", 1)
	_ = s.Prepare("w", e1, "t2", 2)
	// A new incarnation aborts open t3 at once; its recovery commits t1 and aborts t2.
	_, aborted := s.InitWriter("w")
	if len(aborted) != 1 || aborted[0].ID != "t3" {
		t.Fatalf("InitWriter aborted %v", aborted)
	}
	out := s.Recover("w", []string{"t1"})
	if len(out) != 2 || !out[0].Commit || !out[0].Applied || out[1].Txn != "t2" || out[1].Commit {
		t.Fatalf("recover: %+v", out)
	}
	if s.Visible() != 1 || s.Txn("t2").State != Aborted {
		t.Fatalf("visible %d, t2 %v", s.Visible(), s.Txn("t2").State)
	}
}

func TestTransientCommitFailures(t *testing.T) {
	s := New(0)
	e, _ := s.InitWriter("w")
	mustBegin(t, s, "w", e, "t1", 0)
	_ = s.Prepare("w", e, "t1", 1)
	s.FailCommits(1)
	if _, _, err := s.Commit("w", "t1"); !errors.Is(err, ErrTransient) {
		t.Fatalf("first commit: %v", err)
	}
	calls := 0
	s.SetCommitHook(func(writer, txn string) bool { calls++; return calls == 1 })
	if _, _, err := s.Commit("w", "t1"); !errors.Is(err, ErrTransient) {
		t.Fatalf("hooked commit: %v", err)
	}
	if applied, _, err := s.Commit("w", "t1"); err != nil || !applied {
		t.Fatalf("retry: %v %v", applied, err)
	}
}

func TestUpsertAndAppend(t *testing.T) {
	s := New(0)
	if s.Upsert("w", "a", 1) != 1 || s.Upsert("w", "a", 1) != 0 || s.Upsert("w", "b", 2) != 1 {
		t.Fatal("upsert counts")
	}
	s.Append("w", "a", 1)
	s.Append("w", "a", 1)
	if s.Visible() != 4 {
		t.Fatalf("visible %d, want 2 upserted + 2 appended", s.Visible())
	}
}
