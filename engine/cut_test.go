package engine_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// fanInConfig is a fan-in union of a source that finishes early and one that runs on,
// with checkpoints every 5 ms, so that several complete while the early one is finished.
func fanInConfig() engine.Config {
	g := engine.Graph{
		Operators: []engine.Operator{
			{Name: "early", Parallelism: 1, Logic: engine.Source{Partitions: 1, Records: 20, RatePerSecond: 2000, Keys: 4, Seed: 1}},
			{Name: "late", Parallelism: 1, Logic: engine.Source{Partitions: 1, Records: 300, RatePerSecond: 1000, Keys: 4, Seed: 2}},
			{Name: "union", Parallelism: 1, Logic: engine.Union{}},
			{Name: "sink", Parallelism: 1, Logic: engine.Sink{Type: engine.TwoPhaseCommit}},
		},
		Edges: []engine.Edge{
			{From: "early", To: "union", Partitioning: engine.Forward},
			{From: "late", To: "union", Partitioning: engine.Forward},
			{From: "union", To: "sink", Partitioning: engine.Forward},
		},
	}
	cfg := engine.DefaultConfig(g)
	cfg.Checkpoint.Interval = 5 * time.Millisecond
	return cfg
}

// TestFinishedSourceCrashingAsItExits: the early source is crashed the instant it is
// notified of the checkpoint holding its final snapshot, in the middle of handling the
// notification that lets it exit. Its end of partition is out already (sends come before
// notifications), so the union stops waiting for it, and checkpoints complete in the
// failure-detection window carrying its final snapshot, while the trace shows it crashed,
// not finished.
//
// The cuts are consistent (the final snapshot's sent count is the source's side of the
// channel), and the consistent-cut checker must judge them so: it skipped a channel whose
// sender took no snapshot only if the sender had traced task.finish, and rejected the
// union's count otherwise. (The engine, for its part, went on to exit the dead incarnation
// after the notification: a dead task counted as exited, so Runtime.Finished could say a
// job was done while its failover was on its way; exit now refuses a dead incarnation.)
func TestFinishedSourceCrashingAsItExits(t *testing.T) {
	cfg := fanInConfig()
	// The checkpoint whose notification lets the early source exit, from the same run
	// without faults.
	clean := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(1), 1, nil, 30*time.Second)
	var final uint64
	for _, e := range clean.Recorder.Events() {
		if e.Task != "early-0" {
			continue
		}
		if e.Kind == trace.KindNotifyComplete {
			final = e.CP
		}
		if e.Kind == trace.KindTaskFinish {
			break
		}
	}
	f := simenvtest.Fault{Kind: "task", Name: "early-0",
		On: func(e trace.Event) bool {
			return e.Kind == trace.KindNotifyComplete && e.Task == "early-0" && e.CP == final
		}}
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(1), 1, []simenvtest.Fault{f}, 30*time.Second)
	exactOutput(t, cfg, job)
	events := job.Recorder.Events()
	crashed, carried := false, 0
	for _, e := range events {
		switch {
		case e.Kind == trace.KindTaskCrash && e.Task == "early-0":
			crashed = true
		case e.Kind == trace.KindJobFailover:
			crashed = false // from here on it is restored, finished
		case e.Kind == trace.KindCheckpointComplete && crashed && tookNoSnapshot(events, "early-0", e.CP):
			carried++
		}
	}
	if carried == 0 {
		t.Fatalf("no checkpoint completed between early-0's crash and the failover: the test misses what it is about")
	}
	if res := checker.ConsistentCut(events, checker.Reference{}); len(res.Violations) > 0 {
		t.Errorf("%d checkpoints carried the crashed early-0's final snapshot; the checker says %v", carried, res.Violations)
	}
	simenvtest.CheckCuts(t, events)
}

func tookNoSnapshot(events []trace.Event, task string, cp uint64) bool {
	for _, e := range events {
		if e.Kind == trace.KindSnapshotTaken && e.Task == task && e.CP == cp {
			return false
		}
	}
	return true
}
