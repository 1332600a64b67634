package scenarios

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// simRun is one run of a scenario on the simulator.
type simRun struct {
	plan     *Plan
	job      *simenv.Job
	rec      *trace.Recorder
	ref      checker.Reference
	target   *simTarget
	injector *faults.Injector
	measure  *measurements
	opts     RunOptions
	// waitGaveUp says why the script's wait-snapshots step gave up, if it did.
	waitGaveUp func() string
	quiet      *quietWatch
}

// MaxViolations bounds the violations a run keeps per property, simulated or live.
// Porcupine's bounds are the checker's defaults: a budget of model steps, the same on every machine, and a wall-clock
// safety net long enough never to decide a verdict on its own.
const MaxViolations = 10

// newRunWith assembles the run of p on the engine configuration and reference derived for it.
func newRunWith(p *Plan, opts RunOptions, cfg engine.Config, ref checker.Reference) (*simRun, error) {
	s := p.Scenario
	rec := trace.NewRecorder(opts.Trace, trace.Header{Scenario: s.Name, Seed: p.Seed, Build: opts.Build})
	if opts.Events != nil {
		rec.KeepEventsIn(*opts.Events)
	} else {
		rec.KeepEvents()
	}
	m := newMeasurements()
	rec.Watch(m.observe)
	limits := sim.Config{MaxTime: sim.Time(s.Limits.MaxVirtualTime), MaxEvents: uint64(s.Limits.MaxEvents),
		MaxInstantEvents: opts.maxInstantEvents}
	job, err := simenv.NewJob(p.Seed, cfg, envConfig(s, &cfg.Graph), rec, limits)
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s: %w", s.Name, err)
	}
	r := &simRun{plan: p, job: job, rec: rec, ref: ref, measure: m, opts: opts, quiet: watchQuiet(job, rec)}
	script := engineScript(&cfg)
	scheduleOutages(job, scriptOutages(s.Script), script)
	r.waitGaveUp = scheduleWaitBound(s, job, rec, script)
	if r.target, err = newSimTarget(job, s.System()); err != nil {
		return nil, err
	}
	r.injector, err = faults.NewInjector(faults.Config{
		Schedule:  p.Faults,
		Phases:    phases(s),
		Target:    r.target,
		Scheduler: simtarget.Scheduler{Kernel: job.Kernel},
		Recorder:  rec,
		Rand:      rand.New(job.Kernel.Stream("scenarios/injector")),
		OnPhase: func(ph faults.Phase) {
			if ph == faults.PhaseEnd {
				job.Kernel.Stop()
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s: %w", s.Name, err)
	}
	if opts.Watch != nil {
		rec.Watch(opts.Watch) // last, after the injector's
	}
	return r, nil
}

// phases are the run's fault, heal and liveness phases. The liveness phase runs a quarter
// longer than the bound it is judged by, so that a deadline never falls on the last event.
func phases(s *Scenario) faults.Phases {
	return faults.Phases{
		Fault:    s.Limits.FaultPhase,
		Heal:     s.Limits.HealPhase,
		Liveness: Duration(s.Limits.LivenessBound.Nanos() * 5 / 4),
	}
}

func (r *simRun) run() (*Result, error) {
	s := r.plan.Scenario
	if r.opts.Events != nil {
		defer func() { *r.opts.Events = r.rec.Events() }() // judged: the next run may have them
	}
	if err := r.job.Start(); err != nil {
		return nil, fmt.Errorf("scenarios: %s: starting the job: %w", s.Name, err)
	}
	r.injector.Start()
	stop := r.job.Kernel.Run()
	if s.Checkpoint.Incremental && stop == sim.StopStopped {
		r.job.Env.EmitStateLive() // the storage's own word on what the releases did
	}
	if err := r.rec.Flush(); err != nil {
		return nil, fmt.Errorf("scenarios: %s: %w", s.Name, err)
	}
	res := &Result{
		Scenario:             s.Name,
		Seed:                 r.plan.Seed,
		Verdict:              VerdictPass,
		TraceHash:            r.rec.Hash(),
		Events:               r.rec.Len(),
		VirtualNanos:         int64(r.job.Kernel.Now()),
		CheckpointsCompleted: r.measure.completed,
		CheckpointsAborted:   r.measure.aborted,
		Faults:               slices.Clone(r.plan.Faults.Entries),
		FaultsInjected:       r.injector.Injected(),
		FaultsUnfired:        r.injector.Unfired(),
		RecoveryNanos:        r.measure.recoveryNanos,
		CheckpointNanos:      r.measure.checkpointNanos,
	}
	if why := r.waitGaveUp(); why != "" {
		res.Verdict, res.LimitReason = VerdictLimit, why
		return res, nil
	}
	if stop == sim.StopLimitInstant {
		res.fail(PropertyTimeAdvances, []checker.Violation{r.stalled()}, 0)
		return res, nil
	}
	if stop.IsLimit() || r.injector.Phase() != faults.PhaseEnd {
		res.Verdict, res.LimitReason = VerdictLimit, "the simulation stopped ("+stop.String()+") before the liveness phase ended"
		return res, nil
	}
	r.judge(res)
	r.quiet.judge(res)
	return res, nil
}

// panicked wraps a panic of the run with where the run had got to (see RunPanic).
func (r *simRun) panicked(value any) *RunPanic {
	if rp, ok := value.(*RunPanic); ok {
		return rp
	}
	p := &RunPanic{Value: value, Stack: debug.Stack(), Events: r.rec.Len(), VirtualNanos: int64(r.job.Kernel.Now())}
	// The events that led to the panic still reach the trace file, where a reader looks
	// for them; a writer that panics again (the panic's own cause) is left as it is.
	func() {
		defer func() { _ = recover() }()
		_ = r.rec.Flush()
	}()
	if pp, ok := value.(*checker.PropertyPanic); ok {
		p.Stack = pp.Stack // where the property panicked, on the goroutine Check ran it on
	}
	if events := r.rec.Events(); len(events) > 0 {
		p.Last, p.Recorded = events[len(events)-1], true
	}
	return p
}

// judge runs the checkers over the trace and records their verdict in res. A property the
// checkers cannot decide (porcupine ran out of its budget, evidence missing from the trace)
// makes the verdict unknown, unless another failed: the run was not fully judged, which is
// never a pass. A run limit is not involved: that is the verdict limit, decided in run.
func (r *simRun) judge(res *Result) {
	report := checker.Check(r.rec.Events(), r.ref, checker.Options{Properties: r.plan.Properties, MaxViolations: MaxViolations,
		StoreHistoryPicture: r.opts.StoreHistoryPicture, SinkVisibilityPicture: r.opts.SinkVisibilityPicture})
	res.Record(report)
}
