package checker

import "testing"

// finishedSource builds the start of a trace where source a took its snapshot of checkpoint
// 1, which completed, and then finished: every later checkpoint holds that snapshot, and the
// trace must say so with snapshot.carried.
func finishedSource() *tb {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5")
	b.complete(1)
	b.finish("a")
	return b
}

// A finished sender's carried snapshot left out of the trace is missing evidence, not a
// sender without a snapshot. The reproducer was a foreign engine that followed protocol's
// "Tracing" section, which did not mention snapshot.carried: consistent-cut failed a
// correct run.
func TestConsistentCutIsUnknownWithoutTheCarriedSnapshotOfAFinishedSender(t *testing.T) {
	b := finishedSource()
	b.snap("b", 2, "recv.a=5")
	b.complete(2)
	wantUnknown(t, ConsistentCut(b.events, Reference{}),
		"checkpoint 2: no snapshot.carried of a for it: a's snapshot of checkpoint 1 (seq 0) is its final one (task.finish at seq 3)")
}

// Holding no records from the finished sender is no better evidence: its final snapshot may
// say it sent some.
func TestConsistentCutIsUnknownWithoutTheCarriedSnapshotWhateverTheReceiverHolds(t *testing.T) {
	b := finishedSource()
	b.snap("b", 2, "recv.a=0")
	b.complete(2)
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "no snapshot.carried of a")
}

// The same holds for a finished receiver.
func TestConsistentCutIsUnknownWithoutTheCarriedSnapshotOfAFinishedReceiver(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5")
	b.complete(1)
	b.finish("b")
	b.snap("a", 2, "sent.b=5")
	b.complete(2)
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "no snapshot.carried of b")
}

// A task finishes once it hears that a checkpoint holding its final snapshot completed, so
// checkpoints in between carry the snapshot before task.finish is traced: the finish may
// come after the cut that lacks the task. Found by removing snapshot.carried events from a
// run of uneven-finish-notify-lost, which then failed.
func TestConsistentCutIsUnknownWithoutACarriedSnapshotOfATaskThatFinishesLater(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5")
	b.complete(1)
	b.snap("b", 2, "recv.a=5")
	b.complete(2)
	b.finish("a")
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "checkpoint 2: no snapshot.carried of a for it")
}

// With the carried snapshot in the trace the cut is judged.
func TestConsistentCutJudgesTheCarriedSnapshotOfAFinishedSender(t *testing.T) {
	b := finishedSource()
	b.carry("a", 2, 1)
	b.snap("b", 2, "recv.a=5")
	b.complete(2)
	wantPass(t, ConsistentCut(b.events, Reference{}))
}

// A sender that never finished has no snapshot to carry: its records at the receiver are a
// violation, as is a finished sender that never took a snapshot
// (TestConsistentCutFlagsRecordsFromASenderMissingFromTheCut) and one that runs again after
// it finished.
func TestConsistentCutFlagsASenderThatDidNotFinish(t *testing.T) {
	b := newTB()
	b.snap("a", 1, "sent.b=5")
	b.snap("b", 1, "recv.a=5")
	b.complete(1)
	bad := b.snap("b", 2, "recv.a=5")
	b.complete(2)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "b holds 5 records from a, which has no snapshot in it")

	b = finishedSource()
	b.restore("a", 1)
	bad = b.snap("b", 2, "recv.a=5")
	b.complete(2)
	wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "b holds 5 records from a, which has no snapshot in it")
}
