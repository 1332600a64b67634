package generate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// Congestion holds data channels, all of them inputs of one task or any, each for half to
// twice a checkpoint's timeout unless the fault phase ends first.
func TestCongestionHoldsChannelsForATimeout(t *testing.T) {
	sys := faults.System{Tasks: []string{"a", "b", "c", "d"},
		Channels: []faults.Link{{From: "a", To: "c"}, {From: "b", To: "c"}, {From: "a", To: "d"}, {From: "c", To: "d"}}}
	s := &scenarios.Scenario{Limits: scenarios.Limits{FaultPhase: scenarios.Seconds(2)}, Checkpoint: scenarios.Checkpoint{Timeout: scenarios.Millis(300)}}
	intoOne := 0
	for seed := range uint64(200) {
		g := &generator{r: rand.New(rand.NewPCG(seed, 0))}
		entries := g.congestion(s, sys)
		if n := len(entries); n < 2 || n > 6 {
			t.Fatalf("seed %d: %d faults, want 2 to 6", seed, n)
		}
		targets := map[string]bool{}
		for _, e := range entries {
			f := e.Fault
			if f.Kind != faults.NetClog && f.Kind != faults.NetDelay {
				t.Fatalf("seed %d: a %s", seed, f.Kind)
			}
			if !slices.Contains(sys.Channels, faults.Link{From: f.From, To: f.To}) {
				t.Fatalf("seed %d: %s -> %s is no data channel", seed, f.From, f.To)
			}
			end := e.Trigger.At + f.Window
			long := f.Window >= scenarios.Millis(150) && f.Window <= scenarios.Millis(600)
			if end > s.Limits.FaultPhase || !long && end != s.Limits.FaultPhase {
				t.Fatalf("seed %d: a window of %v from %v", seed, f.Window, e.Trigger.At)
			}
			targets[f.To] = true
		}
		if len(targets) == 1 {
			intoOne++
		}
	}
	if intoOne < 50 || intoOne > 190 {
		t.Errorf("%d of 200 draws held the inputs of one task, want about half or more", intoOne)
	}
}
