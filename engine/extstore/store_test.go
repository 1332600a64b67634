package extstore

import (
	"errors"
	"slices"
	"strconv"
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
	epoch, _ := s.InitWriter("sink-0", 1)
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
	if _, err := s.Prepare("sink-0", epoch, "t1", 3, 2); err != nil {
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
	epoch, _ := s.InitWriter("w", 1)
	txn := mustBegin(t, s, "w", epoch, "t1", 0)
	if err := s.Write("w", epoch, "t1", []string{"a"}, []int64{1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare("w", epoch, "t1", 1, 1); err != nil {
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
	next, _ := s.InitWriter("w", 2)
	outcomes, err := s.Recover("w", next, []string{"t1"})
	if err != nil || len(outcomes) != 1 || !errors.Is(outcomes[0].Err, ErrAborted) {
		t.Fatalf("recovering commit of a timed-out transaction: %+v", outcomes)
	}
	if s.Visible() != 0 {
		t.Fatal("lost data became visible")
	}
	mustBegin(t, s, "w", next, "t2", 100)
}

func TestRecoverCommitsPendingAndAbortsTheRest(t *testing.T) {
	s := New(0)
	e1, _ := s.InitWriter("w", 1)
	for _, id := range []string{"t1", "t2", "t3"} {
		mustBegin(t, s, "w", e1, id, 0)
		if err := s.Write("w", e1, id, []string{id}, []int64{1}); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = s.Prepare("w", e1, "t1", 1, 1)
	_, _ = s.Prepare("w", e1, "t2", 2, 1)
	// A new incarnation aborts open t3 at once; its recovery commits t1 and aborts t2.
	e2, aborted := s.InitWriter("w", 2)
	if len(aborted) != 1 || aborted[0].ID != "t3" {
		t.Fatalf("InitWriter aborted %v", aborted)
	}
	out, err := s.Recover("w", e2, []string{"t1"})
	if err != nil || len(out) != 2 || !out[0].Commit || !out[0].Applied || out[1].Txn != "t2" || out[1].Commit {
		t.Fatalf("recover: %+v", out)
	}
	if s.Visible() != 1 || s.Txn("t2").State != Aborted {
		t.Fatalf("visible %d, t2 %v", s.Visible(), s.Txn("t2").State)
	}
}

func TestTransientCommitFailures(t *testing.T) {
	s := New(0)
	e, _ := s.InitWriter("w", 1)
	mustBegin(t, s, "w", e, "t1", 0)
	_, _ = s.Prepare("w", e, "t1", 1, 0)
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

// TestRefsRenderInWriteOrder mixes compact and named writes in one transaction and appends
// after it: rows come back in the order written, with compact ids rendered from the
// origins, and an aborted transaction's rows never show.
func TestRefsRenderInWriteOrder(t *testing.T) {
	s := New(0)
	s.SetOrigins([]string{"src:0:", "src:1:"})
	epoch, _ := s.InitWriter("w", 1)
	mustBegin(t, s, "w", epoch, "t1", 0)
	mustBegin(t, s, "w", epoch, "t2", 0)
	if err := s.WriteRefs("w", epoch, "t1", []Ref{{Origin: 1, Seq: 7, Value: 3}, {Origin: 0, Seq: 12, Value: 4}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Write("w", epoch, "t1", []string{"named"}, []int64{5}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteRefs("w", epoch, "t2", []Ref{{Origin: 0, Seq: 1, Value: 9}}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteRefs("w", epoch, "t1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare("w", epoch, "t1", 1, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Abort("w", "t2", "test"); err != nil {
		t.Fatal(err)
	}
	if applied, txn, err := s.Commit("w", "t1"); err != nil || !applied || txn.Records() != 3 {
		t.Fatalf("commit: %v %v %+v", applied, err, txn)
	}
	s.Append("w", "appended", 6)
	var got []string
	for _, r := range s.Rows() {
		got = append(got, r.RID+"="+strconv.FormatInt(r.Value, 10)+"@"+r.Txn)
	}
	want := []string{"src:1:7=3@t1", "src:0:12=4@t1", "named=5@t1", "appended=6@"}
	if !slices.Equal(got, want) || s.Visible() != 4 {
		t.Fatalf("rows %v (visible %d), want %v", got, s.Visible(), want)
	}
}

// TestRetriedRequestsChangeNothing: a sink sends init, prepare, commit and recover again
// when it hears nothing back (the store may have been down). Each repetition of a request
// the store applied must leave the store as the first did.
func TestRetriedRequestsChangeNothing(t *testing.T) {
	s := New(0)
	e1, _ := s.InitWriter("w", 7)
	if again, aborted := s.InitWriter("w", 7); again != e1 || len(aborted) != 0 {
		t.Fatalf("repeated init of session 7: epoch %d (was %d), aborted %v", again, e1, aborted)
	}
	mustBegin(t, s, "w", e1, "t1", 0)
	if err := s.Write("w", e1, "t1", []string{"a"}, []int64{1}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		if applied, err := s.Prepare("w", e1, "t1", 4, 1); err != nil || applied != want {
			t.Fatalf("prepare %d: applied %v, %v", i, applied, err)
		}
	}
	// The next incarnation recovers t1 and opens t2; a repeated recover leaves t2 alone.
	e2, _ := s.InitWriter("w", 8)
	for i := range 2 {
		if _, err := s.Recover("w", e2, []string{"t1"}); err != nil {
			t.Fatalf("recover %d: %v", i, err)
		}
		if i == 0 {
			mustBegin(t, s, "w", e2, "t2", 0)
		}
	}
	if s.Txn("t2").State != Open || s.Txn("t1").State != Committed || s.Visible() != 1 {
		t.Fatalf("after recovering twice: t1 %v, t2 %v, visible %d", s.Txn("t1").State, s.Txn("t2").State, s.Visible())
	}
	// The predecessor's recover, still on its way, is fenced and does nothing.
	if _, err := s.Recover("w", e1, nil); !errors.Is(err, ErrFenced) {
		t.Fatalf("recover of a fenced incarnation: %v", err)
	}
}

// TestLostWritesAreFound: writes travel unanswered, so the store may miss some while it is
// down. A transaction missing records is aborted at its pre-commit instead of being
// committed short, and an upsert or append writer's confirmation reports records missing.
func TestLostWritesAreFound(t *testing.T) {
	s := New(0)
	epoch, _ := s.InitWriter("w", 1)
	mustBegin(t, s, "w", epoch, "t1", 0)
	if err := s.Write("w", epoch, "t1", []string{"a", "b"}, []int64{1, 2}); err != nil {
		t.Fatal(err)
	}
	if applied, err := s.Prepare("w", epoch, "t1", 1, 3); !applied || !errors.Is(err, ErrIncomplete) || s.Txn("t1").State != Aborted {
		t.Fatalf("prepare of 2 of 3 records: applied %v, %v, state %v", applied, err, s.Txn("t1").State)
	}
	// Records 0-1 arrive, 2 is lost, 3 arrives: a confirmation of 2 records is fine, before
	// record 3 arrived or after (a retried one), but one of 4 or 3 is not.
	s.InitWriter("u", 5)
	s.Received("u", 5, 0, 2)
	s.Received("u", 4, 2, 1) // a predecessor's, arriving late: not counted
	if err := s.Confirm("u", 5, 2); err != nil {
		t.Fatalf("confirm of 2 of 2 records: %v", err)
	}
	s.Received("u", 5, 3, 1)
	if err := s.Confirm("u", 5, 2); err != nil {
		t.Fatalf("confirm of 2 of 2 records, retried: %v", err)
	}
	for _, n := range []int64{3, 4} {
		if err := s.Confirm("u", 5, n); !errors.Is(err, ErrIncomplete) {
			t.Fatalf("confirm of %d records, record 2 lost: %v", n, err)
		}
	}
	if err := s.Confirm("u", 4, 0); !errors.Is(err, ErrFenced) {
		t.Fatalf("confirm of an old session: %v", err)
	}
}
