package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
)

// The catalogue: named scenarios that ship with ckptsim. Together they cover every mode, the
// topology shapes (one with parallelism 32, some with cycles), the workloads, the sinks and
// the fault styles (none, swarm, event-targeted). Each states its expected verdict; the
// negative controls are built to fail, each with a named property, so that a checker that
// stops catching its bug shows up as an unexpected pass.

// Builtins returns the built-in scenarios in catalogue order, completed with defaults. Each
// call returns fresh copies that the caller may change.
func Builtins() []*Scenario {
	all := slices.Concat(positiveScenarios(), incrementalScenarios(), stateOwnershipScenarios(), lifecycleScenarios(), rescaleScenarios(), splitScenarios(), regimeScenarios(), negativeControls())
	for _, s := range all {
		requireFaultsToFire(s)
		if err := s.Complete("builtin " + s.Name); err != nil {
			panic(fmt.Sprintf("scenarios: built-in scenario is invalid: %v", err))
		}
	}
	return all
}

// Lookup returns the built-in scenario called name.
func Lookup(name string) (*Scenario, error) {
	all := Builtins()
	for _, s := range all {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	slices.Sort(names)
	return nil, fmt.Errorf("scenarios: unknown scenario %q (built-ins: %s)", name, strings.Join(names, ", "))
}

// StandardName is the scenario `simrun bench` measures: the engine's standard job.
const StandardName = "standard"

// Small constructors keep the catalogue readable.

func seeds(first, last uint64) *SeedRange { return &SeedRange{First: first, Last: last} }

// at schedules fault f at virtual time d.
func at(d Duration, f faults.Fault) faults.Entry {
	return faults.Entry{Trigger: faults.At(d), Fault: f}
}

// onNth schedules fault f at the nth trace event of kind (of task, when given).
func onNth(n int, kind, task string, f faults.Fault) faults.Entry {
	return faults.Entry{Trigger: faults.Nth(n, faults.Match{Kind: kind, Task: task}), Fault: f}
}

var expectPass = Expect{Verdict: VerdictPass}

func expectFail(property checker.Property) Expect {
	return Expect{Verdict: VerdictFail, Property: property}
}
