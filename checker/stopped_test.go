package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// fromSource is the reference of the stop tests: src:0's records 0 to 3, once each.
var fromSource = Reference{
	Guarantee: GuaranteeExactlyOnce,
	Output: map[string]Expected{
		"src:0:0": {Value: "v-src:0:0", Count: 1, Split: "src:0", Offset: 0},
		"src:0:1": {Value: "v-src:0:1", Count: 1, Split: "src:0", Offset: 1},
		"src:0:2": {Value: "v-src:0:2", Count: 1, Split: "src:0", Offset: 2},
		"src:0:3": {Value: "v-src:0:3", Count: 1, Split: "src:0", Offset: 3},
	},
	Liveness: LivenessBounds{FinishTasks: []string{"src", "sink"}, JobFinishTraced: true, CheckpointAfterHealNanos: 100},
}

// running is a job of src and sink in its liveness phase, both started.
func running() *tb {
	b := newTB()
	b.phase("liveness")
	b.restore("src", 0)
	b.restore("sink", 0)
	return b
}

func (b *tb) stopTrigger(cp uint64) uint64 { return b.add(trace.StopTrigger(cp)) }

// stopped builds a job that stop-with-savepoint 2 ends with src:0 at offset 2, having
// committed src:0:0 and src:0:1 in its transaction; then extra runs.
func stopped(extra func(b *tb)) *tb {
	b := running()
	b.stopTrigger(2)
	b.add(trace.SnapshotTaken("src", 2, trace.SnapshotState{Stopped: []string{"src:0=2"}}))
	b.write("sink", "t2", "src:0:0")
	b.write("sink", "t2", "src:0:1")
	b.snap("sink", 2)
	b.complete(2)
	b.notify("sink", 2)
	b.commit("sink", 2, "t2", "records=2")
	extra(b)
	b.add(trace.TaskStop("src", 2))
	b.add(trace.TaskStop("sink", 2))
	b.add(trace.JobStop(2))
	b.t += 200
	b.phase("end")
	return b
}

func TestAStoppedJobOwesItsOutputUpToTheCut(t *testing.T) {
	b := stopped(func(*tb) {})
	wantPass(t, ExactlyOnce(b.events, fromSource))
	wantPass(t, AtLeastOnce(b.events, fromSource))
	wantPass(t, Liveness(b.events, fromSource))
}

// A split the enumerator still held at the stop was never read: none of its records is
// owed, and one committed is past the cut.
func TestASplitTheEnumeratorHeldAtTheStopIsOwedNothing(t *testing.T) {
	ref := fromSource
	ref.Output = map[string]Expected{"src:0:0": fromSource.Output["src:0:0"], "src:0:1": fromSource.Output["src:0:1"],
		"src:1:0": {Value: "v-src:1:0", Count: 1, Split: "src:1", Offset: 0}}
	run := func(past bool) (*tb, uint64) {
		b := newTB()
		b.restore("src", 0)
		b.restore("sink", 0)
		b.add(trace.WithUnassigned(trace.StopTrigger(2), []string{"src:1"}))
		b.add(trace.SnapshotTaken("src", 2, trace.SnapshotState{Stopped: []string{"src:0=2"}, IsReader: true, Splits: []string{"src:0=2"}}))
		b.write("sink", "t2", "src:0:0")
		b.write("sink", "t2", "src:0:1")
		if past {
			b.write("sink", "t2", "src:1:0")
		}
		b.snap("sink", 2)
		b.complete(2)
		commit := b.commit("sink", 2, "t2", "records=2")
		b.add(trace.JobStop(2))
		return b, commit
	}
	b, _ := run(false)
	wantPass(t, ExactlyOnce(b.events, ref))
	b, commit := run(true)
	wantViolation(t, ExactlyOnce(b.events, ref), commit, ruleOutputEndsAtStop, `record "src:1:0" committed, but it comes from past where its source stopped`)
}

// FLINK-23541: a source went on emitting after the final savepoint's barrier.
func TestOutputFromPastTheStopIsFlagged(t *testing.T) {
	var beyond uint64
	b := stopped(func(b *tb) { beyond = b.upsert("sink", "src:0:2", "v-src:0:2") })
	res := ExactlyOnce(b.events, fromSource)
	v := wantFirst(t, res, beyond, `record "src:0:2" committed, but it comes from past where its source stopped for stop-with-savepoint 2`)
	wantRule(t, v, ruleOutputEndsAtStop)
}

func TestOutputOfAStoppedJobIsUnknownWithoutOrigins(t *testing.T) {
	b := stopped(func(*tb) {})
	ref := fromSource
	ref.Output = ExpectOnce(map[string]string{"src:0:0": "v-src:0:0"})
	wantUnknown(t, ExactlyOnce(b.events, ref), `the reference does not say which source record "src:0:0" comes from`)

	c := newTB()
	c.stopTrigger(2)
	c.complete(2)
	c.add(trace.JobStop(2))
	wantUnknown(t, ExactlyOnce(c.events, fromSource), "no source's snapshot for 2 lists where it stopped")
}

// FLINK-22367: a task that never recognised its stop's completion never exits.
func TestAStopThatCompletedEndsTheJob(t *testing.T) {
	b := running()
	b.stopTrigger(2)
	b.complete(2)
	b.add(trace.TaskStop("src", 2))
	b.t += 200
	end := b.phase("end")
	res := Liveness(b.events, fromSource)
	wantViolation(t, res, end, ruleStopEndsTheJob, "stop-with-savepoint 2 completed at seq 4, but sink never exited")
	wantViolation(t, res, end, ruleStopEndsTheJob, "stop-with-savepoint 2 completed at seq 4, but no job.finish names it")

	// A failover after it restarts the job from it: it need not end.
	c := newTB()
	c.phase("liveness")
	c.stopTrigger(2)
	c.complete(2)
	c.add(trace.Event{Kind: trace.KindJobFailover, Task: coord, CP: 2})
	c.finish("src")
	c.finish("sink")
	c.add(trace.JobFinish())
	wantPass(t, Liveness(c.events, Reference{Liveness: fromSource.Liveness}))
}

// FLINK-12858: a stop that failed left the sources blocked.
func TestAStopThatAbortedLeavesTheJobRunning(t *testing.T) {
	b := running()
	b.stopTrigger(2)
	b.abort(2)
	b.t += 200
	end := b.phase("end")
	res := Liveness(b.events, Reference{Liveness: fromSource.Liveness})
	wantViolation(t, res, end, ruleStopFailedRunsOn, "stop-with-savepoint 2 aborted at seq 4, and src never reached the end of its input after it")
}

// A drain that aborted after its sources ended their input must fail the job over: tasks
// that finished and exited without one leave the job short of its input.
func TestAFailedDrainFailsTheJobOver(t *testing.T) {
	drain := func(then func(b *tb)) *tb {
		b := running()
		b.add(trace.DrainTrigger(2))
		b.abort(2)
		then(b)
		return b
	}
	b := drain(func(*tb) {})
	end := b.phase("end")
	res := Liveness(b.events, Reference{Liveness: fromSource.Liveness})
	wantViolation(t, res, end, ruleStopFailedRunsOn, "stop-with-savepoint 2 with drain aborted at seq 4 after its sources ended their input, and the job never failed over")

	// Failed over, the job runs to its end.
	b = drain(func(b *tb) { b.add(trace.JobFailover(0, "drain-failed")) })
	b.finish("src")
	b.finish("sink")
	b.add(trace.JobFinish())
	wantPass(t, Liveness(b.events, Reference{Liveness: fromSource.Liveness}))

	// A drain that came after every task had reached the end of its input ended nothing: its
	// failure leaves nothing to run on.
	b = running()
	b.add(trace.SnapshotAck("src", 1, true))
	b.add(trace.SnapshotAck("sink", 1, true))
	b.complete(1)
	b.add(trace.DrainTrigger(2))
	b.abort(2)
	b.finish("src")
	b.finish("sink")
	b.add(trace.JobFinish())
	wantPass(t, Liveness(b.events, Reference{Liveness: fromSource.Liveness}))
}

// A drain that completed ends every task at the end of its input, not at the stop.
func TestACompletedDrainFinishesEveryTask(t *testing.T) {
	b := running()
	b.add(trace.DrainTrigger(2))
	b.complete(2)
	b.finish("src")
	b.add(trace.TaskStop("sink", 2))
	b.add(trace.JobStop(2))
	end := b.phase("end")
	res := Liveness(b.events, Reference{Liveness: fromSource.Liveness})
	wantViolation(t, res, end, ruleStopEndsTheJob, "stop-with-savepoint 2 with drain completed at seq 4, but sink exited before the end of its input")
}

// wantViolation fails the test unless res has a violation at seq naming rule whose message
// holds fragment.
func wantViolation(t *testing.T, res Result, seq uint64, rule, fragment string) {
	t.Helper()
	for _, v := range res.Violations {
		if v.Seq == seq && v.Rule == rule && strings.Contains(v.Message, fragment) {
			return
		}
	}
	t.Fatalf("want a violation of %s at seq %d containing %q, got:\n%s", rule, seq, fragment, res)
}

func TestNoCheckpointStartsWhileAStopIsPending(t *testing.T) {
	ref := pacingPolicy(100, 0, 2)
	b := newTB()
	b.periodic(1, 0)
	b.complete(1)
	b.stopTrigger(2)
	early := b.periodic(3, 20)
	res := TriggerPacing(b.events, ref)
	v := wantFirst(t, res, early, "checkpoint 3 triggered while stop-with-savepoint 2 was pending")
	wantRule(t, v, ruleNoneWhileStopping)

	c := newTB()
	c.periodic(1, 0)
	c.complete(1)
	c.stopTrigger(2)
	c.abort(2)
	c.at(200).periodic(3, 200)
	wantPass(t, TriggerPacing(c.events, ref))
}

// A stop whose metadata write lands after the job reached the end of its input ends
// nothing: the job was over.
func TestAStopThatCompletesAfterTheEndIsNotOwedAnything(t *testing.T) {
	b := running()
	b.stopTrigger(2)
	b.finish("src")
	b.finish("sink")
	b.add(trace.JobFinish())
	b.complete(2)
	wantPass(t, Liveness(b.events, Reference{Liveness: fromSource.Liveness}))
}

// A source that had finished its input before the stop is in the savepoint by its carried
// final snapshot, whose offsets are the end of its input: all of its records are owed.
func TestAFinishedSourceOwesItsWholeInputAtAStop(t *testing.T) {
	ref := fromSource
	ref.Output = map[string]Expected{
		"src:0:0": {Value: "v-src:0:0", Count: 1, Split: "src:0", Offset: 0},
		"src:1:0": {Value: "v-src:1:0", Count: 1, Split: "src:1", Offset: 0},
	}
	b := newTB()
	b.stopTrigger(2)
	b.add(trace.SnapshotTaken("src-0", 2, trace.SnapshotState{Stopped: []string{"src:0=1"}}))
	b.add(trace.StopCarried("src-1", 2, 1, []string{"src:1=1"}))
	b.write("sink", "t2", "src:0:0")
	b.complete(2)
	b.commit("sink", 2, "t2", "records=1")
	b.finish("src-1")
	b.add(trace.TaskStop("src-0", 2))
	b.add(trace.TaskStop("sink", 2))
	end := b.add(trace.JobStop(2))
	res := ExactlyOnce(b.events, ref)
	wantViolation(t, res, end, ruleExactlyOnce, `record "src:1:0" lost`)
}

// An idempotent sink keeps what an attempt that read past the cut upserted before the job
// went back to an older checkpoint: only the attempt that took the stop is held to its cut.
func TestAnEarlierAttemptMayHaveWrittenPastTheStop(t *testing.T) {
	b := stopped(func(*tb) {})
	events := append([]trace.Event{}, b.events[:3]...)
	early := newTB()
	early.events = events
	early.t = events[len(events)-1].T
	early.upsert("sink", "src:0:3", "v-src:0:3")
	early.add(trace.Event{Kind: trace.KindJobFailover, Task: coord})
	for _, e := range b.events[3:] {
		early.add(e)
	}
	wantPass(t, ExactlyOnce(early.events, fromSource))
}

// An upsert an earlier attempt sent before the job went back counts as that attempt's,
// though it lands after the failover; a commit past the cut is nobody's to excuse.
func TestWhoseWriteIsPastTheStopIsToldByWhenItWasSent(t *testing.T) {
	late := func(b *tb) {
		b.add(trace.Event{Kind: trace.KindJobFailover, Task: coord})
		b.add(trace.Event{Kind: trace.KindSinkUpsert, Task: "sink", RID: "src:0:3",
			Attrs: attrs("value=v-src:0:3", "start=5")})
	}
	b := newTB()
	b.restore("src", 0)
	late(b)
	rest := stopped(func(*tb) {})
	for _, e := range rest.events {
		b.add(e)
	}
	wantPass(t, ExactlyOnce(b.events, fromSource))

	c := newTB()
	c.restore("src", 0)
	c.write("sink", "t1", "src:0:3")
	past := c.commit("sink", 1, "t1", "records=1")
	c.add(trace.Event{Kind: trace.KindJobFailover, Task: coord})
	for _, e := range rest.events {
		c.add(e)
	}
	wantViolation(t, ExactlyOnce(c.events, fromSource), past, ruleOutputEndsAtStop, `record "src:0:3" committed`)
}

// Tasks that exited for a stop say where the output ends only once job.finish says the job
// ended there; a job that ran again after its stop owes its whole input.
func TestTheStopThatEndedTheJobIsTheLastOne(t *testing.T) {
	b := newTB()
	b.stopTrigger(2)
	b.complete(2)
	b.add(trace.TaskStop("src", 2))
	b.add(trace.TaskStop("sink", 2))
	wantUnknown(t, ExactlyOnce(b.events, fromSource), "tasks exited for stop-with-savepoint 2, but no job.finish says the job ended there")

	c := stopped(func(*tb) {})
	c.add(trace.JobResubmit(2, "claim"))
	c.upsert("sink", "src:0:2", "v-src:0:2")
	c.upsert("sink", "src:0:3", "v-src:0:3")
	c.finish("src")
	c.finish("sink")
	c.add(trace.JobFinish())
	wantPass(t, ExactlyOnce(c.events, fromSource))
}
