package simenv

import (
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// Job is one engine job on one simulated world: what a scenario run assembles.
type Job struct {
	Kernel   *sim.Kernel
	Recorder *trace.Recorder
	Env      *Env
	Runtime  *engine.Runtime
}

// NewJob builds a kernel for seed, an Env with envCfg, and the job cfg on it, recording
// into rec (a hashing-only recorder if nil). The job is not started.
func NewJob(seed uint64, cfg engine.Config, envCfg Config, rec *trace.Recorder, limits sim.Config) (*Job, error) {
	if rec == nil {
		rec = trace.NewRecorder(nil, trace.Header{Seed: seed})
	}
	limits.Seed = seed
	k := sim.New(limits)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	env := New(k, rec, envCfg, engine.ProcessNames(&cfg))
	rt, err := engine.New(env, cfg)
	if err != nil {
		return nil, err
	}
	env.Attach(rt)
	return &Job{Kernel: k, Recorder: rec, Env: env, Runtime: rt}, nil
}

// Start starts the job.
func (j *Job) Start() error { return j.Runtime.Start() }

// RunUntilFinished runs until the job has finished (bounded jobs), or until virtual time
// limit, whichever is first. It returns the kernel's stop reason; StopStopped means the
// job finished.
func (j *Job) RunUntilFinished(limit time.Duration) sim.StopReason {
	step := 10 * time.Millisecond
	end := j.Kernel.Now().Add(limit)
	for {
		if j.Runtime.Finished() {
			return sim.StopStopped
		}
		next := j.Kernel.Now().Add(step)
		if next > end {
			next = end
		}
		r := j.Kernel.RunUntil(next)
		if r.IsLimit() || r == sim.StopIdle && j.Kernel.Now() >= end {
			return r
		}
		if j.Kernel.Now() >= end {
			if j.Runtime.Finished() {
				return sim.StopStopped
			}
			return sim.StopReached
		}
	}
}
