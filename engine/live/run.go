package live

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/trace"
)

// Options configure a live run (Run).
type Options struct {
	// Seed seeds the engine's random streams and the choice of the task each crash hits.
	// It does not make the run replayable: the goroutines' interleaving decides the rest.
	Seed uint64
	// For is how long the run may last, on the wall clock. A bounded job that finishes
	// earlier ends the run then.
	For time.Duration
	// CrashEvery is the pause between two task crashes during the fault phase; 0 crashes
	// nothing, and the run then has no phases.
	CrashEvery time.Duration
	// FaultPhase is how long crashes go on, from the start; 0 means half of For. It must be
	// shorter than For, so that the run has a liveness phase.
	FaultPhase time.Duration
	// StorageLatency is Config.StorageLatency.
	StorageLatency time.Duration
}

// Crash is one task crash a run injected.
type Crash struct {
	Task  string
	Nanos int64 // when, in trace time
}

// Outcome is what a live run did, besides its trace.
type Outcome struct {
	// Finished says the job finished (bounded jobs) before For ran out.
	Finished bool
	Crashes  []Crash
	// LivenessStartNanos is when progress became owed: 0 for a calm run, the heal of the
	// fault phase for one that crashed tasks. EndNanos is when the run stopped.
	LivenessStartNanos int64
	EndNanos           int64
	// Panic is the panic of an engine call that ended the run, nil if none did.
	Panic *Panic
}

// pollInterval is how often Run asks the engine whether a bounded job has finished. The
// engine says so through no event of its own (the last task may exit on a store reply), so
// Run asks; a finished job costs at most this much longer a run.
const pollInterval = 5 * time.Millisecond

// crashStream names the random stream that picks the tasks to crash, apart from the
// engine's streams.
const crashStream = "live/crashes"

// Run runs job cfg live, recording into rec, until it finishes or opts.For has passed (see
// the package comment), and stops every process. It returns an error only if the job could
// not start (a configuration the engine refuses, bad options); a panic inside the engine
// ends the run and is in Outcome.Panic. The caller flushes rec and judges its events.
func Run(cfg engine.Config, rec *trace.Recorder, opts Options) (Outcome, error) {
	if err := opts.validate(); err != nil {
		return Outcome{}, err
	}
	env := New(rec, Config{Seed: opts.Seed, StorageLatency: opts.StorageLatency})
	r := &run{env: env, opts: opts, crashing: opts.CrashEvery > 0}
	var err error
	env.Do(func() {
		if r.rt, err = engine.New(env, cfg); err != nil {
			return
		}
		if r.crashing {
			env.Emit(phaseEvent("fault"))
		}
		err = r.rt.Start()
	})
	if err != nil {
		env.Stop()
		return Outcome{}, fmt.Errorf("live: starting the job: %w", err)
	}
	if p := env.Failure(); p != nil { // the engine panicked while starting
		env.Stop()
		return Outcome{Panic: p, EndNanos: p.Nanos}, nil
	}
	return r.loop(), nil
}

func (o Options) validate() error {
	switch {
	case o.For <= 0:
		return fmt.Errorf("live: a run needs a positive duration, got %s", o.For)
	case o.CrashEvery < 0 || o.FaultPhase < 0 || o.StorageLatency < 0:
		return errors.New("live: negative durations in options")
	case o.CrashEvery > 0 && o.FaultPhase >= o.For:
		return fmt.Errorf("live: the fault phase (%s) must end before the run does (%s)", o.FaultPhase, o.For)
	}
	return nil
}

// run is one Run in progress.
type run struct {
	env      *Env
	rt       *engine.Runtime
	opts     Options
	crashing bool // the run crashes tasks, so it has phases
	// faultEndNanos is when the fault phase ends: no crash at or after it, even if the
	// crash ticker and the heal go off together.
	faultEndNanos int64
	healed        bool
	out           Outcome
}

// loop waits for the run's moments (a crash, the heal, the end, a finished job, a panic)
// and acts on each under the engine lock.
func (r *run) loop() Outcome {
	deadline := time.NewTimer(r.opts.For)
	defer deadline.Stop()
	poll := time.NewTicker(pollInterval)
	defer poll.Stop()
	var crashes <-chan time.Time
	var heal <-chan time.Time
	if r.crashing {
		tick := time.NewTicker(r.opts.CrashEvery)
		defer tick.Stop()
		crashes = tick.C
		faultPhase := r.opts.FaultPhase
		if faultPhase == 0 {
			faultPhase = r.opts.For / 2
		}
		r.faultEndNanos = faultPhase.Nanoseconds()
		healAt := time.NewTimer(faultPhase)
		defer healAt.Stop()
		heal = healAt.C
	}
	pick := rand.New(rand.NewPCG(r.opts.Seed, seedOf(crashStream)))
	tasks := r.rt.Tasks()
	for {
		var stop bool
		select {
		case <-r.env.Failed():
			stop = true
		case <-deadline.C:
			stop = true
		case <-heal:
			crashes, heal = nil, nil
			r.env.Do(r.heal)
		case <-crashes:
			r.env.Do(func() { r.crash(tasks, pick) })
		case <-poll.C:
			r.env.Do(func() { stop = r.rt.Finished() })
		}
		if stop || r.env.Failure() != nil {
			return r.stop()
		}
	}
}

// heal ends the fault phase: phase=heal, and at once phase=liveness (the crashes' effects
// need no undoing, so the heal phase is empty).
func (r *run) heal() {
	if r.healed {
		return
	}
	r.healed = true
	r.env.Emit(phaseEvent("heal"))
	r.env.Emit(phaseEvent("liveness"))
	r.out.LivenessStartNanos = r.env.Now()
}

// crash crashes a task picked at random among those alive, if any is.
func (r *run) crash(tasks []string, pick *rand.Rand) {
	if r.healed || r.env.Now() >= r.faultEndNanos {
		return
	}
	var alive []string
	for _, t := range tasks {
		if r.env.Alive(t) {
			alive = append(alive, t)
		}
	}
	if len(alive) == 0 {
		return // every task is down, between a crash and the restart
	}
	task := alive[pick.IntN(len(alive))]
	if r.env.CrashTask(task, len(r.out.Crashes)) {
		r.out.Crashes = append(r.out.Crashes, Crash{Task: task, Nanos: r.env.Now()})
	}
}

// stop ends the run: it closes the phases (heal if the fault phase was still on, then end),
// notes whether the job finished, and stops every process.
func (r *run) stop() Outcome {
	err := r.env.Do(func() {
		r.out.Finished = r.rt.Finished()
		if r.crashing {
			r.heal()
			r.env.Emit(phaseEvent("end"))
		}
		r.out.EndNanos = r.env.Now()
	})
	r.env.Stop()
	if err != nil || r.env.Failure() != nil {
		r.out.Panic = r.env.Failure()
		r.out.EndNanos = max(r.out.EndNanos, r.out.LivenessStartNanos)
		if r.out.Panic != nil {
			r.out.EndNanos = r.out.Panic.Nanos
		}
	}
	return r.out
}

func seedOf(name string) uint64 {
	var h uint64 = 14695981039346656037 // FNV-1a
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return h
}
