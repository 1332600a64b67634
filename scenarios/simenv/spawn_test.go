package simenv

import (
	"errors"
	"testing"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// TestSpawnOfAnUnnamedProcessIsABrokenInvariant: a process the engine did not name among
// its processes has no host; spawning one is the engine's broken invariant, which the
// harness judges as such, not a bare panic.
func TestSpawnOfAnUnnamedProcessIsABrokenInvariant(t *testing.T) {
	e := New(sim.New(sim.Config{Seed: 1}), trace.NewRecorder(nil, trace.Header{}), DefaultConfig(1), []string{"coordinator"})
	defer func() {
		err, _ := recover().(error)
		var broken *engine.InvariantError
		if !errors.As(err, &broken) {
			t.Fatalf("recovered %v, want an *engine.InvariantError", err)
		}
	}()
	_, _ = e.Spawn("reader-7", quietProcess{})
}
