package simenv

import (
	"fmt"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
)

// TestAliveFlagMatchesHost checks the shortcut behind proc.Alive, which reads one flag: a
// process whose flag says alive is on a host that is up, in the host incarnation it was
// spawned on. The job runs through crashes of every host, a task failure and a broken link,
// and the check runs at every kernel event, for every incarnation simenv still knows.
func TestAliveFlagMatchesHost(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 2000, 2000, engine.TwoPhaseCommit))
	job, err := NewJob(7, cfg, DefaultConfig(2), nil, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	checked, dead := 0, 0
	check := func(p *proc, where string) {
		checked++
		if !p.Alive() {
			dead++
			return
		}
		if !p.host.h.Up() {
			t.Fatalf("%s: %s is alive on host %s, which is down", where, p.name, p.host.h.Name())
		}
		if p.host.h.Incarnation() != p.hostIncarnation {
			t.Fatalf("%s: %s of host incarnation %d is alive on incarnation %d", where, p.name, p.hostIncarnation, p.host.h.Incarnation())
		}
	}
	var known []*proc // every incarnation ever seen, so that dead ones stay checked
	seen := make(map[*proc]bool)
	job.Env.SetObserver(func(ev sim.Event) {
		where := fmt.Sprintf("%v %v", ev.At, ev.Kind)
		for _, h := range job.Env.hosts {
			for _, p := range h.procs {
				if !seen[p] {
					seen[p] = true
					known = append(known, p)
				}
			}
		}
		for _, p := range known {
			check(p, where)
		}
	})
	for i, h := range job.Env.Hosts() {
		at := sim.Time(time.Duration(50+40*i) * time.Millisecond)
		job.Kernel.At(at, func() {
			if h.Crash() {
				job.Kernel.After(15*time.Millisecond, h.Start)
			}
		})
	}
	job.Kernel.At(sim.Time(300*time.Millisecond), func() { _ = job.Runtime.CrashTask(cfg.Graph.Tasks()[1]) })
	link := job.Env.Kernel().Links()[1]
	job.Kernel.At(sim.Time(350*time.Millisecond), link.Break)
	job.Kernel.At(sim.Time(360*time.Millisecond), link.Repair)
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	job.RunUntilFinished(5 * time.Second)
	t.Logf("%d checks, %d dead, finished at %v", checked, dead, job.Kernel.Now())
	if dead == 0 || checked == dead {
		t.Fatalf("%d checks, %d of a dead incarnation: the run did not exercise both", checked, dead)
	}
}
