package simenv

import (
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// StandardJob builds the standard benchmark scenario (engine.StandardConfig: 8 sources, key
// by, 8 aggregators, 8 two-phase-commit sinks, 1,000 records per second per source, an
// aligned checkpoint every 100 ms) on 8 task hosts, started, for seed. rec may be nil (the
// trace is then only hashed). Run it with Kernel.RunFor; simrun bench times that.
func StandardJob(seed uint64, rec *trace.Recorder) (*Job, error) {
	return startJob(seed, engine.StandardConfig(), rec)
}

func startJob(seed uint64, cfg engine.Config, rec *trace.Recorder) (*Job, error) {
	job, err := NewJob(seed, cfg, DefaultConfig(8), rec, sim.Config{})
	if err != nil {
		return nil, err
	}
	return job, job.Start()
}

// BenchResult is what a benchmark run of the standard scenario did, in virtual terms; the
// caller measures the wall time it took and divides.
type BenchResult struct {
	VirtualNanos int64
	Records      int64  // records read by the sources
	Events       uint64 // trace events
	// KernelEvents counts the simulator's events (deliveries, timers, storage steps);
	// Messages the messages its links delivered.
	KernelEvents uint64
	Messages     uint64
	Checkpoints  int // completed checkpoints
	TraceHash    string
	// SnapshotBytes is what the tasks' snapshots wrote (engine.Runtime.SnapshotBytes).
	SnapshotBytes int64
}

// RunStandard runs the standard scenario for d of virtual time and reports what happened.
func RunStandard(seed uint64, d time.Duration) (BenchResult, error) {
	return RunStandardConfig(seed, d, engine.StandardConfig())
}

// RunStandardSnapshots is RunStandard with keys keys (0: the standard job's) and full or
// incremental snapshots, for bench's comparison of the two.
func RunStandardSnapshots(seed uint64, d time.Duration, keys int, incremental bool) (BenchResult, error) {
	return RunStandardConfig(seed, d, StandardConfigWith(keys, incremental))
}

// StandardConfigWith is engine.StandardConfig with keys keys (0: its own) and full or
// incremental snapshots.
func StandardConfigWith(keys int, incremental bool) engine.Config {
	cfg := engine.StandardConfig()
	if keys != 0 {
		src := cfg.Graph.Operators[0].Logic.(engine.Source)
		src.Keys = keys
		cfg.Graph.Operators[0].Logic = src
	}
	cfg.Incremental = incremental
	return cfg
}

// RunStandardConfig is RunStandard with a variant of engine.StandardConfig (without
// sink.writes events, say, to measure the engine rather than the trace).
func RunStandardConfig(seed uint64, d time.Duration, cfg engine.Config) (BenchResult, error) {
	completed := 0
	rec := trace.NewRecorder(nil, trace.Header{Scenario: "standard", Seed: seed})
	rec.Watch(func(e *trace.Event) {
		if e.Kind == trace.KindCheckpointComplete {
			completed++
		}
	})
	job, err := startJob(seed, cfg, rec)
	if err != nil {
		return BenchResult{}, err
	}
	job.Kernel.RunFor(d)
	var messages uint64
	for _, l := range job.Kernel.Links() {
		messages += l.Stats().Delivered
	}
	return BenchResult{
		KernelEvents:  job.Kernel.Events(),
		Messages:      messages,
		VirtualNanos:  job.Kernel.Now().Nanoseconds(),
		Records:       job.Runtime.SourceRecords(),
		Events:        rec.Len(),
		Checkpoints:   completed,
		TraceHash:     rec.Hash(),
		SnapshotBytes: job.Runtime.SnapshotBytes(),
	}, nil
}
