package engine_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// TestDroppedBarriersAndControl drops a share of barriers, triggers, acks and notifications
// during the first 150 ms (in model: the protocol regains progress through timeouts, cancel
// markers and newer barriers). The job must still finish with exact output.
func TestDroppedBarriersAndControl(t *testing.T) {
	for _, mode := range []protocol.Mode{protocol.ModeAligned, protocol.ModeUnaligned} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := engine.DefaultConfig(engine.KeyedSumGraph(3, 400, 2000, engine.TwoPhaseCommit))
			cfg.Checkpoint.Mode = mode
			cfg.Checkpoint.Interval = 10 * time.Millisecond
			cfg.Checkpoint.Timeout = 40 * time.Millisecond
			cfg.Checkpoint.TolerableFailures = 100
			ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for seed := uint64(1); seed <= 4; seed++ {
				job, err := simenv.NewJob(seed, cfg, simenv.DefaultConfig(3), nil, sim.Config{})
				if err != nil {
					t.Fatal(err)
				}
				job.Recorder.KeepEvents()
				rng := job.Kernel.Stream("test/drops")
				dropped := 0
				for _, h := range job.Kernel.Links() {
					h.SetDropFilter(func(msg any) bool {
						_, _, payload, ok := simenv.Unwrap(msg)
						if !ok || job.Kernel.Now() > sim.Time(150*time.Millisecond) {
							return false
						}
						switch engine.Classify(payload) {
						case engine.ClassBarrier, engine.ClassTrigger, engine.ClassAck, engine.ClassNotify:
							if rng.IntN(4) == 0 {
								dropped++
								return true
							}
						}
						return false
					})
				}
				if err := job.Start(); err != nil {
					t.Fatal(err)
				}
				if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
					t.Fatalf("seed %d: ended with %v after %d drops", seed, r, dropped)
				}
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("seed %d: lost %d %v, extra %d %v, wrong %d %v", seed, len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				simenvtest.CheckCuts(t, job.Recorder.Events())
				t.Logf("seed %d: %d messages dropped, %d checkpoints aborted, %d completed", seed, dropped,
					simenvtest.CountKind(job, trace.KindCheckpointAbort), simenvtest.CountKind(job, trace.KindCheckpointComplete))
			}
		})
	}
}
