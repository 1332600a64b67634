package simenv

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

type quietProcess struct{}

func (quietProcess) Receive(string, any) {}
func (quietProcess) Crashed()            {}

// TestLeaderCheckedWritesOfAReplacedIncarnationNeverLand: a coordinator's metadata write
// still in flight when a newer incarnation is spawned is refused as it reaches the store;
// one whose writer died without a successor yet lands, and so does a state upload of a
// replaced incarnation, which no store checks.
func TestLeaderCheckedWritesOfAReplacedIncarnationNeverLand(t *testing.T) {
	k := sim.New(sim.Config{Seed: 1})
	cfg := DefaultConfig(1)
	cfg.Storage = sim.StoreConfig{Latency: 10 * time.Millisecond}
	e := New(k, trace.NewRecorder(nil, trace.Header{}), cfg, []string{"coordinator"})
	old, err := e.Spawn("coordinator", quietProcess{})
	if err != nil {
		t.Fatal(err)
	}
	old.Write("meta/completed.0", []byte("old"), func(error) {})
	old.Write("state/1/a-0", []byte("old"), func(error) {})
	k.At(sim.Time(time.Millisecond), func() {
		old.Kill()
		if _, err := e.Spawn("coordinator", quietProcess{}); err != nil {
			t.Error(err)
		}
	})
	k.Run()
	if v, err := e.Storage().Peek("meta/completed.0"); err == nil {
		t.Errorf("a replaced coordinator's metadata write landed: %q", v)
	}
	if v, err := e.Storage().Peek("state/1/a-0"); err != nil || string(v) != "old" {
		t.Errorf("a replaced incarnation's state upload: %q, %v; want it landed", v, err)
	}

	dead, _ := e.Spawn("coordinator", quietProcess{})
	dead.Write("meta/counter.0", []byte("last words"), func(error) {})
	dead.Kill()
	k.Run()
	if v, err := e.Storage().Peek("meta/counter.0"); err != nil || string(v) != "last words" {
		t.Errorf("a dead coordinator with no successor yet: %q, %v; want its write landed", v, err)
	}
}
