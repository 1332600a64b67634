package scenarios

import (
	"errors"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// BenchmarkDefaultSweep runs what `simrun` with no command sweeps, every built-in scenario
// this build can run over its own seeds, one run after another, each judged by its
// checkers, the runs lending each other their events' array as a sweep's worker does: the
// cost of a default sweep on one core, without simrun's table. Its wall time wanders with
// the machine's load; README "How fast" counts its instructions instead.
func BenchmarkDefaultSweep(b *testing.B) {
	runs := 0
	var events []trace.Event
	for b.Loop() {
		runs = 0
		for _, s := range Builtins() {
			for seed := s.Seeds.First; seed <= s.Seeds.Last; seed++ {
				_, _, err := Execute(NewSimulation(), s, seed, RunOptions{Events: &events})
				if errors.Is(err, ErrUnsupported) {
					break // simrun's sweep leaves it out too
				}
				if err != nil {
					b.Fatalf("%s seed %d: %v", s.Name, seed, err)
				}
				runs++
			}
		}
	}
	b.ReportMetric(float64(runs*b.N)/b.Elapsed().Seconds(), "seeds/s")
	b.ReportMetric(float64(runs), "runs")
}
