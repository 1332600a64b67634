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

// modeConfig returns a back-pressured keyed-sum job in mode: the sources emit as fast as
// credits allow and every record costs 50µs, so buffers are in flight at every barrier.
func modeConfig(mode protocol.Mode, sink engine.SinkType) engine.Config {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 500, 0, sink))
	cfg.RecordCost = 50 * time.Microsecond
	cfg.Checkpoint.Mode = mode
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	if mode == protocol.ModeAlignedWithTimeout {
		cfg.Checkpoint.AlignmentTimeout = 500 * time.Microsecond
	}
	return cfg
}

var allModes = []protocol.Mode{protocol.ModeAligned, protocol.ModeUnaligned, protocol.ModeAlignedWithTimeout, protocol.ModeAtLeastOnce}

func TestModesFailureFreeEqualReference(t *testing.T) {
	for _, mode := range allModes {
		for _, sink := range []engine.SinkType{engine.TwoPhaseCommit, engine.Upsert, engine.Append} {
			t.Run(mode.String()+"/"+sink.String(), func(t *testing.T) {
				cfg := modeConfig(mode, sink)
				ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
				if err != nil {
					t.Fatal(err)
				}
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 7, nil, 60*time.Second)
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("lost %d %v, extra %d %v, wrong %d %v", len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				if n := simenvtest.CountKind(job, trace.KindCheckpointComplete); n < 2 {
					t.Errorf("only %d checkpoints completed", n)
				}
				if mode != protocol.ModeAtLeastOnce {
					simenvtest.CheckCuts(t, job.Recorder.Events())
				}
				t.Logf("%d checkpoints, %d channel-state records, virtual %v", simenvtest.CountKind(job, trace.KindCheckpointComplete), simenvtest.ChannelStateRecords(job), job.Kernel.Now())
			})
		}
	}
}

func TestExactlyOnceModesUnderCrashes(t *testing.T) {
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	for _, mode := range []protocol.Mode{protocol.ModeUnaligned, protocol.ModeAlignedWithTimeout} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := modeConfig(mode, engine.TwoPhaseCommit)
			ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for seed := uint64(1); seed <= 6; seed++ {
				rng := rand.New(rand.NewPCG(seed, 7))
				faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 150*time.Millisecond)
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("seed %d faults %v: lost %d %v, extra %d %v, wrong %d %v", seed, faults,
						len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				simenvtest.CheckCuts(t, job.Recorder.Events())
				simenvtest.CheckRestores(t, job.Recorder.Events())
				t.Logf("seed %d: %d failovers, %d channel-state records", seed, simenvtest.CountKind(job, trace.KindJobFailover), simenvtest.ChannelStateRecords(job))
			}
		})
	}
}
