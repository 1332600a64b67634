package tokens_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// tokenGraph is a ring of five processes with two chords (cycles of several lengths), and
// two initiators.
func tokenGraph() engine.Graph {
	return engine.Graph{Operators: []engine.Operator{{Name: "tok", Parallelism: 5, Logic: tokens.Workload{
		Links:            [][2]int{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 0}, {0, 3}, {2, 0}},
		Transfers:        200,
		Interval:         500 * time.Microsecond,
		Initial:          1000,
		MaxAmount:        5,
		Seed:             4,
		SnapshotInterval: 10 * time.Millisecond,
		Initiators:       []int{0, 2},
		MaxConcurrent:    2,
	}}}}
}

// checkTokens verifies conservation in every completed global snapshot, and that no
// process ever held a negative balance in a snapshot.
func checkTokens(t *testing.T, events []trace.Event, total int64) {
	t.Helper()
	sums := make(map[uint64]int64)
	for _, e := range events {
		switch e.Kind {
		case trace.KindSnapshotTaken:
			tokens, _ := e.Attr(trace.AttrTokens)
			if strings.HasPrefix(tokens, "-") {
				t.Errorf("seq %d: %s holds %s tokens in its snapshot for %d", e.Seq, e.Task, tokens, e.CP)
			}
			sums[e.CP] += simenvtest.Atoi(tokens)
			for _, a := range e.Attrs {
				if len(a.Key) > len(trace.AttrChanTokensPrefix) && a.Key[:len(trace.AttrChanTokensPrefix)] == trace.AttrChanTokensPrefix {
					sums[e.CP] += simenvtest.Atoi(a.Value)
				}
			}
		case trace.KindCheckpointComplete:
			if sums[e.CP] != total {
				t.Errorf("checkpoint %d holds %d tokens, want %d", e.CP, sums[e.CP], total)
			}
		}
	}
}

func TestTokensFailureFree(t *testing.T) {
	cfg := engine.DefaultConfig(tokenGraph())
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), 1, nil, 30*time.Second)
	got := job.Runtime.TokenBalances()
	for task, want := range ref.Balances {
		if got[task] != want {
			t.Errorf("%s: balance %d, want %d", task, got[task], want)
		}
	}
	if n := simenvtest.CountKind(job, trace.KindCheckpointComplete); n < 3 {
		t.Errorf("only %d global snapshots", n)
	}
	checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
	simenvtest.CheckCuts(t, job.Recorder.Events())
	t.Logf("%d snapshots, %d channel-state records, virtual %v", simenvtest.CountKind(job, trace.KindCheckpointComplete), simenvtest.ChannelStateRecords(job), job.Kernel.Now())
}

func TestTokensExactlyOnceUnderCrashes(t *testing.T) {
	cfg := engine.DefaultConfig(tokenGraph())
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), []string{"jm", "tm-0", "tm-1", "tm-2"}, 3, 90*time.Millisecond)
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), seed, faults, 30*time.Second)
		got := job.Runtime.TokenBalances()
		for task, want := range ref.Balances {
			if got[task] != want {
				t.Errorf("seed %d faults %v: %s: balance %d, want %d", seed, faults, task, got[task], want)
			}
		}
		checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
		simenvtest.CheckCuts(t, job.Recorder.Events())
		simenvtest.CheckRestores(t, job.Recorder.Events())
		simenvtest.CheckIDsAndRecovery(t, job.Recorder.Events())
		t.Logf("seed %d: %d failovers, %d snapshots", seed, simenvtest.CountKind(job, trace.KindJobFailover), simenvtest.CountKind(job, trace.KindCheckpointComplete))
	}
}

// checkBalances compares the final balances with the reference.
func checkBalances(t *testing.T, job *simenv.Job, ref *engine.Reference, context string) {
	t.Helper()
	got := job.Runtime.TokenBalances()
	for task, want := range ref.Balances {
		if got[task] != want {
			t.Errorf("%s: %s: balance %d, want %d", context, task, got[task], want)
		}
	}
}

// pairGraph is two processes sending each other tokens. With tightInitial tokens each, the
// least that lets every transfer be made, the processes must often wait for tokens to
// arrive: made one every Interval regardless, the transfers would need about 27 each.
func pairGraph(initial int64) engine.Graph {
	return engine.Graph{Operators: []engine.Operator{{Name: "tok", Parallelism: 2, Logic: tokens.Workload{
		Links:            [][2]int{{0, 1}, {1, 0}},
		Transfers:        60,
		Interval:         500 * time.Microsecond,
		Initial:          initial,
		MaxAmount:        5,
		Seed:             3,
		SnapshotInterval: 5 * time.Millisecond,
		MaxConcurrent:    2,
		Initiators:       []int{0, 1},
	}}}}
}

const tightInitial = 8

// TestTokensWaitForTokensTheyLack runs pairGraph with tightInitial tokens each and checks
// after every traced event that no process holds a negative balance: a process waits for
// tokens it lacks instead of sending them (it used not to). Each run still makes every
// transfer, to the reference's balances, under crashes too; with one token less the job
// is refused, as some transfer could never be made.
func TestTokensWaitForTokensTheyLack(t *testing.T) {
	cfg := engine.DefaultConfig(pairGraph(tightInitial))
	cfg.TraceRecords = true // an event at every transfer
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lower := engine.DefaultConfig(pairGraph(tightInitial - 1))
	if err := lower.Validate(); err == nil || !strings.Contains(err.Error(), "can never make its transfer") {
		t.Fatalf("with %d tokens each the transfers cannot all be made, yet: %v", tightInitial-1, err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		job, err := simenv.NewJob(seed, cfg, simenv.DefaultConfig(2), nil, sim.Config{})
		if err != nil {
			t.Fatal(err)
		}
		job.Recorder.KeepEvents()
		overdrawn := ""
		job.Recorder.Watch(func(e *trace.Event) {
			for task, b := range job.Runtime.TokenBalances() {
				if b < 0 && overdrawn == "" {
					overdrawn = fmt.Sprintf("%s holds %d tokens at %s", task, b, e)
				}
			}
		})
		crash := ""
		if seed > 1 { // a crash at a different moment of each run
			crash = engine.TaskID("tok", int(seed%2))
			job.Kernel.At(sim.Time(time.Duration(seed)*4*time.Millisecond), func() { _ = job.Runtime.CrashTask(crash) })
		}
		if err := job.Start(); err != nil {
			t.Fatal(err)
		}
		context := fmt.Sprintf("seed %d, crash %q", seed, crash)
		if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
			t.Fatalf("%s: ended with %v", context, r)
		}
		if overdrawn != "" {
			t.Errorf("%s: %s", context, overdrawn)
		}
		checkBalances(t, job, ref, context)
		checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
		simenvtest.CheckCuts(t, job.Recorder.Events())
	}
}

// TestTokensSurviveLostOrders loses the coordinator's second order to the processes (the
// first snapshot of initiator 2), as a partition of a control link does. The lost order
// leaves its snapshot unfinished (until it expires, or the job ends); the snapshots after
// it must go on with their own ids. (The processes used to number the snapshots they initiated
// themselves, and the next order to initiator 2 named an id it did not take: the engine
// panicked.)
func TestTokensSurviveLostOrders(t *testing.T) {
	cfg := engine.DefaultConfig(tokenGraph())
	cfg.Checkpoint.Timeout = 300 * time.Millisecond
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
		orders := 0
		for _, l := range job.Kernel.Links() {
			l.SetDropFilter(func(msg any) bool {
				from, _, payload, ok := simenv.Unwrap(msg)
				if !ok || from != "coordinator" || engine.Classify(payload) != engine.ClassTokens {
					return false
				}
				orders++
				return orders == 2
			})
		}
		if err := job.Start(); err != nil {
			t.Fatal(err)
		}
		if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
			t.Fatalf("seed %d: ended with %v", seed, r)
		}
		context := fmt.Sprintf("seed %d", seed)
		checkBalances(t, job, ref, context)
		checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
		simenvtest.CheckCuts(t, job.Recorder.Events())
		simenvtest.CheckIDsAndRecovery(t, job.Recorder.Events())
		if simenvtest.CountKind(job, trace.KindCheckpointTrigger) == simenvtest.CountKind(job, trace.KindCheckpointComplete) {
			t.Errorf("%s: every snapshot completed, the one whose order was lost too", context)
		}
		t.Logf("%s: %d orders, %d failovers, %d snapshots", context, orders, simenvtest.CountKind(job, trace.KindJobFailover), simenvtest.CountKind(job, trace.KindCheckpointComplete))
	}
}

// TestTokensFinishDespiteALostFinishOrder loses the coordinator's order to finish on its
// way to one process: that process must still finish, and the job with it. (The order was
// sent once, so the process ran on forever and the job never finished: a partition between
// the coordinator and a process at the wrong moment, chandy-lamport-mesh seed 74.)
//
// A failure-free run finds when the job's last global snapshot completes (when the orders
// go out) and when the first process finishes (they have arrived by then); a second run of
// the same seed, identical until then, drops every coordinator order to tok-1 sent in
// between.
func TestTokensFinishDespiteALostFinishOrder(t *testing.T) {
	cfg := engine.DefaultConfig(tokenGraph())
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const seed = 2
	clean := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(3), seed, nil, 30*time.Second)
	var lastComplete, firstFinish int64
	for _, e := range clean.Recorder.Events() {
		switch {
		case e.Kind == trace.KindCheckpointComplete && firstFinish == 0:
			lastComplete = e.T
		case e.Kind == trace.KindTaskFinish && firstFinish == 0:
			firstFinish = e.T
		}
	}
	if firstFinish == 0 {
		t.Fatal("the failure-free run finished no process")
	}

	job, err := simenv.NewJob(seed, cfg, simenv.DefaultConfig(3), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	job.Recorder.KeepEvents()
	dropped := 0
	for _, l := range job.Kernel.Links() {
		l.SetDropFilter(func(msg any) bool {
			from, to, payload, ok := simenv.Unwrap(msg)
			now := job.Kernel.Now().Nanoseconds()
			if !ok || from != "coordinator" || to != "tok-1" || engine.Classify(payload) != engine.ClassTokens ||
				now < lastComplete || now > firstFinish {
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
		t.Fatalf("no order to tok-1 went out between %dns and %dns", lastComplete, firstFinish)
	}
	if r != sim.StopStopped {
		t.Fatalf("ended with %v after %d orders to tok-1 were lost: the job did not finish", r, dropped)
	}
	checkBalances(t, job, ref, "lost finish order")
	checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
	simenvtest.CheckCuts(t, job.Recorder.Events())
}

// TestTokenCoordinatorStopsWhenTheJobIsDone: once every process of a finished token job has
// exited, the coordinator's tick stops, as the dataflow coordinator's does: nothing is left
// to happen and the simulated world falls quiet. The configuration asks for the default
// readers, but a token job has no sink and runs none: they used to poll the empty store for
// ever.
func TestTokenCoordinatorStopsWhenTheJobIsDone(t *testing.T) {
	cfg := engine.DefaultConfig(tokenGraph())
	if cfg.Store.Readers == 0 {
		t.Fatal("the default configuration has no readers: this test would show nothing")
	}
	job, err := simenv.NewJob(1, cfg, simenv.DefaultConfig(3), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	if r := job.RunUntilFinished(30 * time.Second); r != sim.StopStopped {
		t.Fatalf("run ended with %v, not finished", r)
	}
	interval := cfg.Graph.Operators[0].Logic.(tokens.Workload).SnapshotInterval
	if r := job.Kernel.RunFor(10 * interval); r != sim.StopIdle {
		t.Errorf("after the job finished, a run of %v ended with %v and %d events still queued, want idle", 10*interval, r, job.Kernel.Pending())
	}
}
