package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// fault is one scheduled fault of a test run.
type fault struct {
	at   time.Duration
	kind string // "task", "host", "coordinator"
	name string // task id or host name
	down time.Duration
	// on, if set, triggers the fault at the first event it matches instead of at a time.
	on func(trace.Event) bool
}

func (f fault) String() string { return fmt.Sprintf("%s %s at %v", f.kind, f.name, f.at) }

// runWithFaults runs cfg to completion under faults and returns the job.
func runWithFaults(t *testing.T, cfg engine.Config, envCfg simenv.Config, seed uint64, faults []fault, limit time.Duration) *simenv.Job {
	t.Helper()
	job, err := runJob(cfg, envCfg, seed, faults, limit)
	if err != nil {
		if job != nil {
			evs := job.Recorder.Events()
			for _, e := range evs[max(0, len(evs)-30):] {
				t.Log(e.String())
			}
		}
		t.Fatal(err)
	}
	return job
}

// runJob runs cfg to completion under faults; it may be called from any goroutine.
func runJob(cfg engine.Config, envCfg simenv.Config, seed uint64, faults []fault, limit time.Duration) (*simenv.Job, error) {
	job, err := simenv.NewJob(seed, cfg, envCfg, trace.NewRecorder(nil, trace.Header{Seed: seed}), sim.Config{})
	if err != nil {
		return nil, err
	}
	job.Recorder.KeepEvents()
	for _, f := range faults {
		f := f
		inject := func() {
			switch f.kind {
			case "task":
				_ = job.Runtime.CrashTask(f.name)
			case "coordinator":
				// The test plays the cluster manager: it starts a new incarnation after
				// the down time (or at once).
				if job.Runtime.CrashCoordinator() == nil {
					job.Kernel.After(f.down, func() { _ = job.Runtime.StartCoordinator() })
				}
			case "host":
				h := hostByName(job.Env, f.name)
				if h.Crash() {
					job.Kernel.After(f.down, h.Start)
				}
			}
		}
		if f.on == nil {
			job.Kernel.At(sim.Time(f.at), inject)
			continue
		}
		fired := false
		job.Recorder.Watch(func(e trace.Event) {
			if !fired && f.on(e) {
				fired = true
				inject()
			}
		})
	}
	if err := job.Start(); err != nil {
		return nil, err
	}
	if r := job.RunUntilFinished(limit); r != sim.StopStopped {
		return job, fmt.Errorf("seed %d faults %v: run ended with %v at %v, not finished", seed, faults, r, job.Kernel.Now())
	}
	return job, nil
}

func hostByName(e *simenv.Env, name string) *sim.Host {
	for _, h := range e.Hosts() {
		if h.Name() == name {
			return h
		}
	}
	panic("no host " + name)
}

// diffOutput compares committed output with the reference: lost and duplicated RIDs and
// wrong values.
func diffOutput(want, got map[string][]int64) (lost, extra, wrong []string) {
	for rid, w := range want {
		g := got[rid]
		switch {
		case len(g) < len(w):
			lost = append(lost, rid)
		case len(g) > len(w):
			extra = append(extra, rid)
		case !slices.Equal(g, w):
			wrong = append(wrong, rid)
		}
	}
	for rid := range got {
		if _, ok := want[rid]; !ok {
			extra = append(extra, rid)
		}
	}
	slices.Sort(lost)
	slices.Sort(extra)
	slices.Sort(wrong)
	return lost, extra, wrong
}

func randomFaults(rng *rand.Rand, tasks []string, hosts []string, n int, span time.Duration) []fault {
	var fs []fault
	for range n {
		at := time.Duration(rng.Int64N(int64(span)))
		switch rng.IntN(4) {
		case 0, 1:
			fs = append(fs, fault{at: at, kind: "task", name: tasks[rng.IntN(len(tasks))]})
		case 2:
			fs = append(fs, fault{at: at, kind: "host", name: hosts[rng.IntN(len(hosts))], down: time.Duration(rng.Int64N(int64(200 * time.Millisecond)))})
		case 3:
			fs = append(fs, fault{at: at, kind: "coordinator"})
		}
	}
	return fs
}

func TestExactlyOnceUnderCrashes(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 400, 2000, engine.TwoPhaseCommit))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := ref.OutputValues()
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		faults := randomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 300*time.Millisecond)
		job := runWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
		lost, extra, wrong := diffOutput(want, committed(job.Runtime))
		if len(lost)+len(extra)+len(wrong) > 0 {
			t.Errorf("seed %d faults %v: lost %d %v, extra %d %v, wrong %d %v", seed, faults,
				len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
		}
		checkCuts(t, job.Recorder.Events())
		checkRestores(t, job.Recorder.Events())
		t.Logf("seed %d: %d attempts, %d events, virtual %v", seed, job.Runtime.Attempt(), job.Recorder.Len(), job.Kernel.Now())
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

func countKind(job *simenv.Job, kind string) int {
	n := 0
	for _, e := range job.Recorder.Events() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func TestAppendSinkDuplicatesUnderCrashes(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(4, 400, 2000, engine.Append))
	ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := ref.OutputValues()
	hosts := []string{"jm", "tm-0", "tm-1", "tm-2", "tm-3"}
	dupRuns := 0
	for seed := uint64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		faults := randomFaults(rng, cfg.Graph.Tasks(), hosts, 3, 300*time.Millisecond)
		job := runWithFaults(t, cfg, simenv.DefaultConfig(4), seed, faults, 60*time.Second)
		lost, extra, _ := diffOutput(want, committed(job.Runtime))
		if len(lost) > 0 {
			t.Errorf("seed %d: at-least-once sink lost %d records %v", seed, len(lost), head(lost))
		}
		if len(extra) > 0 {
			dupRuns++
		}
		t.Logf("seed %d: %d failovers, %d duplicated rids", seed, countKind(job, trace.KindJobFailover), len(extra))
	}
	if dupRuns == 0 {
		t.Errorf("no run of the append sink showed duplicates: the negative control does not bite")
	}
}

func simConfig() sim.Config            { return sim.Config{} }
func simTime(d time.Duration) sim.Time { return sim.Time(d) }
