package checker

import (
	"math/rand/v2"
	"testing"
)

func TestGeneratedRunPasses(t *testing.T) {
	for seed := range uint64(20) {
		events, ref := generate(rand.New(rand.NewPCG(seed, 1)), smallRun)
		report := Check(events, ref, Options{})
		if report.Verdict() != VerdictPass {
			t.Fatalf("seed %d (%d events):\n%s", seed, len(events), report)
		}
	}
}
