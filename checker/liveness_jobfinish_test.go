package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// jobFinishRef is a bounded job of two tasks whose engine traces its report of the end.
var jobFinishRef = Reference{Liveness: LivenessBounds{FinishTasks: []string{"src", "sink"}, JobFinishTraced: true}}

func (b *tb) jobFinish() uint64 { return b.add(trace.JobFinish()) }

// Once every task has finished, the engine says the job has: a trace that ends without
// job.finish fails, unless the reference says the engine does not trace it.
func TestLivenessWantsTheJobReportedFinished(t *testing.T) {
	b := newTB()
	b.phase("liveness")
	b.finish("src")
	b.finish("sink")
	end := b.tick(1)
	wantFirst(t, Liveness(b.events, jobFinishRef), end, "every task finished (the last at seq 2), but the engine never reported the job finished (no job.finish)")

	b.jobFinish()
	if res := Liveness(b.events, jobFinishRef); res.Verdict != VerdictPass {
		t.Fatalf("a job reported finished after its tasks:\n%s", res)
	}
	unjudged := jobFinishRef
	unjudged.Liveness.JobFinishTraced = false
	b.events = b.events[:4]
	if res := Liveness(b.events, unjudged); res.Verdict != VerdictPass {
		t.Fatalf("judged job.finish of an engine that does not trace it:\n%s", res)
	}
}

// job.finish before the last task finished is an end reported too soon.
func TestLivenessFlagsAJobReportedFinishedEarly(t *testing.T) {
	b := newTB()
	b.phase("liveness")
	b.finish("src")
	early := b.jobFinish()
	b.finish("sink")
	wantFirst(t, Liveness(b.events, jobFinishRef), early, "the engine reported the job finished (job.finish) before every task had finished for good")
}
