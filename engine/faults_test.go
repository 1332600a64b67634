package engine_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// TestCoordinatorCrashAtEveryStep crashes the coordinator at the first checkpoint.persist,
// checkpoint.complete and notify.complete of checkpoint 3: a new incarnation recovers the
// counter and the completed store and restarts the job; the output stays exact, ids keep
// increasing, and recovery never returns to a checkpoint older than one made visible.
func TestCoordinatorCrashAtEveryStep(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(3, 300, 2000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{trace.KindCheckpointPersist, trace.KindCheckpointComplete, trace.KindNotifyComplete} {
		for _, how := range []string{"coordinator", "host"} {
			t.Run(kind+"/"+how, func(t *testing.T) {
				f := simenvtest.Fault{Kind: how, Name: "jm", Down: 50 * time.Millisecond,
					On: func(e trace.Event) bool { return e.Kind == kind && e.CP == 3 }}
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), 1, []simenvtest.Fault{f}, 60*time.Second)
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost)+len(extra)+len(wrong) > 0 {
					t.Errorf("lost %d %v, extra %d %v, wrong %d %v", len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
				simenvtest.CheckIDsAndRecovery(t, job.Recorder.Events())
				if simenvtest.CountKind(job, trace.KindCoordinatorRecover) != 1 {
					t.Errorf("%d coordinator recoveries, want 1", simenvtest.CountKind(job, trace.KindCoordinatorRecover))
				}
			})
		}
	}
}

// TestStorageAndCommitFaults fails a share of checkpoint storage writes and reads and the
// first store commits: checkpoints fail or tasks fail over, but the output stays exact.
func TestStorageAndCommitFaults(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(3, 300, 2000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Interval = 20 * time.Millisecond
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
		rng := job.Kernel.Stream("test/storage-faults")
		ops := 0
		job.Env.Storage().SetFaultHook(func(op sim.StoreOp) sim.StoreFault {
			ops++
			if job.Kernel.Now() > sim.Time(150*time.Millisecond) || rng.IntN(10) != 0 {
				return sim.StoreFault{}
			}
			if op.Kind == sim.OpPut && rng.IntN(2) == 0 {
				return sim.StoreFault{Kind: sim.StoreFaultCorrupt}
			}
			return sim.StoreFault{Kind: sim.StoreFaultFail}
		})
		job.Runtime.FailStoreCommits(2)
		if err := job.Start(); err != nil {
			t.Fatal(err)
		}
		if r := job.RunUntilFinished(60 * time.Second); r != sim.StopStopped {
			t.Fatalf("seed %d: ended with %v", seed, r)
		}
		lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
		if len(lost)+len(extra)+len(wrong) > 0 {
			t.Errorf("seed %d: lost %d %v, extra %d %v, wrong %d %v", seed, len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
		}
		simenvtest.CheckIDsAndRecovery(t, job.Recorder.Events())
		t.Logf("seed %d: %d storage ops, %d aborted checkpoints, %d failovers", seed, ops,
			simenvtest.CountKind(job, trace.KindCheckpointAbort), simenvtest.CountKind(job, trace.KindJobFailover))
	}
}

// TestTolerableFailuresTriggerFailover fails every snapshot upload for a while: after
// TolerableFailures checkpoint failures in a row the protocol asks for a failover, which
// the engine performs; once uploads work again the job finishes with exact output.
func TestTolerableFailuresTriggerFailover(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 400, 2000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	cfg.Checkpoint.TolerableFailures = 2
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := simenv.NewJob(1, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	job.Env.Storage().SetFaultHook(func(op sim.StoreOp) sim.StoreFault {
		now := job.Kernel.Now()
		if op.Kind == sim.OpPut && now > sim.Time(30*time.Millisecond) && now < sim.Time(90*time.Millisecond) && len(op.Key) > 6 && op.Key[:6] == "state/" {
			return sim.StoreFault{Kind: sim.StoreFaultFail}
		}
		return sim.StoreFault{}
	})
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("ended with %v", r)
	}
	failovers := 0
	for _, e := range job.Recorder.Events() {
		if e.Kind == trace.KindJobFailover && e.Reason == "tolerable-failures-exceeded" {
			failovers++
		}
	}
	if failovers == 0 {
		t.Errorf("no failover for exceeded tolerable failures; %d checkpoints aborted", simenvtest.CountKind(job, trace.KindCheckpointAbort))
	}
	lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
	if len(lost)+len(extra)+len(wrong) > 0 {
		t.Errorf("lost %d %v, extra %d %v, wrong %d %v", len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
	}
}
