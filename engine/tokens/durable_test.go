package tokens_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// tokenStorageFaultRun runs a token job in which every storage write under a key with prefix
// is corrupted (acknowledged, garbage stored: the read-back catches it), from the first
// completed global snapshot until the coordinator crashes window later; a new incarnation
// starts 10 ms after that. Snapshots start every 10 ms, so snapshot writes meet the fault
// within 30 ms, and counter writes (one per block of ids) within 150 ms. The job must finish
// with the reference balances.
func tokenStorageFaultRun(t *testing.T, prefix string, window time.Duration) *simenv.Job {
	t.Helper()
	graph := tokenGraph()
	spec := graph.Operators[0].Logic.(tokens.Workload)
	spec.Transfers, spec.Initial = 1000, 5000 // half a second of transfers: the crash comes well before the end
	graph.Operators[0].Logic = spec
	cfg := engine.DefaultConfig(graph)
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := simenv.NewJob(3, cfg, simenv.DefaultConfig(3), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	corrupted := simenvtest.FaultStorageUntilCoordinatorCrash(job, prefix, sim.OpPut, sim.StoreFaultCorrupt, window)
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("run ended with %v at %v after %d corrupted writes under %s: the job did not finish", r, job.Kernel.Now(), *corrupted, prefix)
	}
	if *corrupted == 0 {
		t.Fatalf("no write under %s met the fault", prefix)
	}
	checkBalances(t, job, ref, "corrupted "+prefix)
	checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
	return job
}

// TestTokenCounterSurvivesACorruptedWrite: the token coordinator kept its id counter under
// one key, so a corrupted counter write replaced the only copy, and the incarnation after
// a crash retried its read for ever. In turn under two keys, the older copy stays readable.
func TestTokenCounterSurvivesACorruptedWrite(t *testing.T) {
	tokenStorageFaultRun(t, "meta/counter", 150*time.Millisecond)
}

// TestTokenSnapshotStoreSurvivesACorruptedWrite: the same for the latest global snapshot.
func TestTokenSnapshotStoreSurvivesACorruptedWrite(t *testing.T) {
	job := tokenStorageFaultRun(t, "meta/tokens", 30*time.Millisecond)
	for _, e := range job.Recorder.Events() {
		if e.Kind == trace.KindCoordinatorRecover && e.CP == 0 {
			t.Errorf("seq %d: the coordinator recovered no global snapshot, though one completed", e.Seq)
		}
	}
}

// TestAbortedSnapshotWithALostAnswerFreesItsPlace: a snapshot that a process aborts (its
// recorded channel state overflows) keeps its place at the collector until every process
// has answered it. When an answer is lost on the way, the coordinator forgot the snapshot
// at the abort, never timed it out, and the full collector let no snapshot start again:
// the job, which ends only on a snapshot that shows it done, ran on for ever. It now
// expires like any snapshot in flight, and the failover starts a fresh collector.
func TestAbortedSnapshotWithALostAnswerFreesItsPlace(t *testing.T) {
	graph := tokenGraph()
	spec := graph.Operators[0].Logic.(tokens.Workload)
	spec.MaxConcurrent = 1
	graph.Operators[0].Logic = spec
	cfg := engine.DefaultConfig(graph)
	cfg.Checkpoint.MaxBufferedRecords = 1 // a snapshot that records two messages aborts
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := simenv.NewJob(4, cfg, simenv.DefaultConfig(3), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	var dropUntil int64 = -1
	job.Recorder.Watch(func(e *trace.Event) {
		if dropUntil < 0 && e.Kind == trace.KindCheckpointAbort {
			dropUntil = e.T + int64(5*time.Millisecond)
		}
	})
	dropped := 0
	for _, l := range job.Kernel.Links() {
		l.SetDropFilter(func(msg any) bool {
			from, to, payload, ok := simenv.Unwrap(msg)
			if !ok || to != "coordinator" || from == "coordinator" || engine.Classify(payload) != engine.ClassTokens ||
				job.Kernel.Now().Nanoseconds() > dropUntil {
				return false
			}
			dropped++
			return true
		})
	}
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	r := job.RunUntilFinished(30 * time.Second)
	if dropped == 0 {
		t.Fatal("no answer to the coordinator was dropped after the first abort")
	}
	if r != sim.StopStopped {
		t.Fatalf("ended with %v at %v after %d answers were lost: the job did not finish", r, job.Kernel.Now(), dropped)
	}
	checkBalances(t, job, ref, "lost answers")
	checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
}
