package engine_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// storageKeysWritten runs cfg and returns the keys of the durable store's successful puts
// and the number of completed checkpoints.
func storageKeysWritten(t *testing.T, cfg engine.Config) (keys []string, checkpoints int) {
	t.Helper()
	job, err := simenv.NewJob(1, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	job.Env.SetObserver(func(e sim.Event) {
		if e.Kind == sim.EventStoreApply && e.Op == sim.OpPut && e.Err == nil {
			keys = append(keys, e.Key)
		}
	})
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("run ended with %v", r)
	}
	exactOutput(t, cfg, job)
	return keys, simenvtest.CountKind(job, trace.KindCheckpointComplete)
}

// TestSmallStateGoesInline: with InlineStateBytes above the size of every snapshot, no task
// writes its state to storage, and the coordinator writes its metadata once per checkpoint
// (discarded checkpoints leave with the next write, as no state waits for them to go); with
// a threshold below their size, every task writes its state, and the coordinator writes the
// metadata again without the discarded checkpoints before their state is deleted. The
// output is exact either way.
func TestSmallStateGoesInline(t *testing.T) {
	for _, threshold := range []int{20 << 10, 8} {
		cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 2000, 2000, engine.TwoPhaseCommit))
		cfg.InlineStateBytes = threshold
		states, metadata := 0, 0
		keys, checkpoints := storageKeysWritten(t, cfg)
		for _, k := range keys {
			switch {
			case strings.HasPrefix(k, "state/"):
				states++
			case strings.HasPrefix(k, "meta/completed"):
				metadata++
			}
		}
		if inline := threshold > 8; inline {
			if states > 0 || metadata > checkpoints+1 {
				t.Errorf("state inline: %d task states and %d metadata writes for %d checkpoints", states, metadata, checkpoints)
			}
		} else if states == 0 || 2*metadata < 3*checkpoints {
			t.Errorf("state in storage: %d task states and %d metadata writes for %d checkpoints", states, metadata, checkpoints)
		}
	}
}

// TestExactlyOnceWithInlineState: task, host and coordinator crashes at random moments,
// with all state inline, so that every restore reads the state from the metadata of the
// checkpoint it restores. Output must equal the reference, cuts must be consistent and
// restores faithful.
func TestExactlyOnceWithInlineState(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 400, 2000, engine.TwoPhaseCommit))
	cfg.InlineStateBytes = 20 << 10
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	restores := 0
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 300*time.Millisecond)
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
		exactOutput(t, cfg, job)
		simenvtest.CheckCuts(t, job.Recorder.Events())
		simenvtest.CheckRestores(t, job.Recorder.Events())
		restores += job.Runtime.Attempt() - 1
	}
	if restores == 0 {
		t.Error("no run restored from a checkpoint")
	}
}
