package tokens

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"

	"pgregory.net/rapid"
)

// tokenGraph is a job of n token processes with the given links and workload.
func tokenGraph(n int, spec Workload) *engine.Graph {
	return &engine.Graph{Operators: []engine.Operator{{Name: "p", Parallelism: n, Logic: spec}}}
}

// validate checks the job as the engine does (its reference validates the graph first).
func validate(g *engine.Graph) error {
	_, err := engine.ComputeReference(g, engine.ReferenceOptions{})
	return err
}

// playAnyOrder makes the transfers of spec in an order rapid draws among those the balances
// allow, with each transfer's tokens arriving at a drawn later moment, as a run may. It
// returns the final balances (tokens in flight delivered) and whether every transfer was
// made before nothing more could happen.
func playAnyOrder(t *rapid.T, n int, spec Workload) ([]int64, bool) {
	balances := make([]int64, n)
	plans := make([]tokenPlan, n)
	made := make([]int64, n)
	for p := range n {
		balances[p] = spec.Initial
		plans[p] = spec.plan(p)
	}
	type flight struct {
		to     int
		amount int64
	}
	var inFlight []flight
	for {
		var ready []int
		for p := range n {
			if made[p] < plans[p].len() {
				if _, amount := plans[p].transfer(made[p]); balances[p] >= amount {
					ready = append(ready, p)
				}
			}
		}
		if len(ready) == 0 && len(inFlight) == 0 {
			break
		}
		// Either deliver some tokens in flight or make a transfer that is ready.
		if len(inFlight) > 0 && (len(ready) == 0 || rapid.Bool().Draw(t, "deliver")) {
			i := rapid.IntRange(0, len(inFlight)-1).Draw(t, "which")
			balances[inFlight[i].to] += inFlight[i].amount
			inFlight = slices.Delete(inFlight, i, i+1)
			continue
		}
		p := rapid.SampledFrom(ready).Draw(t, "process")
		to, amount := plans[p].transfer(made[p])
		balances[p] -= amount
		if balances[p] < 0 {
			t.Fatalf("process %d overdrew", p)
		}
		inFlight = append(inFlight, flight{to, amount})
		made[p]++
	}
	for p := range n {
		if made[p] < plans[p].len() {
			return balances, false
		}
	}
	return balances, true
}

// TestTokenOutcomeIsEveryOrdersOutcome checks the argument tokenOutcome rests on against
// brute force: whatever order the transfers are made in, and whenever their tokens arrive,
// a run that never overdraws completes every transfer exactly when tokenOutcome does, and
// ends with its balances.
func TestTokenOutcomeIsEveryOrdersOutcome(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 4).Draw(t, "processes")
		spec := Workload{Transfers: int64(rapid.IntRange(0, 12).Draw(t, "transfers")), Interval: time.Millisecond,
			Initial: rapid.Int64Range(0, 12).Draw(t, "initial"), MaxAmount: rapid.Int64Range(1, 6).Draw(t, "max"),
			Seed: rapid.Uint64().Draw(t, "seed"), SnapshotInterval: time.Millisecond}
		for from := range n {
			for to := range n {
				if from != to && rapid.Bool().Draw(t, "link") {
					spec.Links = append(spec.Links, [2]int{from, to})
				}
			}
		}
		want, err := tokenOutcome(n, spec)
		got, complete := playAnyOrder(t, n, spec)
		if complete != (err == nil) {
			t.Fatalf("tokenOutcome says %v; a run in another order completes: %v", err, complete)
		}
		if complete && !slices.Equal(got, want) {
			t.Fatalf("balances %v, tokenOutcome says %v", got, want)
		}
	})
}

// TestTokensRefuseWorkloadsThatWaitForever: a process that would have to wait forever for
// tokens makes the job invalid, with the process and transfer named.
func TestTokensRefuseWorkloadsThatWaitForever(t *testing.T) {
	script := func(amount int64) Workload {
		return Workload{Links: [][2]int{{0, 1}, {1, 0}}, Interval: time.Millisecond, Initial: 5, MaxAmount: 1,
			SnapshotInterval: time.Millisecond, Script: &Script{End: time.Second, Transfers: []ScriptedTransfer{
				{At: 0, From: 0, To: 1, Amount: 3},
				{At: 0, From: 1, To: 0, Amount: amount}, // 1 holds 5, then 8, then 10
				{At: time.Millisecond, From: 0, To: 1, Amount: 2},
			}}}
	}
	g := tokenGraph(2, script(11))
	err := validate(g)
	if err == nil || !strings.Contains(err.Error(), "process 1 can never make its transfer 0 of 11 tokens: it holds 10") {
		t.Fatalf("validate: %v", err)
	}
	if ref, err := engine.ComputeReference(g, engine.ReferenceOptions{}); err == nil {
		t.Fatalf("reference of an invalid job: %+v", ref)
	}
	g = tokenGraph(2, script(10))
	ref, err := engine.ComputeReference(g, engine.ReferenceOptions{})
	if err != nil {
		t.Fatalf("with 10 tokens to send: %v", err)
	}
	if want := map[string]int64{"p-0": 10, "p-1": 0}; !maps.Equal(ref.Balances, want) || ref.TokenTotal != 10 {
		t.Errorf("reference %v (total %d), want %v", ref.Balances, ref.TokenTotal, want)
	}
}

// TestTokenScriptValidation names what is wrong with a script.
func TestTokenScriptValidation(t *testing.T) {
	base := func() Workload {
		return Workload{Links: [][2]int{{0, 1}, {1, 2}, {2, 0}}, Interval: time.Millisecond, Initial: 10, MaxAmount: 1,
			SnapshotInterval: time.Millisecond, Script: &Script{End: 10 * time.Millisecond,
				Transfers: []ScriptedTransfer{{At: time.Millisecond, From: 0, To: 1, Amount: 4}},
				Snapshots: []ScriptedSnapshot{{At: 2 * time.Millisecond, Initiator: 2}}}}
	}
	if err := validate(tokenGraph(3, base())); err != nil {
		t.Fatalf("a sound script: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(*Workload)
		want   string
	}{
		{"random transfers too", func(s *Workload) { s.Transfers = 3 }, "Transfers must be 0"},
		{"no link", func(s *Workload) { s.Script.Transfers[0].To = 2 }, "no link from 0 to 2"},
		{"nothing to send", func(s *Workload) { s.Script.Transfers[0].Amount = 0 }, "of 0 tokens"},
		{"after the end", func(s *Workload) { s.Script.Snapshots[0].At = time.Second }, "snapshot 0 at 1s is out of time order"},
		{"no such initiator", func(s *Workload) { s.Script.Snapshots[0].Initiator = 3 }, "initiator 3 outside 0..2"},
		{"out of order", func(s *Workload) {
			s.Script.Transfers = append(s.Script.Transfers, ScriptedTransfer{At: 0, From: 1, To: 2, Amount: 1})
		}, "transfer 1 at 0s is out of time order"},
	} {
		spec := base()
		c.change(&spec)
		if err := validate(tokenGraph(3, spec)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// TestNextTokenIDGrowsAndMapsToItsInitiator: each id is above the last, the least such id
// of its initiator, and has a sequence number of at least 1 (the protocol's first).
func TestNextTokenIDGrowsAndMapsToItsInitiator(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "processes")
		last := rapid.Uint64Range(0, 100).Draw(t, "last")
		o := rapid.IntRange(0, n-1).Draw(t, "initiator")
		cp := nextTokenID(last, n, o)
		id := snapshotID(&engine.Operator{Name: "p", Parallelism: n}, cp)
		switch {
		case cp <= last:
			t.Fatalf("id %d after %d", cp, last)
		case id.Origin != snapshotOrigin(engine.TaskID("p", o)) || id.Seq < 1:
			t.Fatalf("id %d is %s, want a snapshot of initiator %d", cp, id, o)
		case cp-uint64(n) > last && cp-uint64(n) >= uint64(n):
			t.Fatalf("id %d skips %d", cp, cp-uint64(n))
		}
	})
}
