package generate

import (
	"flag"
	"os"
	"runtime/debug"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// generatedSeeds is how many seeds BenchmarkGeneratedSweep runs per iteration. The default
// keeps one iteration near a second of CPU; a profile over more seeds is steadier.
var generatedSeeds = flag.Int("generated-seeds", 200, "seeds 1..N that BenchmarkGeneratedSweep runs per iteration")

// BenchmarkGeneratedSweep runs what `simrun sweep -generated -seeds 1-N` runs on one worker:
// each seed's drawn scenario on the simulator, judged by every checker, the runs lending
// each other their events' array as a sweep's worker does. Wall time wanders with the
// machine's load; README "How fast" counts its instructions as well. The seeds' scenarios
// are drawn inside the loop, as a sweep draws them.
func BenchmarkGeneratedSweep(b *testing.B) {
	// Collect garbage as simrun does (cmd/simrun's main), unless GOGC says otherwise.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	var events []trace.Event
	n := uint64(*generatedSeeds)
	for b.Loop() {
		for seed := uint64(1); seed <= n; seed++ {
			_, res, err := scenarios.Execute(scenarios.NewSimulation(), Seed(seed), seed, scenarios.RunOptions{Events: &events})
			if err != nil {
				b.Fatalf("seed %d: %v", seed, err)
			}
			if res.Unexpected {
				b.Fatalf("seed %d: unexpected %s", seed, res.Verdict)
			}
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
}
