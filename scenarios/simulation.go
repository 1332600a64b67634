package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/faults"
)

// Simulation is the real Runner: it assembles the engine on the simulator (scenarios/simenv),
// injects the plan's faults through the faults package and judges the trace with the
// checkers.
type Simulation struct{}

// NewSimulation returns the Runner simrun and the property suite use.
func NewSimulation() *Simulation { return &Simulation{} }

// Plan derives the fault schedule (the scenario's own, or what its swarm draws for the seed
// from the scenario's system) and the properties to check.
func (*Simulation) Plan(s *Scenario, seed uint64) (*Plan, error) {
	return plan(s, seed)
}

func plan(s *Scenario, seed uint64) (*Plan, error) {
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

// errNotWired is returned while the engine cannot yet run on the simulator.
var errNotWired = errors.New("scenarios: running a scenario needs the engine on the simulator, which this build does not have yet")

// Run executes the plan.
func (*Simulation) Run(p *Plan, opts RunOptions) (*Result, error) {
	return nil, errNotWired
}
