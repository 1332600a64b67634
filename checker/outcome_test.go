package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func request(b *tb, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointRequest, Task: coord, CP: cp})
}

// A token job that finishes while a snapshot it asked for is still being started: the
// snapshot vanishes, and the property blames it at the end of the trace, where its absence
// is final.
func TestCheckpointOutcomeFlagsAVanishedSnapshot(t *testing.T) {
	b := newTB()
	b.restore("p-0", 0)
	b.restore("p-1", 0)
	request(b, 2)
	b.trigger(2)
	asked := request(b, 4)
	b.persist(2)
	b.complete(2)
	b.finish("p-0")
	b.finish("p-1")
	end := b.phase("end")
	v := wantFirst(t, CheckpointOutcome(b.events), end, "checkpoint 4, asked for by checkpoint.request at seq "+itoa(int64(asked)))
	if v.CP != 4 || v.Task != coord {
		t.Fatalf("violation names task %q cp %d, want %s and 4", v.Task, v.CP, coord)
	}
}

// The same snapshot, aborted because the job finished, has an outcome.
func TestCheckpointOutcomePassesAnAbortWithAReason(t *testing.T) {
	b := newTB()
	b.restore("p-0", 0)
	request(b, 2)
	b.trigger(2)
	request(b, 4)
	b.complete(2)
	b.add(trace.Event{Kind: trace.KindCheckpointAbort, Task: coord, CP: 4, Reason: "job-finished"})
	b.finish("p-0")
	b.phase("end")
	res := CheckpointOutcome(b.events)
	wantPass(t, res)
	if res.Note != "" {
		t.Fatalf("note %q on a trace where everything ended", res.Note)
	}
}

// An engine that traces no requests is judged by its triggers.
func TestCheckpointOutcomeTakesATriggerForTheRequest(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.trigger(1)
	b.complete(1)
	b.trigger(2)
	b.finish("sum")
	end := b.phase("end")
	wantFirst(t, CheckpointOutcome(b.events), end, "checkpoint 2, asked for by checkpoint.trigger")
}

// A run cut off while the job still runs leaves a checkpoint in progress: not a vanished one.
func TestCheckpointOutcomeDoesNotJudgeWhatIsPendingWhileTheJobRuns(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.trigger(1)
	b.complete(1)
	b.trigger(2)
	b.crash("sum") // the job fails over and is cut off before it runs again
	res := CheckpointOutcome(b.events)
	wantPass(t, res)
	if !strings.Contains(res.Note, "1 checkpoint(s) still pending") {
		t.Fatalf("note %q does not say what was left unjudged", res.Note)
	}
}

// A coordinator crash drops what its incarnation had pending.
func TestCheckpointOutcomeLetsACoordinatorCrashDropWhatIsPending(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.trigger(1)
	b.complete(1)
	request(b, 2)
	b.coordCrash()
	b.recover(1)
	request(b, 2) // the next incarnation may hand out the id again
	b.trigger(2)
	b.complete(2)
	b.finish("sum")
	res := CheckpointOutcome(b.events)
	wantPass(t, res)
	if !strings.Contains(res.Note, "1 checkpoint(s) dropped by a coordinator crash") {
		t.Fatalf("note %q does not count the dropped checkpoint", res.Note)
	}
}

func TestCheckpointOutcomeFlagsAnAbortWithoutAReason(t *testing.T) {
	b := newTB()
	b.trigger(1)
	bad := b.add(trace.Event{Kind: trace.KindCheckpointAbort, Task: coord, CP: 1})
	wantFirst(t, CheckpointOutcome(b.events), bad, "checkpoint 1 aborted without a reason")
}

func TestCheckpointOutcomeFlagsAnIDHandedOutTwice(t *testing.T) {
	b := newTB()
	first := request(b, 3)
	again := request(b, 3)
	b.complete(3)
	wantFirst(t, CheckpointOutcome(b.events), again, "requested again while its request at seq "+itoa(int64(first)))
}

// Evidence rule: nothing asked for (unknown), or nothing that ended (unexercised), is no
// evidence of a pass.
func TestCheckpointOutcomeIsUnknownWithoutEvidence(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.finish("sum")
	res := CheckpointOutcome(b.events)
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Note, "no checkpoint.request or checkpoint.trigger in the trace") {
		t.Fatalf("want unknown naming the missing requests, got %s", res)
	}

	b = newTB()
	b.restore("sum", 0)
	b.trigger(1)
	b.coordCrash()
	res = CheckpointOutcome(b.events)
	if res.Verdict != VerdictUnexercised || !strings.Contains(res.Note, "no checkpoint asked for ended in the trace") {
		t.Fatalf("want unexercised when every checkpoint was dropped, got %s", res)
	}
}

// Check runs the property when asked for it by name.
func TestCheckRunsCheckpointOutcome(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.complete(1)
	report := Check(b.events, Reference{}, Options{Properties: []Property{PropCheckpointOutcome}})
	if res, ok := report.Result(PropCheckpointOutcome); !ok || res.Verdict != VerdictPass {
		t.Fatalf("report %s", report)
	}
	if p, err := ParseProperty("checkpoint-outcome"); err != nil || p != PropCheckpointOutcome {
		t.Fatalf("ParseProperty: %v, %v", p, err)
	}
}

// An engine that traces no fresh start still has running tasks: sinks seen at work keep the
// job running after the sources finish, so a checkpoint pending when the trace is cut there
// is not judged vanished.
func TestCheckpointOutcomeCountsTasksSeenAtWork(t *testing.T) {
	b := newTB()
	b.trigger(1)
	b.snap("sink", 1, "recv.src=1")
	b.finish("src")
	res := CheckpointOutcome(b.events)
	if res.Verdict == VerdictFail {
		t.Fatalf("a checkpoint pending while sink may still run was judged vanished: %s", res)
	}
}
