package explore

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// TestExploreOnTheSimulation runs a short guided exploration on the real simulation twice,
// on one worker and on two: every run passes (a correct engine passes every drawn
// scenario, mutants included), the runs reach features, and both explore the same inputs
// to the same trace hashes.
func TestExploreOnTheSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulation")
	}
	var runs []explored
	for _, workers := range []int{1, 2} {
		cfg := Config{Seed: 3, Workers: workers, Runner: scenarios.NewSimulation()}
		x := exploreRuns(cfg, Window+4, func(o *Outcome) bool {
			if o.Result.Unexpected {
				t.Errorf("run %d: %s: %s (drawn: %s)", o.Run, o.Result.Verdict, o.Result.Why, generate.Summary(o.Plan.Scenario))
			}
			return false
		})
		runs = append(runs, x)
	}
	if !slices.Equal(runs[0].keys, runs[1].keys) || !slices.Equal(runs[0].hashes, runs[1].hashes) {
		t.Error("one and two workers explored different inputs or traces")
	}
	if runs[0].stats.Features < 50 {
		t.Errorf("%d features reached, want the rules, pairs and outcomes of real runs", runs[0].stats.Features)
	}
}
