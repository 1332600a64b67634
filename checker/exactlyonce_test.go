package checker

import (
	"strings"
	"testing"
)

// twoRecords is the reference of the small output tests: r1 and r2, once each.
var twoRecords = Reference{
	Guarantee: GuaranteeExactlyOnce,
	Output:    ExpectOnce(map[string]string{"r1": "v-r1", "r2": "v-r2"}),
}

// normalizeDiff undoes go-cmp's deliberate spacing jitter so tests can look into a diff.
func normalizeDiff(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), " ")
}

func TestExactlyOncePassesWhenEachRecordIsCommittedOnce(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.commit("sink", 1, "t1", "records=2")
	b.commit("sink", 1, "t1", "records=0") // a repeated, idempotent commit
	wantPass(t, ExactlyOnce(b.events, twoRecords))
}

func TestExactlyOnceFlagsLostRecordAtItsUncommittedWrite(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.commit("sink", 1, "t1", "records=1")
	lost := b.write("sink", "t2", "r2")
	b.finish("sink") // the job is over: nothing can commit r2 any more
	res := ExactlyOnce(b.events, twoRecords)
	wantFirst(t, res, lost, `record "r2" lost: its last write, in transaction "t2", was never committed`)
	if d := normalizeDiff(res.Diff); !strings.Contains(d, `- "r2": 1, + "r2": 0,`) {
		t.Fatalf("diff should show r2 committed 0 times:\n%s", res.Diff)
	}
}

// A commit without a records attribute is taken to be idempotent: repeating it, as a sink
// does when it commits again on restore, makes nothing visible a second time. Each layer of
// the trace (exactly-once, listener contract, sink visibility) must agree on that.
func TestExactlyOnceCountsARepeatedCommitWithoutRecordsOnce(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.complete(1)
	b.notify("sink", 1)
	b.commit("sink", 1, "t1")
	b.commit("sink", 1, "t1") // the same commit again, after a restore
	wantPass(t, ExactlyOnce(b.events, twoRecords))
	wantPass(t, ListenerContract(b.events, twoRecords))
	b.read("reader-0", b.now(), "2")
	wantPass(t, SinkVisibility(b.events, SearchOptions{}))
}

func TestExactlyOnceFlagsTransactionThatTimedOutInTheStore(t *testing.T) {
	// The classic exactly-once loss: the store dropped the transaction, so its commit
	// succeeds with nothing to make visible.
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	empty := b.commit("sink", 1, "t1", "records=0")
	res := ExactlyOnce(b.events, twoRecords)
	wantFirst(t, res, empty, `the commit of its transaction "t1" made no records visible`)
	if len(res.Violations) != 2 {
		t.Fatalf("want r1 and r2 lost, got:\n%s", res)
	}
}

func TestExactlyOnceFlagsDuplicateAtTheCommitThatRepeatsIt(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.commit("sink", 1, "t1", "records=2")
	// After a failover the source replays r2 into a new transaction, which commits too.
	b.write("sink", "t2", "r2")
	dup := b.commit("sink", 2, "t2", "records=1")
	res := ExactlyOnce(b.events, twoRecords)
	wantFirst(t, res, dup, `record "r2" duplicated: committed 2 times, expected 1`)
	if d := normalizeDiff(res.Diff); !strings.Contains(d, `- "r2": 1, + "r2": 2,`) {
		t.Fatalf("diff should show r2 committed twice:\n%s", res.Diff)
	}
}

func TestExactlyOnceFlagsNonIdempotentRecommit(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.commit("sink", 1, "t1", "records=2")
	again := b.commit("sink", 1, "t1", "records=2")
	res := ExactlyOnce(b.events, twoRecords)
	wantFirst(t, res, again, "duplicated: committed 2 times")
	if len(res.Violations) != 2 {
		t.Fatalf("want both records duplicated, got:\n%s", res)
	}
}

func TestExactlyOnceFlagsWrongValueAndUnexpectedRecord(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.writeValue("sink", "t1", "r2", "wrong")
	b.write("sink", "t1", "r9")
	bad := b.commit("sink", 1, "t1")
	res := ExactlyOnce(b.events, twoRecords)
	if res.Verdict != VerdictFail || len(res.Violations) != 2 {
		t.Fatalf("want two violations, got:\n%s", res)
	}
	for _, v := range res.Violations {
		if v.Seq != bad {
			t.Fatalf("violations should be pinned to the commit at seq %d:\n%s", bad, res)
		}
	}
	got := res.String()
	for _, fragment := range []string{`"r2" committed with value "wrong", expected "v-r2"`, `"r9" committed 1 times but is not in the reference`} {
		if !strings.Contains(got, fragment) {
			t.Fatalf("missing %q in:\n%s", fragment, got)
		}
	}
}

func TestExactlyOnceFlagsPartialCommit(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	partial := b.commit("sink", 1, "t1", "records=1")
	wantFirst(t, ExactlyOnce(b.events, twoRecords), partial, "made 1 records visible, but it holds 2 writes")
}

func TestExactlyOnceFlagsRecordNeverWritten(t *testing.T) {
	b := newTB()
	b.write("sink", "t1", "r1")
	b.commit("sink", 1, "t1")
	end := b.finish("sink")
	wantFirst(t, ExactlyOnce(b.events, twoRecords), end, `"r2" lost: never written by a sink`)
}

func TestExactlyOnceJudgesUpsertsByTheirLastValue(t *testing.T) {
	b := newTB()
	b.upsert("sink", "r1", "old")
	b.upsert("sink", "r1", "v-r1")
	b.upsert("sink", "r2", "v-r2")
	b.upsert("sink", "r2", "v-r2") // idempotent: still once
	wantPass(t, ExactlyOnce(b.events, twoRecords))

	wrong := b.upsert("sink", "r2", "stale")
	wantFirst(t, ExactlyOnce(b.events, twoRecords), wrong, `"r2" ends with value "stale"`)
}

func TestExactlyOnceWithoutReferenceIsUnknown(t *testing.T) {
	res := ExactlyOnce(newTB().events, Reference{})
	if res.Verdict != VerdictUnknown {
		t.Fatalf("want unknown, got %s", res)
	}
}

func TestAtLeastOnceAllowsDuplicatesButNotLoss(t *testing.T) {
	ref := Reference{Guarantee: GuaranteeAtLeastOnce, Output: twoRecords.Output}
	b := newTB()
	b.write("sink", "t1", "r1")
	b.write("sink", "t1", "r2")
	b.commit("sink", 1, "t1")
	b.write("sink", "t2", "r2")
	b.commit("sink", 2, "t2")
	wantPass(t, AtLeastOnce(b.events, ref))

	c := newTB()
	c.write("sink", "t1", "r1")
	c.commit("sink", 1, "t1")
	lost := c.write("sink", "t2", "r2")
	c.sinkAbort("sink", "t2")
	c.finish("sink")
	res := AtLeastOnce(c.events, ref)
	wantFirst(t, res, lost, `"r2" lost: its last write, in transaction "t2", was aborted and never redone`)
}

// Before the job finishes, a record not yet committed is not lost: a restore may replay it
// and a later notification commit it. Whether the job had to finish is liveness's to judge.
func TestOutputStillToComeIsNotLost(t *testing.T) {
	b := newTB()
	b.restore("sink", 0)
	b.write("sink", "t1", "r1")
	b.commit("sink", 1, "t1")
	b.write("sink", "t2", "r2") // pending when the trace ends
	for _, res := range []Result{ExactlyOnce(b.events, twoRecords), AtLeastOnce(b.events, twoRecords)} {
		wantUnknown(t, res, `1 expected record(s) (first "r2") not committed when the trace ends: sink task sink did not finish`)
	}

	// A commit that made its transaction's records vanish is a loss at once.
	z := newTB()
	z.write("sink", "t1", "r1")
	z.write("sink", "t1", "r2")
	vanished := z.commit("sink", 1, "t1", "records=0")
	wantFirst(t, ExactlyOnce(z.events, twoRecords), vanished, `"r1" lost: the commit of its transaction "t1" made no records visible`)

	// A duplicate fails whether the job finished or not, and the note keeps what was not judged.
	d := newTB()
	d.write("sink", "t1", "r1")
	d.commit("sink", 1, "t1")
	dup := d.commit("sink", 1, "t1", "records=1")
	res := ExactlyOnce(d.events, twoRecords)
	wantFirst(t, res, dup, `"r1" duplicated`)
	if !strings.Contains(res.Note, `first "r2"`) {
		t.Errorf("note should say r2 may still come: %q", res.Note)
	}
}
