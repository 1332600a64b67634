package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// unionRescaledTB is a job of two sources, each holding the offsets of two of four
// partitions as union state, whose checkpoint 1 completed, rescaled to three sources and
// failed over to checkpoint 1.
func unionRescaledTB() *tb {
	b := newTB()
	b.snap("src-0", 1, "state=a", "union.src=0:10 2:12")
	b.snap("src-1", 1, "state=b", "union.src=1:11 3:13")
	b.complete(1)
	b.add(trace.JobRescale(1, "claim", "src", 3, []string{"src-0", "src-1", "src-2"}))
	b.add(trace.Event{Kind: trace.KindJobFailover, CP: 1, Reason: "coordinator-recovery"})
	return b
}

// restoreKeeping is a rescaled task.restore from checkpoint 1 that read from and kept
// entries of union state src.
func restoreKeeping(task string, from []string, kept ...trace.Entry) trace.Event {
	return trace.WithUnion(trace.TaskRestoreRescaled(task, 1, "x", from, ""), "src", kept)
}

var both = []string{"src-0", "src-1"}

// TestUnionStateEverywhere: every new source reads both snapshots and the four partitions
// are kept once each, at their offsets.
func TestUnionStateEverywhere(t *testing.T) {
	b := unionRescaledTB()
	b.add(restoreKeeping("src-0", both, trace.Entry{Key: "0", Value: 10}, trace.Entry{Key: "3", Value: 13}))
	b.add(restoreKeeping("src-1", both, trace.Entry{Key: "1", Value: 11}))
	b.add(restoreKeeping("src-2", both, trace.Entry{Key: "2", Value: 12}))
	wantPass(t, RestoreFidelity(b.events))
}

// TestUnionStateEverywhereFlagsItsBreaches: a task given part of the union, an entry kept
// twice or by none, and one kept at another value.
func TestUnionStateEverywhereFlagsItsBreaches(t *testing.T) {
	b := unionRescaledTB()
	bad := b.add(restoreKeeping("src-0", []string{"src-0"}, trace.Entry{Key: "0", Value: 10}, trace.Entry{Key: "3", Value: 13}))
	b.add(restoreKeeping("src-1", both, trace.Entry{Key: "1", Value: 11}))
	b.add(restoreKeeping("src-2", both, trace.Entry{Key: "2", Value: 12}))
	wantFirst(t, RestoreFidelity(b.events), bad, "src-0 restored union state src from checkpoint 1 without src-1's snapshot")

	b = unionRescaledTB()
	b.add(restoreKeeping("src-0", both, trace.Entry{Key: "0", Value: 10}, trace.Entry{Key: "3", Value: 13}))
	b.add(restoreKeeping("src-1", both, trace.Entry{Key: "1", Value: 11}, trace.Entry{Key: "3", Value: 13}))
	last := b.add(restoreKeeping("src-2", both))
	res := RestoreFidelity(b.events)
	wantFirst(t, res, last, "entry 2 of union state src kept by no task")
	if len(res.Violations) != 2 || !strings.Contains(res.Violations[1].Message, "entry 3 of union state src kept by 2 tasks (src-0, src-1)") {
		t.Fatalf("want entry 3 flagged as kept twice, got:\n%s", res)
	}

	b = unionRescaledTB()
	b.add(restoreKeeping("src-0", both, trace.Entry{Key: "0", Value: 10}, trace.Entry{Key: "3", Value: 13}))
	bad = b.add(restoreKeeping("src-1", both, trace.Entry{Key: "1", Value: 13}))
	b.add(restoreKeeping("src-2", both, trace.Entry{Key: "2", Value: 12}))
	wantFirst(t, RestoreFidelity(b.events), bad, "src-1 kept entry 1 of union state src at 13, checkpoint 1 held 11")

	b = unionRescaledTB()
	b.add(restoreKeeping("src-0", both, trace.Entry{Key: "0", Value: 10}, trace.Entry{Key: "3", Value: 13}))
	bad = b.add(trace.WithUnion(restoreKeeping("src-1", both, trace.Entry{Key: "1", Value: 11}), "other", []trace.Entry{{Key: "0", Value: 7}}))
	b.add(restoreKeeping("src-2", both, trace.Entry{Key: "2", Value: 12}))
	wantFirst(t, RestoreFidelity(b.events), bad, "src-1 kept entries of union state other, which no snapshot of checkpoint 1 holds")

	// A task's snapshot taken again for the checkpoint (an id the lost counter of an
	// out-of-model run reuses) replaces its first.
	b = newTB()
	b.snap("src-0", 1, "state=a", "union.src=0:10 2:12")
	b.snap("src-0", 1, "state=a", "union.src=0:11 2:12")
	if res := RestoreFidelity(b.events); res.Verdict == VerdictFail {
		t.Fatalf("a snapshot taken again counted as a second holder:\n%s", res)
	}
	b = newTB()
	b.snap("src-0", 1, "state=a", "union.src=0:10 2:12")
	bad = b.snap("src-1", 1, "state=b", "union.src=1:11 2:12")
	wantFirst(t, RestoreFidelity(b.events), bad, "entry 2 of union state src held by the snapshots of src-0 and src-1 for checkpoint 1")
}

// TestUnionStateWithoutKeptIsUnknown: restores that do not say what they kept of a union
// state the checkpoint held leave the property unknown.
func TestUnionStateWithoutKeptIsUnknown(t *testing.T) {
	b := unionRescaledTB()
	for _, task := range []string{"src-0", "src-1", "src-2"} {
		b.add(trace.TaskRestoreRescaled(task, 1, "x", both, ""))
	}
	wantUnknown(t, RestoreFidelity(b.events), "no restore says which entries it kept")
}
