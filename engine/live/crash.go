package live

import (
	"strconv"

	"github.com/ckptsim/ckptsim/trace"
)

// faultCrashTask is the fault kind of an injected task crash, as package faults names it
// (faults.CrashTask) in the fault events its injector writes; this package may not import
// faults, which is the simulator's.
const faultCrashTask = "crash.task"

// CrashTask crashes the current incarnation of the process called name as a host crash
// would (see the package comment): a fault event announcing it, then the incarnation dies
// and is told (engine.Process.Crashed), and the engine fails the job over. number is the
// crash's number in the run, written as the fault event's entry and id. It reports false,
// tracing nothing, when no incarnation of name is alive (between a crash and the restart,
// say). The caller holds the engine lock: call it inside Do.
func (e *Env) CrashTask(name string, number int) bool {
	p := e.procs[name]
	if p == nil || !p.alive {
		return false
	}
	n := strconv.Itoa(number)
	e.Emit(trace.Event{Kind: trace.KindFault, Fault: faultCrashTask, Task: name,
		Attrs: []trace.Attr{{Key: "entry", Value: n}, {Key: "id", Value: n}}})
	p.die()
	e.call(name, p.p.Crashed)
	return true
}

// Alive reports whether an incarnation of the process called name is alive. The caller
// holds the engine lock.
func (e *Env) Alive(name string) bool {
	p := e.procs[name]
	return p != nil && p.alive
}

// phaseEvent is the event that starts phase (fault, heal, liveness, end), as the fault
// injector writes it.
func phaseEvent(phase string) trace.Event {
	return trace.Event{Kind: trace.KindPhase, Attrs: []trace.Attr{{Key: trace.AttrPhase, Value: phase}}}
}
