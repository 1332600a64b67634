package checker

import "testing"

func TestRestoreFidelityPassesWhenStateMatchesTheSnapshot(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.snap("sum", 1, "state=ab12")
	b.complete(1)
	b.crash("sum")
	b.restore("sum", 1, "state=ab12")
	wantPass(t, RestoreFidelity(b.events))
}

func TestRestoreFidelityFlagsWrongRestoredState(t *testing.T) {
	b := newTB()
	b.snap("sum", 1, "state=ab12")
	b.complete(1)
	b.snap("sum", 2, "state=cd34")
	b.complete(2)
	b.crash("sum")
	bad := b.restore("sum", 2, "state=ab12") // checkpoint 2, but checkpoint 1's state
	wantFirst(t, RestoreFidelity(b.events), bad, `sum restored state "ab12" from checkpoint 2, but its snapshot (seq 2) saved "cd34"`)
}

func TestRestoreFidelityFlagsRestoreFromIncompleteCheckpoint(t *testing.T) {
	b := newTB()
	b.snap("sum", 1, "state=ab12")
	b.complete(1)
	b.snap("sum", 2, "state=cd34")
	b.crash("sum")
	bad := b.restore("sum", 2, "state=cd34")
	wantFirst(t, RestoreFidelity(b.events), bad, "task.restore from checkpoint 2, which had not completed")
}

func TestRestoreFidelityFlagsAutomaticRestoreFromSavepoint(t *testing.T) {
	b := newTB()
	b.savepoint(1)
	b.snap("sum", 1, "state=ab12")
	b.complete(1)
	b.crash("sum")
	bad := b.restore("sum", 1, "state=ab12")
	wantFirst(t, RestoreFidelity(b.events), bad, "from savepoint 1: savepoints are never used for automatic recovery")
}

func TestRestoreFidelityFlagsMissingDigestAndMissingSnapshot(t *testing.T) {
	b := newTB()
	b.snap("sum", 1, "state=ab12")
	b.complete(1)
	noDigest := b.restore("sum", 1)
	noSnapshot := b.restore("other", 1, "state=ff")
	res := RestoreFidelity(b.events)
	wantFirst(t, res, noDigest, "without a state digest")
	if len(res.Violations) != 2 || res.Violations[1].Seq != noSnapshot {
		t.Fatalf("want the restore of a task without a snapshot flagged too:\n%s", res)
	}
}
