package simenv

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/trace"
)

// tokenGraph is a ring of five processes with two chords (cycles of several lengths), and
// two initiators.
func tokenGraph() engine.Graph {
	return engine.Graph{Operators: []engine.Operator{{Name: "tok", Parallelism: 5, Logic: engine.Tokens{
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

// checkTokens verifies conservation in every completed global snapshot.
func checkTokens(t *testing.T, events []trace.Event, total int64) {
	t.Helper()
	sums := make(map[uint64]int64)
	for _, e := range events {
		switch e.Kind {
		case trace.KindSnapshotTaken:
			tokens, _ := e.Attr(trace.AttrTokens)
			sums[e.CP] += atoi(tokens)
			for _, a := range e.Attrs {
				if len(a.Key) > len(trace.AttrChanTokensPrefix) && a.Key[:len(trace.AttrChanTokensPrefix)] == trace.AttrChanTokensPrefix {
					sums[e.CP] += atoi(a.Value)
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
	job := runWithFaults(t, cfg, DefaultConfig(3), 1, nil, 30*time.Second)
	got := job.Runtime.TokenBalances()
	for task, want := range ref.Balances {
		if got[task] != want {
			t.Errorf("%s: balance %d, want %d", task, got[task], want)
		}
	}
	if n := countKind(job, trace.KindCheckpointComplete); n < 3 {
		t.Errorf("only %d global snapshots", n)
	}
	checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
	checkCuts(t, job.Recorder.Events())
	t.Logf("%d snapshots, %d channel-state records, virtual %v", countKind(job, trace.KindCheckpointComplete), channelStateRecords(job), job.Kernel.Now())
}

func TestTokensExactlyOnceUnderCrashes(t *testing.T) {
	cfg := engine.DefaultConfig(tokenGraph())
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		faults := randomFaults(rng, cfg.Graph.Tasks(), []string{"jm", "tm-0", "tm-1", "tm-2"}, 3, 90*time.Millisecond)
		job := runWithFaults(t, cfg, DefaultConfig(3), seed, faults, 30*time.Second)
		got := job.Runtime.TokenBalances()
		for task, want := range ref.Balances {
			if got[task] != want {
				t.Errorf("seed %d faults %v: %s: balance %d, want %d", seed, faults, task, got[task], want)
			}
		}
		checkTokens(t, job.Recorder.Events(), ref.TokenTotal)
		checkCuts(t, job.Recorder.Events())
		checkRestores(t, job.Recorder.Events())
		checkIDsAndRecovery(t, job.Recorder.Events())
		t.Logf("seed %d: %d failovers, %d snapshots", seed, countKind(job, trace.KindJobFailover), countKind(job, trace.KindCheckpointComplete))
	}
}
