package engine_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// TestRescaleKeepsEveryRecordOnce: a bounded keyed job with two-phase-commit sinks is
// rescaled up and then down, its aggregate and the sink forward edges tie to it together,
// with full and with incremental snapshots. The job finishes with the reference's output
// committed exactly once, so every key's sum went on from its restored value and every
// pending transaction of the earlier tasks was committed.
func TestRescaleKeepsEveryRecordOnce(t *testing.T) {
	for _, incremental := range []bool{false, true} {
		g := engine.KeyedSumGraph(3, 400, 2000, engine.TwoPhaseCommit)
		g.Operators[0].Logic = engine.Source{Partitions: 6, Records: 400, RatePerSecond: 2000, Keys: 16, Seed: 1}
		g.MaxParallelism = 128
		cfg := engine.DefaultConfig(g)
		cfg.Incremental = incremental
		cfg.Checkpoint.Interval = 20 * time.Millisecond
		faults := []simenvtest.Fault{
			{At: 60 * time.Millisecond, Kind: "rescale", Name: "sum", Parallelism: 5, Down: 10 * time.Millisecond},
			{At: 140 * time.Millisecond, Kind: "rescale", Name: "src", Parallelism: 2, Down: 10 * time.Millisecond},
			{At: 200 * time.Millisecond, Kind: "rescale", Name: "sum", Parallelism: 2, Down: 10 * time.Millisecond},
		}
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 1, faults, 60*time.Second)
		events := job.Recorder.Events()
		rescales := 0
		for _, e := range events {
			if _, ok := e.Attr(trace.AttrRescale); ok && e.Kind == trace.KindJobResubmit {
				rescales++
			}
		}
		if rescales != 3 {
			t.Fatalf("incremental %v: %d rescales traced, want 3", incremental, rescales)
		}
		ref, err := engine.ComputeReference(&g, engine.ReferenceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
		if len(lost)+len(extra)+len(wrong) > 0 {
			t.Fatalf("incremental %v: lost %d %v, extra %d %v, wrong %d %v", incremental,
				len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
		}
		simenvtest.CheckCuts(t, events)
	}
}
