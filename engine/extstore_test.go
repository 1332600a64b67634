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

// TestStoreCrashLosesNoCommit: the external store's host goes down the instant a
// checkpoint completes, so the 2PC sinks' commit requests for it are lost. The sinks send
// them again until the store answers; before, a commit was sent once, its transaction stayed
// prepared for ever, and a finished sink waited for the answer without end (the job never
// finished, and its last records were never visible).
func TestStoreCrashLosesNoCommit(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 300, 2000, engine.TwoPhaseCommit))
	for cp := uint64(1); cp <= 3; cp++ {
		f := simenvtest.Fault{Kind: "host", Name: "ext", Down: 40 * time.Millisecond,
			On: func(e trace.Event) bool { return e.Kind == trace.KindCheckpointComplete && e.CP == cp }}
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), cp, []simenvtest.Fault{f}, 30*time.Second)
		exactOutput(t, cfg, job)
		simenvtest.CheckCuts(t, job.Recorder.Events())
	}
}

// TestStoreCrashLosesNoWrite: the store's host goes down for a while in the middle of the
// job, at different moments, so that writes, pre-commits, confirmations and commits sent
// to it are lost without a word. A sink finds lost writes out when the store answers its
// pre-commit (2PC) or its confirmation (upsert, append) with fewer records than it wrote,
// and fails; the job fails over and writes them again. No sink may lose a record; the 2PC
// and upsert sinks must not duplicate one either.
func TestStoreCrashLosesNoWrite(t *testing.T) {
	for _, sink := range []engine.SinkType{engine.TwoPhaseCommit, engine.Upsert, engine.Append} {
		t.Run(sink.String(), func(t *testing.T) {
			cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 400, 2000, sink))
			ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, at := range []time.Duration{33 * time.Millisecond, 61 * time.Millisecond, 147 * time.Millisecond} {
				f := simenvtest.Fault{At: at, Kind: "host", Name: "ext", Down: time.Duration(i+1) * 15 * time.Millisecond}
				job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), uint64(i+1), []simenvtest.Fault{f}, 30*time.Second)
				lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
				if len(lost) > 0 || sink != engine.Append && len(extra)+len(wrong) > 0 {
					t.Errorf("%v: lost %d %v, extra %d %v, wrong %d %v", f, len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
				}
			}
		})
	}
}

// TestRetriedConfirmationSeesTheGap: the store's host is down for a millisecond just as a
// sink appends a batch and asks the store to confirm its records for a snapshot; both are
// lost. The confirmation is sent again 20 ms later, after later batches arrived, so the
// store's count of records has caught up with what the confirmation names although one
// batch is missing: a count alone confirmed it and the record was lost. The store checks
// that the numbered batches ran without a gap.
func TestRetriedConfirmationSeesTheGap(t *testing.T) {
	g := engine.Graph{
		Operators: []engine.Operator{
			{Name: "src", Parallelism: 1, Logic: engine.Source{Partitions: 1, Records: 6, RatePerSecond: 100, Keys: 4, Seed: 1}},
			{Name: "sink", Parallelism: 1, Logic: engine.Sink{Type: engine.Append}},
		},
		Edges: []engine.Edge{{From: "src", To: "sink", Partitioning: engine.Forward}},
	}
	cfg := engine.DefaultConfig(g)
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		recvs := 0
		f := simenvtest.Fault{Kind: "host", Name: "ext", Down: time.Millisecond, On: func(e trace.Event) bool {
			if e.Kind == trace.KindBarrierRecv && e.Task == "sink-0" {
				recvs++
			}
			return recvs == 2
		}}
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(1), seed, []simenvtest.Fault{f}, 30*time.Second)
		if lost, _, _ := diffOutput(ref.OutputValues(), committed(job.Runtime)); len(lost) > 0 {
			t.Errorf("seed %d: lost %v", seed, lost)
		}
	}
}

// TestResentPrepareBeginsNoSecondTransaction: the store's answers are lost for 220 ms,
// so sinks send their pre-commits again. A pre-commit also begins the sink's next
// transaction; the one sent again finds it begun already (and possibly written into) and
// must leave it alone. The output must equal the reference exactly.
func TestResentPrepareBeginsNoSecondTransaction(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 400, 2000, engine.TwoPhaseCommit))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		job, err := simenv.NewJob(seed, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
		if err != nil {
			t.Fatal(err)
		}
		dropped := 0
		lossy := func() bool {
			now := job.Kernel.Now()
			// Two checkpoint intervals: the answers to the pre-commits of at least one
			// checkpoint are lost, whatever the seed.
			return now > sim.Time(30*time.Millisecond) && now < sim.Time(250*time.Millisecond)
		}
		for _, l := range job.Kernel.Links() {
			if l.From().Name() != "ext" {
				continue
			}
			l.SetDropFilter(func(msg any) bool {
				from, _, payload, ok := simenv.Unwrap(msg)
				if ok && from == "extstore" && engine.Classify(payload) == engine.ClassStore && lossy() {
					dropped++
					return true
				}
				return false
			})
		}
		if err := job.Start(); err != nil {
			t.Fatal(err)
		}
		if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
			t.Fatalf("seed %d: ended with %v after %d dropped answers", seed, r, dropped)
		}
		if dropped == 0 {
			t.Fatalf("seed %d: no answer of the store was dropped", seed)
		}
		lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
		if len(lost)+len(extra)+len(wrong) > 0 {
			t.Errorf("seed %d: lost %d %v, extra %d %v, wrong %d %v", seed, len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
		}
	}
}
