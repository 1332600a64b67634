package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// rescaledTB is a keyed job of two tasks over 128 key groups whose checkpoint 1 completed,
// rescaled to three tasks and failed over to checkpoint 1.
func rescaledTB() *tb {
	b := newTB()
	b.snap("sum-0", 1, "state=a", "keygroups=0-63")
	b.snap("sum-1", 1, "state=b", "keygroups=64-127")
	b.complete(1)
	b.add(trace.JobRescale(1, "claim", "sum", 3, []string{"sum-0", "sum-1", "sum-2"}))
	b.add(trace.Event{Kind: trace.KindJobFailover, CP: 1, Reason: "coordinator-recovery"})
	return b
}

// TestKeyGroupsRestoredOnce: the three tasks of the rescaled job restore from the
// snapshots that hold their key groups, each group once.
func TestKeyGroupsRestoredOnce(t *testing.T) {
	b := rescaledTB()
	b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0"}, "0-42"))
	b.add(trace.TaskRestoreRescaled("sum-1", 1, "d", []string{"sum-0", "sum-1"}, "43-85"))
	b.add(trace.TaskRestoreRescaled("sum-2", 1, "e", []string{"sum-1"}, "86-127"))
	wantPass(t, RestoreFidelity(b.events))
}

// TestKeyGroupsRestoredOnceFlagsALostAndADoubledRange: a task that does not read one of
// the snapshots its groups were in loses them; two tasks owning a group count it twice.
func TestKeyGroupsRestoredOnceFlagsALostAndADoubledRange(t *testing.T) {
	b := rescaledTB()
	b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0"}, "0-42"))
	b.add(trace.TaskRestoreRescaled("sum-1", 1, "d", []string{"sum-1"}, "43-85"))
	last := b.add(trace.TaskRestoreRescaled("sum-2", 1, "e", []string{"sum-1"}, "86-127"))
	wantFirst(t, RestoreFidelity(b.events), last, "key groups of sum-0's snapshot (0-63) 43-63 restored by no task")

	b = rescaledTB()
	b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0"}, "0-42"))
	b.add(trace.TaskRestoreRescaled("sum-1", 1, "d", []string{"sum-0", "sum-1"}, "43-85"))
	last = b.add(trace.TaskRestoreRescaled("sum-2", 1, "e", []string{"sum-1"}, "80-127"))
	wantFirst(t, RestoreFidelity(b.events), last, "key groups of sum-1's snapshot (64-127) 80-85 restored twice")
}

// TestKeyGroupsNotJudgedOnACutShortRound: a round a crash cuts short is not judged, which
// leaves the property unknown while no round is whole, and a restore that names a snapshot
// not taken for the checkpoint is flagged.
func TestKeyGroupsNotJudgedOnACutShortRound(t *testing.T) {
	b := rescaledTB()
	b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0"}, "0-10"))
	b.add(trace.Event{Kind: trace.KindJobFailover, CP: 1, Reason: "task-failure"})
	wantUnknown(t, RestoreFidelity(b.events), "in no whole round")
	b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0"}, "0-42"))
	b.add(trace.TaskRestoreRescaled("sum-1", 1, "d", []string{"sum-0", "sum-1"}, "43-85"))
	b.add(trace.TaskRestoreRescaled("sum-2", 1, "e", []string{"sum-1"}, "86-127"))
	wantPass(t, RestoreFidelity(b.events))
	b = rescaledTB()
	bad := b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-7"}, "0-42"))
	wantFirst(t, RestoreFidelity(b.events), bad, "rescaled from sum-7, which took no snapshot for it")
}
