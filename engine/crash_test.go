package engine_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// diffOutput compares committed output with the reference: lost and duplicated RIDs and
// wrong values.
func diffOutput(want, got map[string][]int64) (lost, extra, wrong []string) {
	for rid, w := range want {
		g := got[rid]
		switch {
		case len(g) < len(w):
			lost = append(lost, rid)
		case len(g) > len(w):
			extra = append(extra, rid)
		case !slices.Equal(g, w):
			wrong = append(wrong, rid)
		}
	}
	for rid := range got {
		if _, ok := want[rid]; !ok {
			extra = append(extra, rid)
		}
	}
	slices.Sort(lost)
	slices.Sort(extra)
	slices.Sort(wrong)
	return lost, extra, wrong
}

func TestExactlyOnceUnderCrashes(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 400, 2000, engine.TwoPhaseCommit))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := ref.OutputValues()
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 300*time.Millisecond)
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
		lost, extra, wrong := diffOutput(want, committed(job.Runtime))
		if len(lost)+len(extra)+len(wrong) > 0 {
			t.Errorf("seed %d faults %v: lost %d %v, extra %d %v, wrong %d %v", seed, faults,
				len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
		}
		simenvtest.CheckCuts(t, job.Recorder.Events())
		simenvtest.CheckRestores(t, job.Recorder.Events())
		t.Logf("seed %d: %d attempts, %d events, virtual %v", seed, job.Runtime.Attempt(), job.Recorder.Len(), job.Kernel.Now())
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

func TestAppendSinkDuplicatesUnderCrashes(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 400, 2000, engine.Append))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := ref.OutputValues()
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	dupRuns := 0
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 300*time.Millisecond)
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
		lost, extra, _ := diffOutput(want, committed(job.Runtime))
		if len(lost) > 0 {
			t.Errorf("seed %d: at-least-once sink lost %d records %v", seed, len(lost), head(lost))
		}
		if len(extra) > 0 {
			dupRuns++
		}
		t.Logf("seed %d: %d failovers, %d duplicated rids", seed, simenvtest.CountKind(job, trace.KindJobFailover), len(extra))
	}
	if dupRuns == 0 {
		t.Errorf("no run of the append sink showed duplicates: the negative control does not bite")
	}
}

func simConfig() sim.Config            { return sim.Config{} }
func simTime(d time.Duration) sim.Time { return sim.Time(d) }
