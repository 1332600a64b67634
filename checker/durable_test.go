package checker

import (
	"bytes"
	"strings"
	"testing"
)

// failoverRun is a correct history of the completed-checkpoint store: checkpoint 1 completes
// and is made visible; the coordinator crashes while writing checkpoint 2 and its successor
// recovers 1; checkpoint 3 then completes, and a second failover recovers 3.
func failoverRun() *tb {
	b := newTB()
	b.recover(0)
	b.trigger(1)
	b.persist(1)
	b.complete(1)
	b.notify("sink", 1)
	b.commit("sink", 1, "t1")
	b.trigger(2)
	b.persist(2)
	b.coordCrash()
	b.recover(1)
	b.trigger(3)
	b.persist(3)
	b.complete(3)
	b.coordCrash()
	b.recover(3)
	return b
}

func TestDurableBeforeVisiblePassesFailoverHistory(t *testing.T) {
	wantPass(t, DurableBeforeVisible(failoverRun().events, SearchOptions{}))
}

// Writes to the store with nothing that depends on it (no notification, commit of a
// checkpoint or recovery) cannot break the rule: unexercised, never a pass.
func TestDurableBeforeVisibleWithoutObservationsIsUnexercised(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.persist(1)
	b.complete(1)
	b.trigger(2)
	b.persist(2)
	b.coordCrash()
	if res := DurableBeforeVisible(b.events, SearchOptions{}); res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "nothing made a completion visible") {
		t.Errorf("writes alone: %s", res)
	}
	b.notify("sink", 1)
	wantPass(t, DurableBeforeVisible(b.events, SearchOptions{}))
}

func TestDurableBeforeVisibleAllowsRecoveringAPendingWrite(t *testing.T) {
	// The crashed incarnation's write of 2 may have landed after all.
	b := newTB()
	b.trigger(1)
	b.persist(1)
	b.complete(1)
	b.trigger(2)
	b.persist(2)
	b.coordCrash()
	b.recover(2)
	wantPass(t, DurableBeforeVisible(b.events, SearchOptions{}))
}

func TestDurableBeforeVisibleFlagsNotificationAndCommitBeforeCompletion(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.persist(1)
	notified := b.notify("sink", 1)
	committed := b.commit("sink", 1, "t1")
	b.complete(1)
	res := DurableBeforeVisible(b.events, SearchOptions{})
	wantFirst(t, res, notified, "sink notified of checkpoint 1 before it was durably complete")
	if len(res.Violations) != 2 || res.Violations[1].Seq != committed {
		t.Fatalf("want the early commit flagged too:\n%s", res)
	}
}

// recoveryBehindVisible: checkpoint 2 completes and a sink commits its transaction; then the
// coordinator fails over and the new incarnation recovers 1, as if 2 never completed.
func recoveryBehindVisible() (*tb, uint64) {
	b := newTB()
	b.trigger(1)
	b.persist(1)
	b.complete(1)
	b.trigger(2)
	b.persist(2)
	b.complete(2)
	b.notify("sink", 2)
	b.commit("sink", 2, "t2")
	b.coordCrash()
	return b, b.recover(1)
}

func TestDurableBeforeVisibleFlagsRecoveryBehindVisibleCheckpoint(t *testing.T) {
	b, bad := recoveryBehindVisible()
	wantFirst(t, DurableBeforeVisible(b.events, SearchOptions{}), bad,
		"coordinator recovered checkpoint 1, behind checkpoint 2 whose completion was made visible at seq 6")
}

func TestDurableBeforeVisibleFlagsRecoveryBehindDurableCheckpoint(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.persist(1)
	b.complete(1)
	b.coordCrash()
	bad := b.recover(0)
	wantFirst(t, DurableBeforeVisible(b.events, SearchOptions{}), bad, "behind checkpoint 1 durably completed at seq 2")
}

func TestDurableBeforeVisibleFlagsRecoveryOfUnwrittenCheckpoint(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.persist(1)
	b.complete(1)
	b.coordCrash()
	bad := b.recover(7)
	wantFirst(t, DurableBeforeVisible(b.events, SearchOptions{}), bad, "recovered checkpoint 7, which was never written")
}

func TestDurableBeforeVisibleWritesVisualizationOnViolation(t *testing.T) {
	b, _ := recoveryBehindVisible()
	var picture bytes.Buffer
	res := DurableBeforeVisible(b.events, SearchOptions{Picture: &picture})
	if res.Verdict != VerdictFail || !strings.Contains(res.Note, pictureNote) {
		t.Fatalf("want a failure noting the visualization, got:\n%s", res)
	}
	if html := picture.String(); !strings.Contains(html, "recover()") || !strings.Contains(html, "visible(2)") {
		t.Fatalf("visualization should describe the recovery and the visible completion")
	}

	var clean bytes.Buffer
	wantPass(t, DurableBeforeVisible(failoverRun().events, SearchOptions{Picture: &clean}))
	if clean.Len() != 0 {
		t.Fatalf("no visualization should be written for a linearizable history (%d bytes)", clean.Len())
	}
}

// Check hands its step budget to the store history's porcupine check: a budget too small for
// the history is unknown, the same on every machine.
func TestCheckPassesItsStepBudgetToTheStoreHistory(t *testing.T) {
	events := failoverRun().events
	only := []Property{PropDurableVisible}
	tight := Check(events, Reference{}, Options{Properties: only, SearchSteps: 2})
	if r := tight.Results[0]; r.Verdict != VerdictUnknown || r.Note != "porcupine ran out of its budget of 2 model steps" {
		t.Fatalf("want unknown after 2 steps, got:\n%s", r)
	}
	wantPass(t, Check(events, Reference{}, Options{Properties: only}).Results[0])
}

// TestDurableBeforeVisibleDecidesManyLostWrites: a metadata store that failed every write
// left eighteen writes pending when the coordinator crashed, and the successor recovered
// the last completed checkpoint (generated seed 10207 had nineteen: 5.5 million steps for
// the whole history). The history without the writes no recovery read back has a
// linearization, which is one of the whole history, so a small budget decides it.
func TestDurableBeforeVisibleDecidesManyLostWrites(t *testing.T) {
	b := newTB()
	b.persist(1)
	b.complete(1)
	b.notify("map-0", 1)
	for cp := uint64(2); cp < 20; cp++ {
		b.persist(cp)
	}
	b.coordCrash()
	b.recover(1)
	for cp := uint64(20); cp < 24; cp++ {
		b.persist(cp)
		b.complete(cp)
		b.notify("map-0", cp)
	}
	res := DurableBeforeVisible(b.events, SearchOptions{Steps: 100_000})
	wantPass(t, res)

	b.recover(5) // behind 23: the pending writes cannot explain it
	res = DurableBeforeVisible(b.events, SearchOptions{Steps: 100_000})
	if res.Verdict != VerdictFail {
		t.Fatalf("want a violation for recovering 5, got:\n%s", res)
	}
}
