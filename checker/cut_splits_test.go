package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// splitRun is a job with one split source of readers src-0 and src-1 and splits s:0 to s:2:
// s:0 goes to src-0 and s:1 to src-1 before checkpoint 1, whose trigger leaves s:2 with the
// enumerator; the readers' snapshots hold what held lists for each.
func splitRun(held map[string]string) (*tb, uint64) {
	b := newTB()
	b.restore("src-0", 0)
	b.restore("src-1", 0)
	b.add(trace.SplitAssign("src-0", "s:0"))
	b.add(trace.SplitAssign("src-1", "s:1"))
	b.add(trace.SplitAdd("src-0", "s:0"))
	b.add(trace.SplitAdd("src-1", "s:1"))
	b.add(trace.WithUnassigned(trace.CheckpointTrigger(1, false), []string{"s:2"}))
	for _, task := range []string{"src-0", "src-1"} {
		b.snap(task, 1, "sent.sum-0=0", "splits="+held[task])
	}
	b.snap("sum-0", 1, "recv.src-0=0", "recv.src-1=0")
	return b, b.complete(1)
}

func TestSplitsAreHeldOnceAtEveryCheckpoint(t *testing.T) {
	b, _ := splitRun(map[string]string{"src-0": "s:0=4", "src-1": "s:1=2"})
	wantPass(t, ConsistentCut(b.events, Reference{}))

	// An assignment sent while checkpoint 1 was pending taken before the reader's snapshot:
	// s:2 is in the enumerator's state and in src-1's snapshot.
	twice, complete := splitRun(map[string]string{"src-0": "s:0=4", "src-1": "s:1=2 s:2=0"})
	v := wantFirst(t, ConsistentCut(twice.events, Reference{}), complete, "checkpoint 1 holds split s:2 twice, by the enumerator and src-1")
	wantRule(t, v, ruleSplitsHeldOnce)

	// An assignment sent before the trigger, missing from the reader's snapshot: s:1 is
	// nowhere.
	lost, complete := splitRun(map[string]string{"src-0": "s:0=4", "src-1": ""})
	wantFirst(t, ConsistentCut(lost.events, Reference{}), complete, "checkpoint 1 holds split s:1 nowhere")
}

func TestASplitGoesToOneReaderAtATime(t *testing.T) {
	b, _ := splitRun(map[string]string{"src-0": "s:0=4", "src-1": "s:1=2"})
	b.add(trace.SplitAssign("src-0", "s:2"))
	b.add(trace.JobFailover(1, "task-failure"))
	b.restore("src-0", 1)
	b.restore("src-1", 1)
	b.add(trace.SplitAssign("src-0", "s:2")) // the enumerator's again, from checkpoint 1
	wantPass(t, ConsistentCut(b.events, Reference{}))

	// src-1 restored s:1 from checkpoint 1: giving it to src-0 has both read it.
	bad := b.add(trace.SplitAssign("src-0", "s:1"))
	v := wantFirst(t, ConsistentCut(b.events, Reference{}), bad, "split s:1 assigned to src-0 while src-1 holds it")
	wantRule(t, v, ruleSplitsOneOwner)
}

// A trace that assigns splits but lists them at no checkpoint lacks the evidence: an empty
// list and an absent one read alike, so consistent-cut is unknown, not failed.
func TestSplitsWithoutTheirListsAreUnknown(t *testing.T) {
	b := newTB()
	b.restore("src-0", 0)
	b.add(trace.SplitAssign("src-0", "s:0"))
	b.add(trace.SplitAdd("src-0", "s:0"))
	b.trigger(1)
	b.snap("src-0", 1, "sent.sum-0=0")
	b.snap("sum-0", 1, "recv.src-0=0")
	b.complete(1)
	wantUnknown(t, ConsistentCut(b.events, Reference{}), "no checkpoint.trigger lists the enumerator's splits")
}

// A reader that crashed holds nothing: a region failover may hand its splits out again
// before it is restored.
func TestACrashedReaderHoldsNoSplit(t *testing.T) {
	b, _ := splitRun(map[string]string{"src-0": "s:0=4", "src-1": "s:1=2"})
	b.add(trace.TaskCrash("src-1", ""))
	b.add(trace.SplitAssign("src-0", "s:1"))
	wantPass(t, ConsistentCut(b.events, Reference{}))
}
