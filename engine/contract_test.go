package engine_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// Tests of how the engine meets the protocol's host contract (the package documentation,
// protocol/doc.go): what it does with Discarded and Released state, re-sent notifications,
// savepoints that wait for a slot, exits that give up work in progress, Interval 0, and
// finished tasks restored.

// exactOutput fails t unless the job committed exactly the reference output.
func exactOutput(t *testing.T, cfg engine.Config, job *simenv.Job) {
	t.Helper()
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime)); len(lost)+len(extra)+len(wrong) > 0 {
		t.Errorf("lost %d %v, extra %d %v, wrong %d %v", len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
	}
}

// TestStateOfAFinishedJob: after a fault-free bounded run with overlapping checkpoints
// (tasks exit while others are in progress, giving up their uploads, and final snapshots
// stand in for acks still on their way), storage holds exactly the state the durable
// completed-checkpoint store names: the retained checkpoints' snapshots, with the final
// snapshots they carry over. Nothing of an aborted checkpoint, of one out of retention, of
// a late ack or of an upload given up at exit is left, and nothing named is missing.
func TestStateOfAFinishedJob(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(3, 300, 3000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Interval = 15 * time.Millisecond
	cfg.Checkpoint.MaxConcurrent = 2
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), 2, nil, 30*time.Second)
	exactOutput(t, cfg, job)
	// The last store write and the deletions it allows may still be under way.
	job.Kernel.RunUntil(job.Kernel.Now().Add(time.Second))

	stored := job.Runtime.StoredCheckpoints()
	if len(stored) != cfg.Checkpoint.RetainedCheckpoints {
		t.Fatalf("the store holds %d checkpoints, want %d", len(stored), cfg.Checkpoint.RetainedCheckpoints)
	}
	named := make(map[string]bool)
	carried := 0
	for _, cp := range stored {
		for _, ts := range cp.Tasks {
			named[ts.Snapshot.Handle] = true
			if !strings.HasPrefix(ts.Snapshot.Handle, "state/"+strconv.FormatUint(uint64(cp.ID), 10)+"/") {
				carried++
			}
		}
	}
	if carried == 0 {
		t.Errorf("no checkpoint carries a final snapshot over: the test misses what it is about")
	}
	have := make(map[string]bool)
	for _, key := range job.Env.Storage().Keys("state/") {
		have[key] = true
		if !named[key] {
			t.Errorf("storage still holds %s, which no stored checkpoint names", key)
		}
	}
	for key := range named {
		if !have[key] {
			t.Errorf("storage lost %s, which a stored checkpoint names", key)
		}
	}
}

// TestCoordinatorStopsWhenTheJobIsDone: the protocol re-sends the latest completion every
// checkpoint Timeout for as long as it runs, so once every task of a finished job has
// exited, the engine stops the coordinator's tick: no message leaves it afterwards.
func TestCoordinatorStopsWhenTheJobIsDone(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 100, 2000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Timeout = 200 * time.Millisecond
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), 1, nil, 30*time.Second)
	sent := 0
	job.Env.SetObserver(func(e sim.Event) {
		if e.Kind != sim.EventSend {
			return
		}
		if from, _, _, ok := simenv.Unwrap(e.Message); ok && from == "coordinator" {
			sent++
		}
	})
	job.Kernel.RunUntil(job.Kernel.Now().Add(5 * cfg.Checkpoint.Timeout))
	if sent > 0 {
		t.Errorf("the coordinator sent %d messages in %v after the job finished", sent, 5*cfg.Checkpoint.Timeout)
	}
}

// TestSavepointWaitsForASlot: in an unaligned job, a savepoint requested while a checkpoint
// holds the only MaxConcurrent slot reserves its id at once but starts (checkpoint.trigger
// with savepoint=true) only after that checkpoint ended; it then completes, and the output
// stays exact.
func TestSavepointWaitsForASlot(t *testing.T) {
	sp := savepointDuringCheckpoint(t, protocol.ModeUnaligned)
	if sp.firstEnded < 0 || sp.trigger < sp.firstEnded {
		t.Errorf("savepoint %d triggered at seq %d, before checkpoint %d ended (seq %d)", sp.id, sp.trigger, sp.first, sp.firstEnded)
	}
}

// TestSavepointIsForced: in an aligned job the same savepoint starts while the checkpoint
// still holds the slot, as Flink forces a savepoint unless unaligned checkpoints are
// enabled; both complete, and the output stays exact.
func TestSavepointIsForced(t *testing.T) {
	sp := savepointDuringCheckpoint(t, protocol.ModeAligned)
	if sp.firstEnded < 0 || sp.trigger > sp.firstEnded {
		t.Errorf("savepoint %d triggered at seq %d, after checkpoint %d ended (seq %d)", sp.id, sp.trigger, sp.first, sp.firstEnded)
	}
}

// savepointRun is where in the trace a savepoint requested during the first checkpoint
// started, and where that checkpoint ended.
type savepointRun struct {
	id, first                     uint64
	trigger, complete, firstEnded int64
}

// savepointDuringCheckpoint runs a bounded job in mode, asks for a savepoint just after
// the first checkpoint's trigger, and checks that the savepoint completes and the output is
// exact.
func savepointDuringCheckpoint(t *testing.T, mode protocol.Mode) savepointRun {
	t.Helper()
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 300, 2000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Mode = mode
	cfg.RecordCost = 200 * time.Microsecond // checkpoints take a while to align
	job, err := simenv.NewJob(3, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	requested := false
	sp := savepointRun{trigger: -1, complete: -1, firstEnded: -1}
	job.Recorder.Watch(func(e *trace.Event) {
		if requested || e.Kind != trace.KindCheckpointTrigger {
			return
		}
		requested = true
		// Not from inside the coordinator's own step: the cluster manager asks later.
		job.Kernel.After(time.Microsecond, func() {
			id, err := job.Runtime.TriggerSavepoint()
			if err != nil {
				t.Errorf("savepoint: %v", err)
			}
			sp.id = id
		})
	})
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("run ended with %v, not finished", r)
	}
	first := int64(-1)
	for _, e := range job.Recorder.Events() {
		switch {
		case e.Kind == trace.KindCheckpointTrigger && first < 0:
			first = int64(e.CP)
		case e.Kind == trace.KindCheckpointTrigger && e.CP == sp.id:
			if v, _ := e.Attr(trace.AttrSavepoint); v != "true" {
				t.Errorf("seq %d: savepoint %d triggered without savepoint=true", e.Seq, sp.id)
			}
			sp.trigger = int64(e.Seq)
		case (e.Kind == trace.KindCheckpointComplete || e.Kind == trace.KindCheckpointAbort) && int64(e.CP) == first && sp.firstEnded < 0:
			sp.firstEnded = int64(e.Seq)
		case e.Kind == trace.KindCheckpointComplete && e.CP == sp.id:
			sp.complete = int64(e.Seq)
		}
	}
	sp.first = uint64(first)
	if sp.id == 0 || sp.trigger < 0 || sp.complete < 0 {
		t.Fatalf("savepoint %d: trigger at seq %d, completion at seq %d", sp.id, sp.trigger, sp.complete)
	}
	exactOutput(t, cfg, job)
	return sp
}

// TestBoundedJobWithoutPeriodicCheckpoints: with Interval 0 no checkpoint is ever
// triggered by time, yet finished tasks wait for a final checkpoint (the coordinator
// triggers it when the last task finishes), so a 2PC sink's last transaction is committed
// and the job finishes with exact output.
func TestBoundedJobWithoutPeriodicCheckpoints(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 200, 2000, engine.TwoPhaseCommit))
	cfg.Checkpoint.Interval = 0
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), 4, nil, 30*time.Second)
	exactOutput(t, cfg, job)
	if n := simenvtest.CountKind(job, trace.KindCheckpointComplete); n != 1 {
		t.Errorf("%d checkpoints completed, want the final one only", n)
	}
}

// TestFinishedSinkRestoredCommitsBeforeExit: the sink's host crashes the instant the final
// checkpoint completes, before the sink hears of it. The failover restores every task from
// that checkpoint, in which each is finished (its snapshot Final) and exits at once; a
// restored sink must first commit what the checkpoint's transactions hold (the protocol's
// RestoreTwoPhaseCommit actions), or its last records are never made visible.
func TestFinishedSinkRestoredCommitsBeforeExit(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 200, 2000, engine.TwoPhaseCommit))
	// The final checkpoint's id, from the same run without faults.
	clean := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), 6, nil, 30*time.Second)
	var final uint64
	for _, e := range clean.Recorder.Events() {
		if e.Kind == trace.KindCheckpointComplete {
			final = e.CP
		}
	}
	f := simenvtest.Fault{Kind: "host", Name: "tm-0", Down: 30 * time.Millisecond,
		On: func(e trace.Event) bool { return e.Kind == trace.KindCheckpointComplete && e.CP == final }}
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), 6, []simenvtest.Fault{f}, 30*time.Second)
	exactOutput(t, cfg, job)
	restored, committedAfter := false, false
	for _, e := range job.Recorder.Events() {
		if e.Task != "sink-0" {
			continue
		}
		switch {
		case e.Kind == trace.KindTaskRestore && e.CP == final:
			restored = true
		case e.Kind == trace.KindSinkCommit && restored && strings.HasPrefix(e.Txn, "sink-0.e1."):
			committedAfter = true
		case e.Kind == trace.KindTaskFinish && restored && !committedAfter:
			t.Errorf("seq %d: sink-0 restored finished from %d exited before committing its transactions", e.Seq, final)
		}
	}
	if !restored || !committedAfter {
		t.Errorf("sink-0: restored from the final checkpoint %d: %v; committed the old incarnation's transaction after: %v", final, restored, committedAfter)
	}
}
