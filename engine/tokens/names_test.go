package tokens_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// namedGraph is a ring of three processes named as a course names them, N1 -> N2 -> N10 ->
// N1, with a chord N2 -> N1, starting with balances of their own: N1 30 tokens, N2 none and
// N10 60.
func namedGraph() engine.Graph {
	return engine.Graph{Operators: []engine.Operator{{Name: "p", Parallelism: 3,
		TaskNames: []string{"N1", "N2", "N10"},
		Logic: tokens.Workload{
			Links:            [][2]int{{0, 1}, {1, 2}, {2, 0}, {1, 0}},
			Transfers:        20,
			Interval:         time.Millisecond,
			Initial:          100, // overridden by Balances
			Balances:         []int64{30, 0, 60},
			MaxAmount:        3,
			Seed:             7,
			SnapshotInterval: 5 * time.Millisecond,
			Initiators:       []int{2},
			MaxConcurrent:    2,
		}}}}
}

// TestTokenProcessesWithNamesAndBalancesOfTheirOwn: a tokens operator may name its tasks
// (engine.Operator.TaskNames) and give each process its starting balance (Balances); the
// reference, the trace, every global snapshot and failover use both.
func TestTokenProcessesWithNamesAndBalancesOfTheirOwn(t *testing.T) {
	cfg := engine.DefaultConfig(namedGraph())
	if got, want := cfg.Graph.Tasks(), []string{"N1", "N2", "N10"}; !slices.Equal(got, want) {
		t.Fatalf("tasks %v, want %v", got, want)
	}
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref.TokenTotal != 90 || !slices.Equal(slices.Sorted(maps.Keys(ref.Balances)), []string{"N1", "N10", "N2"}) {
		t.Fatalf("reference %v (total %d), want the balances of N1, N2 and N10 adding up to 90", ref.Balances, ref.TokenTotal)
	}
	envCfg := simenv.DefaultConfig(3)
	envCfg.Placement = simenv.GraphPlacement(&cfg.Graph, 3)
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 29))
		faults := simenvtest.RandomFaults(rng, cfg.Graph.Tasks(), []string{"tm-0", "tm-1", "tm-2"}, 2, 60*time.Millisecond)
		job := simenvtest.RunWithFaults(t, cfg, envCfg, seed, faults, 30*time.Second)
		if host := job.Env.Host("N10").Name(); host != "tm-2" {
			t.Errorf("N10, task 2, runs on %s", host)
		}
		checkBalances(t, job, ref, "named processes")
		events := job.Recorder.Events()
		checkTokens(t, events, ref.TokenTotal)
		simenvtest.CheckCuts(t, events)
		simenvtest.CheckRestores(t, events)
		for _, e := range events {
			if strings.HasPrefix(e.Task, "p-") {
				t.Fatalf("seed %d: seq %d (%s) names task %s", seed, e.Seq, e.Kind, e.Task)
			}
			if e.Kind == trace.KindSinkRead {
				t.Fatalf("seed %d: seq %d: a token job, which has no sink, read the external store", seed, e.Seq)
			}
		}
		if simenvtest.CountKind(job, trace.KindCheckpointComplete) < 2 {
			t.Errorf("seed %d: fewer than two global snapshots", seed)
		}
	}
}

// TestTokenTaskNamesAndBalancesAreChecked: the engine refuses task names that cannot be
// ids, or that clash with one another or with the engine's own processes, and balances that
// do not fit the processes.
func TestTokenTaskNamesAndBalancesAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(op *engine.Operator, w *tokens.Workload)
		want   string
	}{
		{"too few names", func(op *engine.Operator, w *tokens.Workload) { op.TaskNames = op.TaskNames[:2] }, "2 task names for 3 tasks"},
		{"a name twice", func(op *engine.Operator, w *tokens.Workload) { op.TaskNames[2] = "N1" }, `task 2: "N1" names two tasks`},
		{"a record id separator", func(op *engine.Operator, w *tokens.Workload) { op.TaskNames[0] = "N:1" }, `task name "N:1": use letters, digits, '-' and '_', starting with a letter`},
		{"a leading digit", func(op *engine.Operator, w *tokens.Workload) { op.TaskNames[0] = "1N" }, `task name "1N"`},
		{"a reader's name", func(op *engine.Operator, w *tokens.Workload) { op.TaskNames[1] = "reader-0" }, `task name "reader-0" is the engine's own`},
		{"the store's name", func(op *engine.Operator, w *tokens.Workload) { op.TaskNames[1] = "extstore" }, `task name "extstore" is the engine's own`},
		{"too few balances", func(op *engine.Operator, w *tokens.Workload) { w.Balances = w.Balances[:1] }, "1 Balances for 3 processes"},
		{"a negative balance", func(op *engine.Operator, w *tokens.Workload) { w.Balances[2] = -1 }, "negative balance -1 of process 2"},
	} {
		g := namedGraph()
		op := &g.Operators[0]
		w := op.Logic.(tokens.Workload)
		w.Balances = slices.Clone(w.Balances)
		tc.change(op, &w)
		op.Logic = w
		cfg := engine.DefaultConfig(g)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// Only a job kind's operator, whose tasks it addresses by index, names its tasks.
	g := engine.Graph{
		Operators: []engine.Operator{
			{Name: "src", Parallelism: 1, Logic: engine.Source{Partitions: 1, Records: 1, RatePerSecond: 1, Keys: 1}, TaskNames: []string{"S"}},
			{Name: "out", Parallelism: 1, Logic: engine.Sink{Type: engine.Append}},
		},
		Edges: []engine.Edge{{From: "src", To: "out", Partitioning: engine.Forward}},
	}
	cfg := engine.DefaultConfig(g)
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "only a job kind's operator names its tasks") {
		t.Errorf("a source with task names: %v", err)
	}
}

// TestOnlyJobsWithASinkRunReaders: readers poll what sinks commit; a job without a sink has
// none to run, whatever the configuration asks for.
func TestOnlyJobsWithASinkRunReaders(t *testing.T) {
	readers := func(cfg engine.Config) []string {
		var names []string
		for _, p := range engine.ProcessNames(&cfg) {
			if strings.HasPrefix(p, engine.ReaderPrefix) {
				names = append(names, p)
			}
		}
		return names
	}
	cfg := engine.DefaultConfig(tokenGraph())
	if got := readers(cfg); len(got) != 0 {
		t.Errorf("a token job (Store.Readers %d) runs readers %v", cfg.Store.Readers, got)
	}
	dataflow := engine.DefaultConfig(engine.Graph{
		Operators: []engine.Operator{
			{Name: "src", Parallelism: 1, Logic: engine.Source{Partitions: 1, Records: 1, RatePerSecond: 1, Keys: 1}},
			{Name: "out", Parallelism: 1, Logic: engine.Sink{Type: engine.Append}},
		},
		Edges: []engine.Edge{{From: "src", To: "out", Partitioning: engine.Forward}},
	})
	if got := readers(dataflow); len(got) != dataflow.Store.Readers {
		t.Errorf("a job with a sink runs readers %v, want %d", got, dataflow.Store.Readers)
	}
}
