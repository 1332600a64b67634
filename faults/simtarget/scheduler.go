package simtarget

import (
	"fmt"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// Scheduler is the faults.Scheduler of a simulated run: the injector's window ends, heal and
// phase changes become kernel timers. Kernel timers belong to the harness, so they fire
// whatever the hosts do (a crashed or paused host does not stop the fault phase from ending).
//
// Callbacks due at the same instant run in the order At was called, after everything already
// queued for that instant, because the kernel orders events by (time, sequence number) and
// every scheduling takes the next sequence number.
type Scheduler struct {
	Kernel *sim.Kernel
}

var _ faults.Scheduler = Scheduler{}

// Now returns the kernel's virtual time in nanoseconds.
func (s Scheduler) Now() int64 { return s.Kernel.Now().Nanoseconds() }

// At runs fn as a kernel event at tNanos. A time in the past is a bug in the caller (the
// injector never asks for one) and panics.
func (s Scheduler) At(tNanos int64, fn func()) {
	if now := s.Kernel.Now(); sim.Time(tNanos) < now {
		panic(fmt.Sprintf("simtarget: At(%d) is before now %v", tNanos, now))
	}
	s.Kernel.At(sim.Time(tNanos), fn)
}
