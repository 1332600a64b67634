package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// storageFaultRun runs a small 2PC job in which every storage operation of kind op under a
// key with prefix meets fault kind, from the first completed checkpoint until the
// coordinator crashes, 150 ms later (a new incarnation starts 10 ms after that).
// Checkpoints are triggered every 100 ms, so at least one trigger's counter write and one
// completion's store write meet the fault. The job must finish with exactly the reference
// output.
func storageFaultRun(t *testing.T, prefix string, op sim.StoreOpKind, kind sim.StoreFaultKind) *simenv.Job {
	t.Helper()
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 600, 1000, engine.TwoPhaseCommit))
	job, err := simenv.NewJob(5, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	faulted := simenvtest.FaultStorageUntilCoordinatorCrash(job, prefix, op, kind, 150*time.Millisecond)
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("run ended with %v at %v, not finished", r, job.Kernel.Now())
	}
	if *faulted == 0 {
		t.Fatalf("no storage operation under %s met the fault", prefix)
	}
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime)); len(lost)+len(extra)+len(wrong) > 0 {
		t.Errorf("lost %v, extra %v, wrong %v", head(lost), head(extra), head(wrong))
	}
	return job
}

// TestCorruptedCounterWriteLeavesTheCounterReadable: storage acknowledges a counter write
// but stores garbage (the read-back catches it and the trigger fails), and the coordinator
// crashes before a later write. With the counter under one key, the garbage replaced the
// only copy: every read of the next incarnation failed its checksum, it retried for ever
// and the job never restarted (explicit-unaligned seed 24 lost every record after the
// crash). Written in turn to two keys, the counter stays readable from the other one.
func TestCorruptedCounterWriteLeavesTheCounterReadable(t *testing.T) {
	job := storageFaultRun(t, "meta/counter", sim.OpPut, sim.StoreFaultCorrupt)
	if simenvtest.CountKind(job, trace.KindCoordinatorRecover) != 1 {
		t.Errorf("%d coordinator recoveries, want 1", simenvtest.CountKind(job, trace.KindCoordinatorRecover))
	}
}

// TestAbortedIdIsNotReusedAfterCoordinatorCrash: a counter write fails, so its checkpoint
// aborts (trigger-failed) without its id ever becoming durable, and the coordinator crashes
// before a later counter write. The next incarnation continues after the durable counter
// and hands the id out again; had the abort been traced, the trace would show one id
// aborted and then completed, which the listener contract rejects. The abort is traced
// only once a counter write covers the id.
func TestAbortedIdIsNotReusedAfterCoordinatorCrash(t *testing.T) {
	job := storageFaultRun(t, "meta/counter", sim.OpPut, sim.StoreFaultFail)
	checkAbortsStayAborted(t, job)
}

// TestCorruptedStoreWriteKeepsTheStore: storage acknowledges a write of the
// completed-checkpoint store but stores garbage, so the checkpoint it was to complete
// aborts, and the coordinator crashes. The store written in place was lost with it (the
// retained checkpoints too); written in turn to two keys, the previous store survives and
// the next incarnation restores from its latest checkpoint.
func TestCorruptedStoreWriteKeepsTheStore(t *testing.T) {
	job := storageFaultRun(t, "meta/completed", sim.OpPut, sim.StoreFaultCorrupt)
	for _, e := range job.Recorder.Events() {
		if e.Kind == trace.KindCoordinatorRecover && e.CP == 0 {
			t.Errorf("seq %d: the coordinator recovered no checkpoint, though some completed", e.Seq)
		}
	}
	checkAbortsStayAborted(t, job)
}

// TestFailedReadBackIsNoFailedWrite: storage takes a write of the completed-checkpoint
// store, but reading it back fails. The write is durable all the same; reporting it as
// failed aborted a checkpoint (and released its state, which was deleted) that the next
// incarnation then found in the store: it restored from it, every restore found no state,
// and the job failed over for ever. The read-back is retried until it answers, and the
// checkpoint stays persisting meanwhile.
func TestFailedReadBackIsNoFailedWrite(t *testing.T) {
	job := storageFaultRun(t, "meta/completed", sim.OpGet, sim.StoreFaultFail)
	checkAbortsStayAborted(t, job)
}

// checkAbortsStayAborted fails the test if a checkpoint id the trace shows aborted is later
// triggered, completed, or recovered as durably complete.
func checkAbortsStayAborted(t *testing.T, job *simenv.Job) {
	t.Helper()
	aborted := make(map[uint64]uint64) // checkpoint -> seq of its abort
	for _, e := range job.Recorder.Events() {
		switch e.Kind {
		case trace.KindCheckpointAbort:
			aborted[e.CP] = e.Seq
		case trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCoordinatorRecover:
			if seq, ok := aborted[e.CP]; ok {
				t.Errorf("seq %d: %s of checkpoint %d, aborted at seq %d", e.Seq, e.Kind, e.CP, seq)
			}
		}
	}
}

// TestFailingCounterStoreFailsOver: the id counter's writes keep failing for a while, so
// every checkpoint aborts before it starts (trigger-failed). That is an I/O failure while
// triggering, which counts, as in Flink: one more than tolerated and the job fails over,
// instead of running on without a checkpoint. The aborts wait in the trace for a counter
// write that covers their ids, and the failover waits for them, so that the trace shows
// the failures before the failover they caused.
func TestFailingCounterStoreFailsOver(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 600, 1000, engine.TwoPhaseCommit))
	cfg.Checkpoint.TolerableFailures = 1
	job, err := simenv.NewJob(5, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	failing := false
	job.Env.Storage().SetFaultHook(func(o sim.StoreOp) sim.StoreFault {
		if failing && o.Kind == sim.OpPut && strings.HasPrefix(o.Key, "meta/counter") {
			return sim.StoreFault{Kind: sim.StoreFaultFail}
		}
		return sim.StoreFault{}
	})
	armed := false
	job.Recorder.Watch(func(e *trace.Event) {
		if armed || e.Kind != trace.KindCheckpointComplete {
			return
		}
		armed, failing = true, true
		job.Kernel.After(500*time.Millisecond, func() { failing = false })
	})
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("run ended with %v at %v, not finished", r, job.Kernel.Now())
	}
	failed, failovers := 0, 0
	for _, e := range job.Recorder.Events() {
		switch {
		case e.Kind == trace.KindCheckpointAbort && e.Reason == protocol.ReasonTriggerFailed.String():
			failed++
		case e.Kind == trace.KindJobFailover && e.Reason == protocol.ReasonTolerableFailuresExceeded.String():
			failovers++
			if failed <= cfg.Checkpoint.TolerableFailures {
				t.Errorf("seq %d: failover with %d failed triggers traced before it", e.Seq, failed)
			}
		}
	}
	if failovers == 0 {
		t.Errorf("no failover for exceeded tolerable failures (%d failed triggers)", failed)
	}
	res := checker.FailureAccounting(job.Recorder.Events(), checker.Reference{Policy: checker.Policy{TolerableFailures: checker.Tolerating(1)}})
	if res.Verdict != checker.VerdictPass {
		t.Errorf("failure-accounting: %v", res)
	}
	exactOutput(t, cfg, job)
}
