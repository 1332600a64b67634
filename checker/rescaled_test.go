package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestARescaleEndsTheGoneTasks: a job of two tasks rescaled to one finishes when that one
// does; the task the rescale did away with is owed no end, no restore and no notification,
// even when a restore of it begun before the rescale ends after it.
// The same trace without the rescale's task list is a job whose second task never ended.
func TestARescaleEndsTheGoneTasks(t *testing.T) {
	ref := Reference{Liveness: LivenessBounds{FinishTasks: []string{"sum-0", "sum-1"}}}
	build := func(tasks []string) *tb {
		b := newTB()
		b.restore("sum-0", 0)
		b.restore("sum-1", 0)
		b.snap("sum-0", 1, "state=a")
		b.snap("sum-1", 1, "state=b")
		b.complete(1)
		e := trace.JobRescale(1, "claim", "sum", 1, tasks)
		if tasks == nil {
			e = trace.JobResubmit(1, "claim")
		}
		b.add(e)
		b.restore("sum-1", 1) // the earlier job's, finishing a restore begun before
		b.add(trace.Event{Kind: trace.KindJobFailover, CP: 1, Reason: "coordinator-recovery"})
		b.add(trace.TaskRestoreRescaled("sum-0", 1, "c", []string{"sum-0", "sum-1"}, ""))
		b.finish("sum-0")
		return b
	}
	b := build([]string{"sum-0"})
	for _, res := range []Result{Liveness(b.events, ref), NoTriggerInFailover(b.events), NoTriggerAfterFinish(b.events)} {
		if res.Verdict == VerdictFail {
			t.Errorf("rescaled to one task: %s", res)
		}
	}
	if res := Liveness(build(nil).events, ref); res.Verdict != VerdictFail {
		t.Errorf("resubmitted without a rescale, sum-1 never ended: %s", res)
	}
}
