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

// checkpointLatency returns the mean time from trigger to completion of the completed
// checkpoints of a run.
func checkpointLatency(events []trace.Event) time.Duration {
	triggered := make(map[uint64]int64)
	var total int64
	n := 0
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			triggered[e.CP] = e.T
		case trace.KindCheckpointComplete:
			total += e.T - triggered[e.CP]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return time.Duration(total / int64(n))
}

// TestUnalignedBeatsAlignmentUnderBackpressure: a slow sink back-pressures the whole job
// (sources emit as fast as credits allow), so every channel is full. Aligned barriers queue
// behind the buffers in every output and input queue and wait for alignment; unaligned
// barriers overtake the queued buffers at both ends and record them as channel state.
// Unaligned checkpoints must therefore complete faster and carry channel state; aligned ones
// carry none.
func TestUnalignedBeatsAlignmentUnderBackpressure(t *testing.T) {
	latency := make(map[protocol.Mode]time.Duration)
	for _, mode := range []protocol.Mode{protocol.ModeAligned, protocol.ModeUnaligned} {
		cfg := modeConfig(mode, engine.TwoPhaseCommit)
		cfg.RecordCost = 20 * time.Microsecond
		cfg.Graph.Operators[2].RecordCost = 200 * time.Microsecond // a slow sink
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 1, nil, 60*time.Second)
		latency[mode] = checkpointLatency(job.Recorder.Events())
		state := simenvtest.ChannelStateRecords(job)
		if mode == protocol.ModeAligned && state != 0 {
			t.Errorf("aligned checkpoints recorded %d channel-state records", state)
		}
		if mode == protocol.ModeUnaligned && state == 0 {
			t.Errorf("unaligned checkpoints recorded no channel state under backpressure")
		}
		t.Logf("%s: mean checkpoint latency %v, %d channel-state records", mode, latency[mode], state)
	}
	if latency[protocol.ModeUnaligned] >= latency[protocol.ModeAligned] {
		t.Errorf("unaligned checkpoints (%v) are not faster than aligned ones (%v)", latency[protocol.ModeUnaligned], latency[protocol.ModeAligned])
	}
}

// TestAtLeastOnceModeLosesNothing: in at-least-once mode barriers do not block, so a restore
// may count records twice, but nothing is lost.
func TestAtLeastOnceModeLosesNothing(t *testing.T) {
	cfg := modeConfig(protocol.ModeAtLeastOnce, engine.TwoPhaseCommit)
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}, 3, 150*time.Millisecond)
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
		lost, _, _ := diffOutput(ref.OutputValues(), committed(job.Runtime))
		if len(lost) > 0 {
			t.Errorf("seed %d: lost %d records %v", seed, len(lost), head(lost))
		}
	}
}

// TestSavepointCommitsNothing: a savepoint completes (traced with savepoint=true), no task
// is notified of it, and the transaction a 2PC sink pre-committed at it is committed only
// once a later checkpoint is notified (that checkpoint covers its records); the output stays
// exact.
func TestSavepointCommitsNothing(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 300, 2000, engine.TwoPhaseCommit))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := simenv.NewJob(1, cfg, simenv.DefaultConfig(2), nil, simConfig())
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	var savepoint uint64
	job.Kernel.At(simTime(40*time.Millisecond), func() {
		id, err := job.Runtime.TriggerSavepoint()
		if err != nil {
			t.Errorf("savepoint: %v", err)
		}
		savepoint = id
	})
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	job.RunUntilFinished(30 * time.Second)
	flagged, completed := false, false
	notified := make(map[string]uint64)
	for _, e := range job.Recorder.Events() {
		if e.Kind == trace.KindNotifyComplete {
			notified[e.Task] = e.CP
		}
		if e.CP != savepoint {
			continue
		}
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			v, _ := e.Attr(trace.AttrSavepoint)
			flagged = v == "true"
		case trace.KindCheckpointComplete:
			completed = true
		case trace.KindNotifyComplete:
			t.Errorf("seq %d: %s notified of savepoint %d", e.Seq, e.Task, savepoint)
		case trace.KindSinkCommit:
			if notified[e.Task] <= savepoint {
				t.Errorf("seq %d: %s committed savepoint %d's transaction before a later checkpoint was notified", e.Seq, e.Task, savepoint)
			}
		}
	}
	if savepoint == 0 || !flagged || !completed {
		t.Errorf("savepoint %d: flagged %v, completed %v", savepoint, flagged, completed)
	}
	lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
	if len(lost)+len(extra)+len(wrong) > 0 {
		t.Errorf("lost %d, extra %d, wrong %d", len(lost), len(extra), len(wrong))
	}
}

// TestOvertakenOutputRestored crashes a task host right after an unaligned checkpoint
// completes under backpressure, so that the restore holds records the barriers overtook in
// output queues (emitted again first on restore) and in input queues (replayed as channel
// state); the output must still be exact and every cut consistent.
func TestOvertakenOutputRestored(t *testing.T) {
	cfg := modeConfig(protocol.ModeUnaligned, engine.TwoPhaseCommit)
	cfg.RecordCost = 20 * time.Microsecond
	cfg.Graph.Operators[2].RecordCost = 200 * time.Microsecond
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for cp := uint64(1); cp <= 4; cp++ {
		for _, host := range []string{"tm-0", "tm-3"} {
			f := simenvtest.Fault{Kind: "host", Name: host, Down: 20 * time.Millisecond,
				On: func(e trace.Event) bool { return e.Kind == trace.KindCheckpointComplete && e.CP == cp }}
			job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), cp, []simenvtest.Fault{f}, 60*time.Second)
			lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
			if len(lost)+len(extra)+len(wrong) > 0 {
				t.Errorf("crash of %s after checkpoint %d: lost %d %v, extra %d %v, wrong %d %v", host, cp,
					len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
			}
			simenvtest.CheckCuts(t, job.Recorder.Events())
			simenvtest.CheckRestores(t, job.Recorder.Events())
		}
	}
}
