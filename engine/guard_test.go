package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// TestPanickedInTellsWhosePanicItIs: a nil dereference inside a protocol method is
// the protocol's panic, through the runtime's helpers; a nil map write in the engine's own
// code is not, nor is a panic the engine raises itself.
func TestPanickedInTellsWhosePanicItIs(t *testing.T) {
	whose := func(fn func()) (inProtocol bool) {
		defer func() {
			inProtocol = panickedIn(protocolFuncs)
			_ = recover()
		}()
		fn()
		return false
	}
	var c *protocol.Coordinator
	if !whose(func() { c.HasReady() }) {
		t.Error("a nil dereference inside protocol.(*Coordinator).HasReady was not the protocol's")
	}
	var m map[string]int
	if whose(func() { m["x"]++ }) {
		t.Error("a nil map write in the engine's code was taken for the protocol's")
	}
	if whose(func() { panic("engine") }) {
		t.Error("the engine's own panic was taken for the protocol's")
	}
}

// TestRuntimeErrorFailsTheTaskAndHalts: a nil map write in the engine's code serving a task
// fails that task, the error and its place as the reason, and halts the job; a runtime error
// elsewhere (the external store's process), or a failed check of the engine, goes on as a
// panic.
func TestRuntimeErrorFailsTheTaskAndHalts(t *testing.T) {
	env := &recordingEnv{}
	rt := &Runtime{env: env}
	procs := []*killableProc{{}, {}}
	for i, p := range procs {
		rt.tasks = append(rt.tasks, &task{rt: rt, plan: &taskPlan{id: TaskID("sum", i)}, proc: p, phase: phaseRunning})
	}
	panics := func(who string, fn func()) (panicked bool) {
		defer func() { panicked = recover() != nil }()
		defer rt.guard(who)
		fn()
		return false
	}
	if !panics("extstore", func() { var m map[string]int; m["x"]++ }) {
		t.Error("a runtime error outside any task or the coordinator did not go on as a panic")
	}
	if !panics("sum-1", func() { panic(invariantf("engine")) }) {
		t.Error("a failed check of the engine did not go on as a panic")
	}
	if panics("sum-1", func() { var m map[string]int; m["x"]++ }) {
		t.Fatal("a runtime error serving sum-1 still panicked")
	}
	if len(env.events) != 1 || env.events[0].Kind != trace.KindTaskCrash || env.events[0].Task != "sum-1" {
		t.Fatalf("traced %v, want one task.crash of sum-1", env.events)
	}
	if reason := env.events[0].Reason; !strings.HasPrefix(reason, "error: assignment to entry in nil map at engine/guard_test.go:") {
		t.Errorf("reason %q does not say the error and where it was raised", reason)
	}
	if !rt.Halted() || !procs[0].dead || !procs[1].dead {
		t.Error("the job did not halt")
	}
}

// TestRuntimeErrorFailsTheCoordinator: a runtime error in the engine's code serving the
// coordinator is a coordinator.crash with the error as its reason, and the job halts.
func TestRuntimeErrorFailsTheCoordinator(t *testing.T) {
	env := &recordingEnv{}
	rt := &Runtime{env: env}
	proc := &killableProc{}
	rt.coord = &coordinator{coordinatorIncarnation: coordinatorIncarnation{rt: rt, proc: proc}}
	func() {
		defer rt.guard(coordinatorName)
		var m map[string]int
		m["x"]++
	}()
	if len(env.events) != 1 || env.events[0].Kind != trace.KindCoordinatorCrash ||
		!strings.HasPrefix(env.events[0].Reason, "error: assignment to entry in nil map at engine/guard_test.go:") {
		t.Fatalf("traced %v, want one coordinator.crash with the error", env.events)
	}
	if !rt.Halted() || !proc.dead {
		t.Error("the job did not halt")
	}
}

// TestLibraryPanicFailsTheCoordinator: a panic the standard library raises on a bad argument
// (slices.Grow of a negative count) fails the coordinator like a runtime error, named by the
// engine's call that raised it.
func TestLibraryPanicFailsTheCoordinator(t *testing.T) {
	env := &recordingEnv{}
	rt := &Runtime{env: env}
	rt.coord = &coordinator{coordinatorIncarnation: coordinatorIncarnation{rt: rt, proc: &killableProc{}}}
	func() {
		defer rt.guard(coordinatorName)
		_ = slices.Grow([]byte(nil), -1)
	}()
	if len(env.events) != 1 || env.events[0].Kind != trace.KindCoordinatorCrash ||
		!strings.HasPrefix(env.events[0].Reason, "error: cannot be negative at engine/guard_test.go:") {
		t.Fatalf("traced %v, want one coordinator.crash naming the engine's call", env.events)
	}
}

// TestPanicWhileFailingIsABrokenInvariant: a task whose process is broken as well (a nil
// Proc, as a spawn error left unchecked would leave it) panics again while the engine fails
// it; that second panic is a failed check of the engine, not a bare runtime error.
func TestPanicWhileFailingIsABrokenInvariant(t *testing.T) {
	rt := &Runtime{env: &recordingEnv{}}
	rt.tasks = append(rt.tasks, &task{rt: rt, plan: &taskPlan{id: TaskID("sum", 0)}, proc: guardedProc{rt: rt}, phase: phaseRunning})
	var got any
	func() {
		defer func() { got = recover() }()
		defer rt.guard("sum-0")
		var m map[string]int
		m["x"]++
	}()
	err, ok := got.(*InvariantError)
	if !ok || !strings.Contains(err.Error(), "engine: failing sum-0 for assignment to entry in nil map panicked") {
		t.Fatalf("recovered %v, want an *InvariantError that says failing sum-0 panicked", got)
	}
}
