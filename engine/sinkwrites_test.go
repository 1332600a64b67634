package engine_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// TestBatchedSinkWritesAreJudgedLikePerRecordOnes runs the same jobs under the same crashes
// twice, tracing sink writes per record and per buffer (Config.BatchSinkWrites), and checks
// that the exactly-once checker, replaying the committed output from the trace, reaches the
// same verdict with the same violations: pass for the two-phase-commit sink, duplicates for
// the append sink. Every other default property must reach the same verdict too. The runs
// themselves are the same; only the sink's trace events differ.
func TestBatchedSinkWritesAreJudgedLikePerRecordOnes(t *testing.T) {
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	for _, sink := range []engine.SinkType{engine.TwoPhaseCommit, engine.Append} {
		cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 300, 2000, sink))
		ref := exactlyOnceReference(t, &cfg.Graph)
		failed := 0
		for seed := uint64(1); seed <= 4; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 300*time.Millisecond)
			var results [2]checker.Result
			var reports [2]checker.Report
			for i, batch := range []bool{false, true} {
				cfg.BatchSinkWrites = batch
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
				events := job.Recorder.Events()
				if got := simenvtest.CountKind(job, trace.KindSinkWrites) > 0; got != batch {
					t.Fatalf("%s seed %d: BatchSinkWrites %v, but sink.writes traced: %v", sink, seed, batch, got)
				}
				results[i] = checker.ExactlyOnce(events, ref)
				reports[i] = checker.Check(events, ref, checker.Options{})
			}
			for k, res := range reports[0].Results {
				if other := reports[1].Results[k]; other.Property != res.Property || other.Verdict != res.Verdict {
					t.Fatalf("%s seed %d: %s is %s with per-record writes, %s %s with batched ones:\n%s", sink, seed,
						res.Property, res.Verdict, other.Property, other.Verdict, other)
				}
			}
			perRecord, batched := results[0], results[1]
			if perRecord.Verdict != batched.Verdict || !slices.Equal(messages(perRecord), messages(batched)) {
				t.Fatalf("%s seed %d: per-record writes judged\n%s\nbatched writes judged\n%s", sink, seed, perRecord, batched)
			}
			if sink == engine.TwoPhaseCommit && perRecord.Verdict != checker.VerdictPass {
				t.Fatalf("seed %d: the two-phase-commit sink failed exactly-once:\n%s", seed, perRecord)
			}
			if perRecord.Verdict == checker.VerdictFail {
				failed++
			}
		}
		if sink == engine.Append && failed == 0 {
			t.Errorf("no append run showed duplicates: the comparison never saw a failing verdict")
		}
	}
}

// exactlyOnceReference turns the engine's reference output into the checker's.
func exactlyOnceReference(t *testing.T, g *engine.Graph) checker.Reference {
	t.Helper()
	ref, err := engine.ComputeReference(g, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	values := make(map[string]string)
	for _, records := range ref.Output {
		for _, r := range records {
			values[r.RID] = strconv.FormatInt(r.Value, 10)
		}
	}
	return checker.Reference{Guarantee: checker.GuaranteeExactlyOnce, Output: checker.ExpectOnce(values)}
}

func messages(r checker.Result) []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Message)
	}
	return out
}
