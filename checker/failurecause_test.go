package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestFailureCauseFlagsAFailureWithoutCause: a sink that fails by itself while nothing could
// make it (FLINK-10377's needless failure) is named; the same failure after a storage fault,
// an external-system fault or a failover is not; an injected crash (no reason) is not judged.
func TestFailureCauseFlagsAFailureWithoutCause(t *testing.T) {
	b := newTB()
	b.add(trace.Event{Kind: trace.KindFault, Fault: "net.delay", From: "source-1", To: "map-1"})
	b.crash("sum-0") // injected: no reason
	bad := b.add(trace.Event{Kind: trace.KindTaskCrash, Task: "sink-0", Reason: "sink: checkpoint 5 completed, but no transaction pending for it"})
	wantFirst(t, FailureCause(b.events), bad, "sink-0 failed by itself (sink: checkpoint 5 completed")

	for _, cause := range []trace.Event{
		{Kind: trace.KindFault, Fault: "storage.fail", Attrs: []trace.Attr{{Key: "store", Value: "state"}}},
		{Kind: trace.KindFault, Fault: "external.commit-fail"},
		{Kind: trace.KindFault, Fault: "pause.host", Attrs: []trace.Attr{{Key: "host", Value: "ext"}}},
		{Kind: trace.KindJobFailover, CP: 3, Reason: "task-failure"},
		{Kind: trace.KindCoordinatorCrash},
	} {
		c := newTB()
		c.add(cause)
		c.add(trace.Event{Kind: trace.KindTaskCrash, Task: "sink-0", Reason: "sink commit: extstore: fenced"})
		wantPass(t, FailureCause(c.events))
	}

	// The end of a storage fault causes nothing.
	d := newTB()
	d.add(trace.Event{Kind: trace.KindFault, Fault: "storage.fail", Attrs: []trace.Attr{{Key: "end", Value: "true"}}})
	late := d.add(trace.Event{Kind: trace.KindTaskCrash, Task: "map-0", Reason: "restore: read failed"})
	wantFirst(t, FailureCause(d.events), late, "map-0 failed by itself")

	e := newTB()
	e.crash("sum-0")
	if res := FailureCause(e.events); res.Verdict != VerdictUnexercised {
		t.Errorf("only injected crashes: %s, want unexercised", res.Verdict)
	}
}

// TestFailureCauseStorageOnlyWhileRestoring: a storage fault can fail a task only while it
// reads its state back, before its task.restore; once it runs, a failure after a storage
// fault alone has no cause (a failed upload declines instead), until a failover restarts it.
func TestFailureCauseStorageOnlyWhileRestoring(t *testing.T) {
	b := newTB()
	b.restore("map-0", 0)
	b.fault("storage.fail", "id=1")
	bad := b.failTask("map-0", "upload: write failed")
	wantFirst(t, FailureCause(b.events), bad, "nor a storage fault while it restored")

	c := newTB()
	c.fault("storage.unavailable", "id=1")
	c.restore("map-0", 0)
	c.crash("map-0")
	c.failTask("map-0", "restore: unavailable") // the next incarnation, restoring
	wantPass(t, FailureCause(c.events))
}

// TestFailureCauseFlagsACoordinatorFailingByItself: a coordinator.crash with a reason is the
// coordinator failing by itself, which nothing causes; an injected one (no reason) is not.
func TestFailureCauseFlagsACoordinatorFailingByItself(t *testing.T) {
	b := newTB()
	b.add(trace.CoordinatorCrash())
	failed := b.add(trace.CoordinatorFailed("error: index out of range [-1] at engine/slots.go:108"))
	wantFirst(t, FailureCause(b.events), failed, "the coordinator failed by itself (error: index out of range")
}
