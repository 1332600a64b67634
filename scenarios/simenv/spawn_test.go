package simenv

import (
	"errors"
	"testing"
	"time"

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

// TestTimerInThePastIsABrokenInvariant: an engine that sets a timer with a negative delay
// breaks its side of the Env; the harness judges that as a broken invariant.
func TestTimerInThePastIsABrokenInvariant(t *testing.T) {
	e := New(sim.New(sim.Config{Seed: 1}), trace.NewRecorder(nil, trace.Header{}), DefaultConfig(1), []string{"coordinator"})
	p, err := e.Spawn("coordinator", quietProcess{})
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []func(){
		func() { p.After(-time.Millisecond, func() {}) },
		func() { p.NewTimer(func() {}).Reset(-time.Millisecond) },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				var broken *engine.InvariantError
				if !errors.As(err, &broken) {
					t.Errorf("recovered %v, want an *engine.InvariantError", err)
				}
			}()
			set()
		}()
	}
}
