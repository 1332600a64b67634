package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
)

// committed returns the store's visible output as RID -> sorted values.
func committed(rt *engine.Runtime) map[string][]int64 {
	out := make(map[string][]int64)
	for _, r := range rt.Store().Rows() {
		out[r.RID] = append(out[r.RID], r.Value)
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

func TestBoundedKeyedSumExactlyOnce(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 300, 0, engine.TwoPhaseCommit))
	job, err := simenv.NewJob(1, cfg, simenv.DefaultConfig(4), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	r := job.RunUntilFinished(30 * time.Second)
	if r != sim.StopStopped {
		for _, e := range job.Recorder.Events()[max(0, len(job.Recorder.Events())-40):] {
			t.Log(e.String())
		}
		t.Fatalf("run ended with %v at %v, not finished", r, job.Kernel.Now())
	}
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, got := ref.OutputValues(), committed(job.Runtime)
	if len(want) != len(got) {
		t.Errorf("committed %d rids, want %d", len(got), len(want))
	}
	for rid, w := range want {
		if !slices.Equal(w, got[rid]) {
			t.Errorf("rid %s: committed %v, want %v", rid, got[rid], w)
			break
		}
	}
	t.Logf("events %d, virtual %v", job.Recorder.Len(), job.Kernel.Now())
}
