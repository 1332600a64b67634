package engine_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// unionGraph joins two sources, one mapped and one filtered, counts per key and writes to a
// 2PC sink.
func unionGraph() engine.Graph {
	return engine.Graph{
		Operators: []engine.Operator{
			{Name: "a", Parallelism: 2, Logic: engine.Source{Partitions: 2, Records: 300, Keys: 5, Seed: 1}},
			{Name: "b", Parallelism: 2, Logic: engine.Source{Partitions: 4, Records: 150, Keys: 3, Seed: 2}},
			{Name: "plus", Parallelism: 2, Logic: engine.Map{Fn: engine.MapFn{Op: "add", Arg: 3}}},
			{Name: "odd", Parallelism: 2, Logic: engine.Filter{Modulus: 2, Remainder: 1}},
			{Name: "both", Parallelism: 2, Logic: engine.Union{}},
			{Name: "count", Parallelism: 3, Logic: engine.Aggregate{Fn: engine.Count}},
			{Name: "out", Parallelism: 3, Logic: engine.Sink{Type: engine.TwoPhaseCommit}},
		},
		Edges: []engine.Edge{
			{From: "a", To: "plus", Partitioning: engine.Forward},
			{From: "b", To: "odd", Partitioning: engine.Forward},
			{From: "plus", To: "both", Partitioning: engine.Forward},
			{From: "odd", To: "both", Partitioning: engine.Forward},
			{From: "both", To: "count", Partitioning: engine.Hash},
			{From: "count", To: "out", Partitioning: engine.Forward},
		},
	}
}

// broadcastGraph sends every record to both tasks of a map (Broadcast) and on to a 2PC
// sink, so each record is output twice.
func broadcastGraph() engine.Graph {
	return engine.Graph{
		Operators: []engine.Operator{
			{Name: "src", Parallelism: 2, Logic: engine.Source{Partitions: 2, Records: 200, Keys: 4, Seed: 3}},
			{Name: "twice", Parallelism: 2, Logic: engine.Map{Fn: engine.MapFn{Op: "mul", Arg: 2}}},
			{Name: "spread", Parallelism: 2, Logic: engine.Map{Fn: engine.MapFn{Op: "identity"}}},
			{Name: "out", Parallelism: 2, Logic: engine.Sink{Type: engine.TwoPhaseCommit}},
		},
		Edges: []engine.Edge{
			{From: "src", To: "twice", Partitioning: engine.Broadcast},
			{From: "twice", To: "spread", Partitioning: engine.Rebalance},
			{From: "spread", To: "out", Partitioning: engine.Forward},
		},
	}
}

func TestWorkloadsEqualReference(t *testing.T) {
	for name, g := range map[string]engine.Graph{"union": unionGraph(), "broadcast": broadcastGraph()} {
		for _, mode := range allModes {
			t.Run(name+"/"+mode.String(), func(t *testing.T) {
				cfg := engine.DefaultConfig(g)
				cfg.Checkpoint.Mode = mode
				cfg.Checkpoint.Interval = 20 * time.Millisecond
				cfg.RecordCost = 30 * time.Microsecond
				if mode == protocol.ModeAlignedWithTimeout {
					cfg.Checkpoint.AlignmentTimeout = time.Millisecond
				}
				ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
				if err != nil {
					t.Fatal(err)
				}
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), 5, nil, 60*time.Second)
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("lost %d %v, extra %d %v, wrong %d %v", len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				if mode != protocol.ModeAtLeastOnce {
					simenvtest.CheckCuts(t, job.Recorder.Events())
				}
			})
		}
	}
}

func TestWorkloadsExactlyOnceUnderCrashes(t *testing.T) {
	for name, g := range map[string]engine.Graph{"union": unionGraph(), "broadcast": broadcastGraph()} {
		t.Run(name, func(t *testing.T) {
			cfg := engine.DefaultConfig(g)
			cfg.Checkpoint.Interval = 20 * time.Millisecond
			cfg.RecordCost = 30 * time.Microsecond
			ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for seed := uint64(1); seed <= 5; seed++ {
				rng := rand.New(rand.NewPCG(seed, 11))
				faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), []string{"jm", "tm-0", "tm-1", "tm-2"}, 3, 60*time.Millisecond)
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), seed, faults, 60*time.Second)
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("seed %d faults %v: lost %d %v, extra %d %v, wrong %d %v", seed, faults,
						len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				simenvtest.CheckCuts(t, job.Recorder.Events())
				simenvtest.CheckRestores(t, job.Recorder.Events())
				t.Logf("seed %d: %d failovers", seed, simenvtest.CountKind(job, trace.KindJobFailover))
			}
		})
	}
}
