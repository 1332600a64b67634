package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
)

// Simulation is the real Runner: it assembles the engine on the simulator (scenarios/simenv),
// injects the plan's faults through the faults package and judges the trace with the
// checkers.
type Simulation struct{}

// NewSimulation returns the Runner simrun and the property suite use.
func NewSimulation() *Simulation { return &Simulation{} }

// Plan derives the plan (see PlanFor) and checks that this build can run it: the job must be
// one the engine accepts, with a reference model, and the faults ones the simulation can
// inject. The plan keeps the engine configuration and the reference it derived to check
// that, so that Run derives neither again.
func (*Simulation) Plan(s *Scenario, seed uint64) (p *Plan, err error) {
	defer func() {
		// A panic while the job is assembled (the engine's configuration, its reference
		// model) is this build's defect, not the caller's: an error that says so, which a
		// sweep of ckptsim's own jobs judges (job-accepted), rather than a crash.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("scenarios: assembling the job panicked: %v", r)
		}
	}()
	p, err = PlanFor(s, seed)
	if err != nil {
		return nil, err
	}
	cfg, ref, err := runnable(p)
	if err != nil {
		return nil, err
	}
	p.derived = &derivation{scenario: s, cfg: cfg, ref: ref}
	return p, nil
}

// derivation is what Simulation.Plan derived from a plan's scenario: the engine
// configuration and the reference model of its runs.
type derivation struct {
	scenario *Scenario // the scenario they were derived from
	cfg      engine.Config
	ref      checker.Reference
}

// PlanFor derives what seed decides for s before a run: the fault schedule (the scenario's
// own, or what its swarm draws for the seed from the scenario's system) and the properties
// to check. It is a pure function of s and seed.
func PlanFor(s *Scenario, seed uint64) (*Plan, error) {
	if err := completed(s); err != nil {
		return nil, err
	}
	p := &Plan{Scenario: s, Seed: seed, Properties: PropertiesToCheck(s)}
	if s.Swarm == nil {
		p.Faults = faults.Schedule{Entries: slices.Clone(s.Faults)}
		return p, nil
	}
	sys := s.System()
	drawn, schedule, err := faults.SwarmSeed(seed, sys, s.Budget(sys))
	if err != nil {
		return nil, fmt.Errorf("scenarios: %s: drawing the swarm: %w", s.Name, err)
	}
	p.Faults = schedule
	p.Options = append(p.Options, Option{Name: "swarm", Value: strings.TrimPrefix(drawn.String(), "swarm: ")})
	return p, nil
}

// ErrUnsupported marks a scenario that is valid but that this build cannot run yet. A sweep
// of the catalogue skips such scenarios (and says so) rather than stopping.
var ErrUnsupported = errors.New("not supported by this build")

// runnable reports why this build cannot run p, if it cannot; if it can, it returns the
// engine configuration of the run and the reference model that judges it, so that a run
// derives each once.
func runnable(p *Plan) (engine.Config, checker.Reference, error) {
	s := p.Scenario
	if s.Mode != ModeChandyLamport && s.Graph().HasCycle() {
		return engine.Config{}, checker.Reference{}, fmt.Errorf("scenarios: %s: a dataflow job with a cycle has output that depends on timing, so judging it is %w", s.Name, ErrUnsupported)
	}
	cfg, err := engineConfig(s)
	if err != nil {
		return engine.Config{}, checker.Reference{}, err
	}
	ref, err := cachedReference(s, &cfg)
	return cfg, ref, err
}

// Run assembles the job on the simulator, injects the plan's faults through the phases,
// and judges the trace with the checkers.
func (*Simulation) Run(p *Plan, opts RunOptions) (*Result, error) {
	// Dropped once taken: a plan outlives its run in a sweep's window and an exploration's
	// corpus, and the reference holds the job's whole expected output.
	d := p.derived
	p.derived = nil
	if d == nil || d.scenario != p.Scenario { // a plan made otherwise, or given another scenario since
		cfg, ref, err := runnable(p)
		if err != nil {
			return nil, err
		}
		d = &derivation{scenario: p.Scenario, cfg: cfg, ref: ref}
	}
	r, err := newRunWith(p, opts, d.cfg, d.ref)
	if err != nil {
		return nil, err
	}
	return r.judged()
}

// judged runs r and judges it, turning a panic into a RunPanic that says where the run had
// got to.
func (r *simRun) judged() (*Result, error) {
	defer func() {
		if recovered := recover(); recovered != nil {
			panic(r.panicked(recovered))
		}
	}()
	return r.run()
}
