package scenarios

import (
	"fmt"

	"github.com/ckptsim/ckptsim/faults"
)

// validateFaultTimes refuses a time trigger after the fault phase, naming the entry and why.
// The fault phase runs from the start of the run (virtual time 0) to limits.fault_phase,
// its last instant included, and the injector injects nothing outside it, not even an
// operator action: a later trigger would never fire, and the run would pass without its
// fault. It is the scenario's wording of faults.System.CheckTimes, which says the same of
// any schedule (an artifact's, a swarm's).
func (s *Scenario) validateFaultTimes(p *problems, path string) {
	phase := s.Limits.FaultPhase
	for i, e := range s.Faults {
		if e.Trigger.Type != faults.AtTime || e.Trigger.At <= phase {
			continue
		}
		at := Duration(e.Trigger.At)
		why := fmt.Sprintf("%s is after the fault phase (limits.fault_phase %s)", at, phase)
		if at > s.Limits.MaxVirtualTime {
			why += fmt.Sprintf(" and after the run's end (limits.max_virtual_time %s)", s.Limits.MaxVirtualTime)
		}
		p.add(fmt.Sprintf("%s[%d].trigger.at_ns", path, i),
			"%s: faults are injected only in the fault phase, so this %s would never fire", why, e.Fault.Kind)
	}
}
