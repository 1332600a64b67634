package faults

import (
	"fmt"
	"time"
)

// CheckTimes checks that every time trigger of sched falls in the fault phase: at a virtual
// time from 0 (Injector.Start, which the scenario glue calls when the run begins) to
// s.FaultPhase, both included. The injector injects nothing outside the fault phase,
// not even operator actions, so a later trigger would never fire, and a run that passed
// without it would be a silent, vacuous pass. A trigger at the phase's last instant still
// fires: Start arms time triggers before it schedules heal, and equal times run in order.
// Event triggers have no time; whether they fire depends on the run (Injector.Unfired).
func (s System) CheckTimes(sched Schedule) error {
	for i, e := range sched.Entries {
		if e.Trigger.Type == AtTime && e.Trigger.At > s.FaultPhase {
			return fieldErr(fmt.Sprintf("entries[%d].trigger.at_ns", i),
				"%s is after the fault phase, which ends at %s: faults are injected only in the fault phase, so this %s would never fire",
				time.Duration(e.Trigger.At), time.Duration(s.FaultPhase), e.Fault.Kind)
		}
	}
	return nil
}
