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

// A restore of a task that took no snapshot for the checkpoint fails; a digest on one side
// only is missing evidence, not a wrong restore: unknown, whichever side lacks it.
func TestRestoreFidelityFlagsMissingSnapshotButNotAMissingDigest(t *testing.T) {
	b := newTB()
	b.snap("sum", 1, "state=ab12")
	b.complete(1)
	b.restore("sum", 1)
	noSnapshot := b.restore("other", 1, "state=ff")
	wantFirst(t, RestoreFidelity(b.events), noSnapshot, "other restored from checkpoint 1, but took no snapshot for it")

	for _, oneSided := range [][2][]string{{{"state=ab12"}, nil}, {nil, {"state=ab12"}}} {
		c := newTB()
		c.snap("sum", 1, oneSided[0]...)
		c.complete(1)
		c.restore("sum", 1, oneSided[1]...)
		wantUnknown(t, RestoreFidelity(c.events), "lack a state digest on the restore or on its snapshot")
	}
}
