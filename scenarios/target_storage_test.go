package scenarios

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// TestSlowWritesNarrowedByKeyAndProbability: a slow store with a key slows only the writes
// under it, each with the probability given; without one, every write, and reads never.
func TestSlowWritesNarrowedByKeyAndProbability(t *testing.T) {
	h := &storageHalf{rand: rand.New(rand.NewPCG(1, 2))}
	h.add(storageEffect{id: 1, kind: faults.StorageSlow, store: StoreState, prefix: "7/", delay: time.Millisecond, probability: 0.5})
	slowed := 0
	for range 1000 {
		if h.decide(sim.StoreOp{Kind: sim.OpPut, Key: "state/7/map-0"}).ExtraLatency > 0 {
			slowed++
		}
		if d := h.decide(sim.StoreOp{Kind: sim.OpPut, Key: "state/8/map-0"}); d.ExtraLatency != 0 {
			t.Fatalf("a write outside the key was slowed: %+v", d)
		}
	}
	if slowed < 400 || slowed > 600 {
		t.Errorf("%d of 1000 writes slowed at probability 0.5", slowed)
	}
	h.heal()
	h.add(storageEffect{id: 2, kind: faults.StorageSlow, delay: time.Millisecond})
	if d := h.decide(sim.StoreOp{Kind: sim.OpPut, Key: "meta/completed.0"}); d.ExtraLatency != time.Millisecond {
		t.Errorf("without key or probability a write took %v more, want 1ms", d.ExtraLatency)
	}
	if d := h.decide(sim.StoreOp{Kind: sim.OpGet, Key: "meta/completed.0"}); d.ExtraLatency != 0 {
		t.Errorf("a read was slowed: %+v", d)
	}
}
