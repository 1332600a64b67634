package simenv

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
)

// TestSendObserverSeesLostSends: the send observer sees what live processes send, by name,
// including a message to a process that is down, which never reaches a link (so the
// kernel's observer cannot see it); a dead process sends nothing, and nothing is seen.
func TestSendObserverSeesLostSends(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 200, 2000, engine.TwoPhaseCommit))
	job, err := NewJob(3, cfg, DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	victim := cfg.Graph.Tasks()[0]
	var toVictimWhileDown, fromVictimWhileDown, seen int
	job.Env.SetSendObserver(func(from, to string, msg any) {
		seen++
		down := !job.Env.endpoints[victim].current.Alive()
		if to == victim && down {
			toVictimWhileDown++
		}
		if from == victim && down {
			fromVictimWhileDown++
		}
		if engine.Classify(msg) == "" {
			t.Errorf("%s -> %s: a message the engine does not send: %T", from, to, msg)
		}
	})
	job.Kernel.At(sim.Time(40*time.Millisecond), func() { _ = job.Runtime.CrashTask(victim) })
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	job.RunUntilFinished(5 * time.Second)
	if seen == 0 || toVictimWhileDown == 0 {
		t.Errorf("%d sends seen, %d of them to %s while it was down: want both above 0", seen, toVictimWhileDown, victim)
	}
	if fromVictimWhileDown != 0 {
		t.Errorf("%d sends seen from %s while it was down", fromVictimWhileDown, victim)
	}
}
