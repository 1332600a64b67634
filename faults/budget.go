package faults

import (
	"fmt"
	"slices"
)

// Budget bounds what the swarm may draw, so that every drawn run can still recover once the
// faults stop: outages are bounded and end inside the fault phase, some hosts never go down,
// and only in-model faults are drawn unless out-of-model ones are asked for.
type Budget struct {
	// MaxFaults bounds the entries of a drawn schedule.
	MaxFaults int
	// MaxWindow bounds every window (outage, pause, partition, clog, unavailability) and
	// every added delay; at most the fault phase.
	MaxWindow Duration
	// MinLiveHosts hosts are never crashed or paused; at least 1 when the system has hosts.
	MinLiveHosts int
	// OutOfModel allows out-of-model kinds (data.*, storage.lost). Without it they are never
	// drawn and listing one in Kinds is an error.
	OutOfModel bool
	// Kinds, if not empty, are the only kinds the swarm may turn on.
	Kinds []Kind
}

// DefaultBudget returns a budget for sys: 16 faults, windows up to a quarter of the fault
// phase, and half the hosts (rounded up) always alive.
func DefaultBudget(sys System) Budget {
	return Budget{
		MaxFaults:    16,
		MaxWindow:    max(1, sys.FaultPhase/4),
		MinLiveHosts: (len(sys.Hosts) + 1) / 2,
	}
}

// Validate checks b against sys.
func (b Budget) Validate(sys System) error {
	if b.MaxFaults < 0 || b.MaxFaults > MaxEntries {
		return fmt.Errorf("faults: budget: MaxFaults must be in [0, %d], got %d", MaxEntries, b.MaxFaults)
	}
	if b.MaxWindow < 1 || b.MaxWindow > sys.FaultPhase {
		return fmt.Errorf("faults: budget: MaxWindow must be in [1, the fault phase %d], got %d", sys.FaultPhase, b.MaxWindow)
	}
	if len(sys.Hosts) > 0 && (b.MinLiveHosts < 1 || b.MinLiveHosts > len(sys.Hosts)) {
		return fmt.Errorf("faults: budget: MinLiveHosts must be in [1, %d hosts], got %d", len(sys.Hosts), b.MinLiveHosts)
	}
	for i, k := range b.Kinds {
		switch {
		case !k.Known():
			return fmt.Errorf("faults: budget: Kinds[%d]: unknown fault kind %q", i, k)
		case k.OutOfModel() && !b.OutOfModel:
			return fmt.Errorf("faults: budget: Kinds[%d]: %s is out of model; set OutOfModel to draw it", i, k)
		case k.Action():
			return fmt.Errorf("faults: budget: Kinds[%d]: %s is an operator action, which the swarm never draws; schedule it", i, k)
		case !k.Swarmable():
			return fmt.Errorf("faults: budget: Kinds[%d]: the swarm does not draw %s; schedule it", i, k)
		case slices.Index(b.Kinds, k) != i:
			return fmt.Errorf("faults: budget: Kinds[%d]: %s listed twice", i, k)
		}
	}
	return nil
}

// allows reports whether the budget lets the swarm turn k on.
func (b Budget) allows(k Kind) bool {
	if k.OutOfModel() && !b.OutOfModel {
		return false
	}
	return len(b.Kinds) == 0 || slices.Contains(b.Kinds, k)
}
