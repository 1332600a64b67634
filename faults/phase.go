package faults

import "fmt"

// Phase is a stage of a run. A run goes through them in order, once: the fault (safety) phase,
// in which faults are injected and safety must hold; heal, in which every effect is undone and
// nothing new is injected; and liveness, a bounded time in which the system must make progress.
// The injector emits a phase event (trace.KindPhase, attribute phase) as each begins, and one
// with phase=end when the liveness bound runs out.
type Phase int

const (
	PhaseIdle     Phase = iota // before Start
	PhaseFault                 // faults are injected
	PhaseHeal                  // effects undone, parts restarting; no new faults
	PhaseLiveness              // progress is required before the phase ends
	PhaseEnd                   // the liveness bound has run out
)

var phaseNames = []string{"idle", "fault", "heal", "liveness", "end"}

// String returns the phase's name, as written in phase events.
func (p Phase) String() string {
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("phase(%d)", int(p))
	}
	return phaseNames[p]
}

// Phases are the lengths of a run's phases, in virtual nanoseconds.
type Phases struct {
	// Fault runs from Start to heal.
	Fault Duration
	// Heal runs from heal to the liveness phase: time for restarts and recovery that is
	// not yet held to the liveness bound. It may be 0.
	Heal Duration
	// Liveness is the liveness bound: a checkpoint must complete (and bounded jobs
	// finish) between the liveness and end phase events.
	Liveness Duration
}

// Validate checks that each phase length is in range.
func (p Phases) Validate() error {
	for _, d := range []struct {
		name  string
		nanos int64
		min   int64
	}{{"fault", p.Fault.Nanos(), 1}, {"heal", p.Heal.Nanos(), 0}, {"liveness", p.Liveness.Nanos(), 1}} {
		if d.nanos < d.min || d.nanos > MaxDurationNanos {
			return fmt.Errorf("faults: phases: %s phase must be in [%d, %d] ns, got %d", d.name, d.min, MaxDurationNanos, d.nanos)
		}
	}
	return nil
}
