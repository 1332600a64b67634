package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func (b *tb) failTask(task, reason string) uint64 {
	return b.add(trace.Event{Kind: trace.KindTaskCrash, Task: task, Reason: reason})
}

// windowed appends a fault of kind with id that lasts until faultEnd.
func (b *tb) windowed(kind, id string) uint64 { return b.fault(kind, "id="+id, "window_ns=1000") }
func (b *tb) faultEnd(kind, id string) uint64 {
	return b.fault(kind, "id="+id, "window_ns=1000", "end=true")
}

// TestFailoverCauseNeedsACause: a failover for a task failure needs a task.crash since the
// last failover, one for a coordinator recovery a coordinator.crash; a crash before the
// previous failover is spent.
func TestFailoverCauseNeedsACause(t *testing.T) {
	b := newTB()
	b.restore("map-0", 0)
	b.crash("map-0")
	b.failover(0, "task-failure")
	b.restore("map-0", 0)
	bad := b.failover(0, "task-failure")
	v := wantFirst(t, FailoverCause(b.events), bad, "the job failed over (task-failure) with no task.crash since it last failed over")
	wantRule(t, v, ruleFailoverHasCause)

	c := newTB()
	c.restore("map-0", 0)
	wrong := c.failover(0, "coordinator-recovery")
	wantFirst(t, FailoverCause(c.events), wrong, "no coordinator.crash")

	good := newTB()
	good.restore("map-0", 0)
	good.crash("map-0")
	good.failover(0, "task-failure")
	good.restore("map-0", 0)
	good.coordCrash()
	good.recover(0)
	good.failover(0, "coordinator-recovery")
	good.restore("map-0", 0)
	good.failover(0, "tolerable-failures-exceeded") // the count's to judge
	wantPass(t, FailoverCause(good.events))
}

// TestFailoverCauseOfAFailedDrain: a drain-failed failover needs a stop-with-savepoint with
// drain aborted since the last failover; a plain stop's abort is no cause.
func TestFailoverCauseOfAFailedDrain(t *testing.T) {
	b := newTB()
	b.restore("map-0", 0)
	b.add(trace.DrainTrigger(1))
	b.abort(1)
	b.failover(0, "drain-failed")
	b.restore("map-0", 0)
	b.add(trace.StopTrigger(2))
	b.abort(2)
	bad := b.failover(0, "drain-failed")
	v := wantFirst(t, FailoverCause(b.events), bad, "the job failed over (drain-failed) with no stop-with-savepoint with drain aborted since it last failed over")
	wantRule(t, v, ruleFailoverHasCause)
}

// uploadRun is a task that snapshots checkpoint 5 under a storage fault that fails writes
// and then fails by itself, with an external-system fault in force too when external.
func uploadRun(external bool) (*tb, uint64) {
	b := newTB()
	b.restore("map-0", 0)
	b.windowed("storage.fail", "1")
	if external {
		b.windowed("external.commit-fail", "2")
	}
	b.trigger(5)
	b.snap("map-0", 5)
	b.faultEnd("storage.fail", "1")
	crash := b.failTask("map-0", "upload: write failed")
	b.failover(0, "task-failure")
	return b, crash
}

// TestFailoverCauseFlagsAnUploadThatFailsTheTask: a task that fails by itself while its
// upload runs under a storage fault failed on the upload, which must decline instead; a
// decline keeps the rule, and so does a failure with no storage fault while it uploads.
func TestFailoverCauseFlagsAnUploadThatFailsTheTask(t *testing.T) {
	b, crash := uploadRun(false)
	v := wantFirst(t, FailoverCause(b.events), crash, "map-0 failed (upload: write failed) while its snapshot for 5 (seq 3) was uploading under storage.fail")
	wantRule(t, v, ruleFailoverHasCause)
	if v.CP != 5 {
		t.Fatalf("the violation names checkpoint %d, want 5", v.CP)
	}

	declined := newTB()
	declined.restore("map-0", 0)
	declined.windowed("storage.fail", "1")
	declined.trigger(5)
	declined.snap("map-0", 5)
	declined.decline("map-0", 5)
	declined.abort(5)
	declined.failover(0, "tolerable-failures-exceeded")
	wantPass(t, FailoverCause(declined.events))

	// The storage fault ended before the snapshot: nothing could fail the upload.
	later := newTB()
	later.restore("map-0", 0)
	later.windowed("storage.fail", "1")
	later.faultEnd("storage.fail", "1")
	later.trigger(5)
	later.snap("map-0", 5)
	later.failTask("map-0", "sink commit: extstore: fenced")
	later.failover(0, "task-failure")
	wantPass(t, FailoverCause(later.events))
}

// TestFailoverCauseWithoutEvidence: with an external-system fault in force too, the failure
// may be the sink's, and a failover for another engine's reason cannot be paired with a
// cause: neither is judged, and with nothing else judged the verdict is unknown. Without a
// failover or such a failure, unexercised.
func TestFailoverCauseWithoutEvidence(t *testing.T) {
	b, _ := uploadRun(true)
	b.events = b.events[:len(b.events)-1] // no failover left to judge
	wantUnknown(t, FailoverCause(b.events), "map-0 failed at seq 6 while it uploaded, with external.commit-fail at seq 2 in force too")

	other := newTB()
	other.restore("map-0", 0)
	other.failover(0, "operator-request")
	wantUnknown(t, FailoverCause(other.events), `the failover at seq 1, for reason "operator-request"`)

	none := newTB()
	none.restore("map-0", 0)
	none.failTask("map-0", "restore: unavailable")
	if res := FailoverCause(none.events); res.Verdict != VerdictUnexercised {
		t.Fatalf("no failover, no upload: want unexercised, got:\n%s", res)
	}
}
