// Package simenvtest holds what the behaviour tests of engine and engine/tokens share: running
// a job on simenv to completion under scheduled faults, and the checks of the trace every run
// must pass (consistent cuts, faithful restores, growing ids). Test packages cannot import
// one another, so the helpers live here, beside the Env they run on.
package simenvtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// Fault is one scheduled fault of a test run.
type Fault struct {
	At   time.Duration
	Kind string // "task", "host", "coordinator", "resubmit" (Name: the restore mode), "rescale"
	Name string // task id or host name; for "rescale", the operator given Parallelism (claim mode)
	// Parallelism is a rescale's new parallelism.
	Parallelism int
	Down        time.Duration
	// On, if set, triggers the fault at the first event it matches instead of at a time.
	On func(trace.Event) bool
}

func (f Fault) String() string { return fmt.Sprintf("%s %s at %v", f.Kind, f.Name, f.At) }

// RunWithFaults runs cfg to completion under faults and returns the job.
func RunWithFaults(t *testing.T, cfg engine.Config, envCfg simenv.Config, seed uint64, faults []Fault, limit time.Duration) *simenv.Job {
	t.Helper()
	job, err := RunJob(cfg, envCfg, seed, faults, limit)
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

// RunJob runs cfg to completion under faults; it may be called from any goroutine.
func RunJob(cfg engine.Config, envCfg simenv.Config, seed uint64, faults []Fault, limit time.Duration) (*simenv.Job, error) {
	job, err := simenv.NewJob(seed, cfg, envCfg, trace.NewRecorder(nil, trace.Header{Seed: seed}), sim.Config{})
	if err != nil {
		return nil, err
	}
	job.Recorder.KeepEvents()
	for _, f := range faults {
		f := f
		inject := func() {
			switch f.Kind {
			case "task":
				_ = job.Runtime.CrashTask(f.Name)
			case "coordinator":
				// The test plays the cluster manager: it starts a new incarnation after
				// the down time (or at once).
				if job.Runtime.CrashCoordinator() == nil {
					job.Kernel.After(f.Down, func() { _ = job.Runtime.StartCoordinator() })
				}
			case "resubmit":
				if job.Runtime.Resubmit(restoreMode(f.Name)) == nil {
					job.Kernel.After(f.Down, func() { _ = job.Runtime.StartCoordinator() })
				}
			case "rescale":
				if job.Runtime.Rescale(protocol.RestoreClaim, f.Name, f.Parallelism) == nil {
					job.Kernel.After(f.Down, func() { _ = job.Runtime.StartCoordinator() })
				}
			case "host":
				h := HostByName(job.Env, f.Name)
				if h.Crash() {
					job.Kernel.After(f.Down, h.Start)
				}
			}
		}
		if f.On == nil {
			job.Kernel.At(sim.Time(f.At), inject)
			continue
		}
		fired := false
		job.Recorder.Watch(func(e *trace.Event) {
			if !fired && f.On(*e) {
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

// restoreMode is the restore mode called name (claim, no-claim, legacy).
func restoreMode(name string) protocol.RestoreMode {
	for m := protocol.RestoreClaim; m <= protocol.RestoreLegacy; m++ {
		if m.String() == name {
			return m
		}
	}
	panic("simenvtest: no restore mode " + name)
}

// HostByName returns the host of e named name.
func HostByName(e *simenv.Env, name string) *sim.Host {
	for _, h := range e.Hosts() {
		if h.Name() == name {
			return h
		}
	}
	panic("no host " + name)
}

// RandomFaults draws n faults from rng within span: task crashes (half of them), host
// crashes with a down time, and coordinator crashes.
func RandomFaults(rng *rand.Rand, tasks []string, hosts []string, n int, span time.Duration) []Fault {
	var fs []Fault
	for range n {
		at := time.Duration(rng.Int64N(int64(span)))
		switch rng.IntN(4) {
		case 0, 1:
			fs = append(fs, Fault{At: at, Kind: "task", Name: tasks[rng.IntN(len(tasks))]})
		case 2:
			fs = append(fs, Fault{At: at, Kind: "host", Name: hosts[rng.IntN(len(hosts))], Down: time.Duration(rng.Int64N(int64(200 * time.Millisecond)))})
		case 3:
			fs = append(fs, Fault{At: at, Kind: "coordinator"})
		}
	}
	return fs
}

// CountKind counts the events of kind in the job's trace.
func CountKind(job *simenv.Job, kind string) int {
	n := 0
	for _, e := range job.Recorder.Events() {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// ChannelStateRecords sums chan.* over all snapshots.
func ChannelStateRecords(job *simenv.Job) int64 {
	var n int64
	for _, e := range job.Recorder.Events() {
		if e.Kind != trace.KindSnapshotTaken {
			continue
		}
		for _, a := range e.Attrs {
			if len(a.Key) > 5 && a.Key[:5] == trace.AttrChanPrefix {
				n += Atoi(a.Value)
			}
		}
	}
	return n
}

// CheckCuts verifies, for every completed checkpoint, the consistent-cut equation on every
// channel S->R: recv.S at R + chan.S at R = sent.R at S, using the snapshot.taken events of
// the incarnations whose snapshots made up the checkpoint (the last one per task and id).
func CheckCuts(t *testing.T, events []trace.Event) {
	t.Helper()
	type key struct {
		task string
		cp   uint64
	}
	snaps := make(map[key]trace.Event)
	completed := make(map[uint64]bool)
	for _, e := range events {
		switch e.Kind {
		case trace.KindSnapshotTaken:
			snaps[key{e.Task, e.CP}] = e
		case trace.KindCheckpointComplete:
			completed[e.CP] = true
		}
	}
	checked := 0
	for k, e := range snaps {
		if !completed[k.cp] {
			continue
		}
		for _, a := range e.Attrs {
			if !strings.HasPrefix(a.Key, trace.AttrRecvPrefix) {
				continue
			}
			from := strings.TrimPrefix(a.Key, trace.AttrRecvPrefix)
			up, ok := snaps[key{from, k.cp}]
			if !ok {
				// A task that had fully finished before the checkpoint is carried over
				// with its final snapshot, taken for an earlier checkpoint.
				for cp := k.cp - 1; cp > 0 && !ok; cp-- {
					up, ok = snaps[key{from, cp}]
				}
			}
			if !ok {
				t.Errorf("cp %d: %s has no snapshot (upstream of %s)", k.cp, from, k.task)
				continue
			}
			chanCount, _ := e.Attr(trace.AttrChanPrefix + from)
			sent, ok := up.Attr(trace.AttrSentPrefix + k.task)
			if !ok {
				t.Errorf("cp %d: %s's snapshot has no sent.%s", k.cp, from, k.task)
				continue
			}
			// Records the sender's unaligned barrier overtook in its output queue were sent
			// before its snapshot and reach the receiver after its barrier: the sender keeps
			// them (out.<to>).
			outCount, _ := up.Attr(trace.AttrOutPrefix + k.task)
			if Atoi(a.Value)+Atoi(chanCount)+Atoi(outCount) != Atoi(sent) {
				t.Errorf("cp %d: channel %s->%s: recv %s + chan %s + out %s != sent %s", k.cp, from, k.task, a.Value, chanCount, outCount, sent)
			}
			checked++
		}
	}
	if len(completed) > 0 && checked == 0 {
		t.Errorf("no channel checked over %d completed checkpoints", len(completed))
	}
}

// CheckRestores verifies that every task.restore from a checkpoint carries the state digest
// of the snapshot it restored.
func CheckRestores(t *testing.T, events []trace.Event) {
	t.Helper()
	type key struct {
		task string
		cp   uint64
	}
	digests := make(map[key]string)
	for _, e := range events {
		switch e.Kind {
		case trace.KindSnapshotTaken:
			d, _ := e.Attr(trace.AttrState)
			digests[key{e.Task, e.CP}] = d
		case trace.KindTaskRestore:
			if e.CP == 0 {
				continue
			}
			got, _ := e.Attr(trace.AttrState)
			want, ok := digests[key{e.Task, e.CP}]
			if !ok {
				t.Errorf("seq %d: %s restored %d, for which it took no snapshot", e.Seq, e.Task, e.CP)
			}
			if got != want {
				t.Errorf("seq %d: %s restored %d with state %s, snapshot had %s", e.Seq, e.Task, e.CP, got, want)
			}
		}
	}
}

// Atoi parses a trace attribute's count (decimal digits, as the engine renders them).
func Atoi(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

// CheckIDsAndRecovery checks that triggered ids strictly increase across coordinator
// incarnations and that every recovery restores at least the latest checkpoint whose
// completion was traced.
func CheckIDsAndRecovery(t *testing.T, events []trace.Event) {
	t.Helper()
	var lastTrigger, lastComplete uint64
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			if e.CP <= lastTrigger {
				t.Errorf("seq %d: checkpoint %d triggered after %d", e.Seq, e.CP, lastTrigger)
			}
			lastTrigger = e.CP
		case trace.KindCheckpointComplete:
			lastComplete = max(lastComplete, e.CP)
		case trace.KindCoordinatorRecover, trace.KindJobFailover:
			if e.CP < lastComplete {
				t.Errorf("seq %d: %s from %d, but %d completed", e.Seq, e.Kind, e.CP, lastComplete)
			}
		}
	}
}
