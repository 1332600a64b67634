package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// unalignedRescaledTB is an unaligned job whose checkpoint 1 held records in flight (three
// on sum-0's input from src-0, two queued on src-0's output to sum-1), rescaled to three
// sums and failed over to checkpoint 1; src-0 kept its parallelism.
func unalignedRescaledTB() *tb {
	b := newTB()
	b.snap("src-0", 1, "state=s", "sent.sum-0=10", "sent.sum-1=8", "out.sum-0=0", "out.sum-1=2")
	b.snap("sum-0", 1, "state=a", "recv.src-0=7", "chan.src-0=3")
	b.snap("sum-1", 1, "state=b", "recv.src-0=8", "chan.src-0=0")
	b.complete(1)
	b.add(trace.JobRescale(1, "claim", "sum", 3, []string{"src-0", "sum-0", "sum-1", "sum-2"}))
	b.add(trace.Event{Kind: trace.KindJobFailover, CP: 1, Reason: "coordinator-recovery"})
	return b
}

// restoreReplaying is a rescaled task.restore from checkpoint 1 that replayed replayed.
func restoreReplaying(task string, from []string, replayed ...trace.Entry) trace.Event {
	return trace.WithReplayed(trace.TaskRestoreRescaled(task, 1, "x", from, ""), replayed)
}

// TestChannelStateReplayedOnce: the five records in flight are replayed once between them.
func TestChannelStateReplayedOnce(t *testing.T) {
	b := unalignedRescaledTB()
	b.add(restoreReplaying("src-0", []string{"src-0"}))
	b.add(restoreReplaying("sum-0", []string{"sum-0"}, trace.Entry{Key: "sum-0", Value: 2}))
	b.add(restoreReplaying("sum-1", []string{"sum-1"}, trace.Entry{Key: "src-0", Value: 2}))
	b.add(restoreReplaying("sum-2", nil, trace.Entry{Key: "sum-0", Value: 1}))
	wantPass(t, RestoreFidelity(b.events))
}

// TestChannelStateReplayedOnceFlagsLostAndDoubled: a stateless receiver that takes nothing
// loses src-0's queued records; two tasks that each replay all of sum-0's input double it;
// a restore naming a task that took no snapshot is flagged on its own.
func TestChannelStateReplayedOnceFlagsLostAndDoubled(t *testing.T) {
	b := unalignedRescaledTB()
	b.add(restoreReplaying("src-0", []string{"src-0"}))
	b.add(restoreReplaying("sum-0", []string{"sum-0"}, trace.Entry{Key: "sum-0", Value: 3}))
	b.add(restoreReplaying("sum-1", []string{"sum-1"}))
	last := b.add(restoreReplaying("sum-2", nil))
	wantFirst(t, RestoreFidelity(b.events), last, "src-0's snapshot held 2 records in flight, the new tasks replayed 0: 2 lost")

	b = unalignedRescaledTB()
	b.add(restoreReplaying("src-0", []string{"src-0"}))
	b.add(restoreReplaying("sum-0", []string{"sum-0"}, trace.Entry{Key: "sum-0", Value: 3}))
	b.add(restoreReplaying("sum-1", []string{"sum-1"}, trace.Entry{Key: "src-0", Value: 2}))
	last = b.add(restoreReplaying("sum-2", nil, trace.Entry{Key: "sum-0", Value: 3}))
	wantFirst(t, RestoreFidelity(b.events), last, "sum-0's snapshot held 3 records in flight, the new tasks replayed 6: 3 twice")

	b = unalignedRescaledTB()
	bad := b.add(restoreReplaying("src-0", []string{"src-0"}, trace.Entry{Key: "sum-9", Value: 1}))
	b.add(restoreReplaying("sum-0", []string{"sum-0"}, trace.Entry{Key: "sum-0", Value: 3}))
	b.add(restoreReplaying("sum-1", []string{"sum-1"}, trace.Entry{Key: "src-0", Value: 2}))
	b.add(restoreReplaying("sum-2", nil))
	wantFirst(t, RestoreFidelity(b.events), bad, "replayed 1 records of sum-9's channel state, which took no snapshot for checkpoint 1")
}

// TestChannelStateWithoutReplayedIsUnknown: restores that do not say what they replayed,
// from a checkpoint that held records in flight, leave the property unknown, but for
// records the others replayed twice; from one that held none, they are judged as they are.
func TestChannelStateWithoutReplayedIsUnknown(t *testing.T) {
	b := unalignedRescaledTB()
	for _, task := range []string{"src-0", "sum-0", "sum-1", "sum-2"} {
		b.add(trace.TaskRestoreRescaled(task, 1, "x", nil, ""))
	}
	wantUnknown(t, RestoreFidelity(b.events), "lack replayed")

	// Records replayed twice show though another restore does not say what it replayed.
	b = unalignedRescaledTB()
	b.add(trace.TaskRestoreRescaled("src-0", 1, "x", []string{"src-0"}, ""))
	b.add(restoreReplaying("sum-0", []string{"sum-0"}, trace.Entry{Key: "sum-0", Value: 3}))
	b.add(restoreReplaying("sum-1", []string{"sum-1"}, trace.Entry{Key: "src-0", Value: 2}))
	last := b.add(restoreReplaying("sum-2", nil, trace.Entry{Key: "sum-0", Value: 1}))
	wantFirst(t, RestoreFidelity(b.events), last, "sum-0's snapshot held 3 records in flight, the new tasks replayed 4: 1 twice")

	// Records replayed from a snapshot that counted none of its channels: nothing to judge
	// them by.
	b = rescaledTB()
	b.add(restoreReplaying("sum-0", []string{"sum-0"}, trace.Entry{Key: "sum-1", Value: 2}))
	b.add(restoreReplaying("sum-1", []string{"sum-0", "sum-1"}))
	b.add(restoreReplaying("sum-2", []string{"sum-1"}))
	wantUnknown(t, RestoreFidelity(b.events), "lack replayed")

	b = rescaledTB()
	b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0"}, "0-42"))
	b.add(trace.TaskRestoreRescaled("sum-1", 1, "d", []string{"sum-0", "sum-1"}, "43-85"))
	b.add(trace.TaskRestoreRescaled("sum-2", 1, "e", []string{"sum-1"}, "86-127"))
	wantPass(t, RestoreFidelity(b.events))
}
