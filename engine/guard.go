package engine

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// contractNoPanic names the protocol's promise never to panic on input within its contract
// (the what of a contract.broken).
const contractNoPanic = "no-panic"

// protocolFuncs prefixes the names of package protocol's functions in a stack trace.
var protocolFuncs = reflect.TypeFor[protocol.Config]().PkgPath() + "."

// guard is deferred at every entry into the engine: a message, a timer, a storage answer, a
// trigger from outside. A panic raised inside package protocol breaks the protocol's promise
// never to panic, so the engine turns it into a broken contract (contract.broken, what
// no-panic, detail the panic) and halts the job, as for any broken promise: the run keeps its
// trace and gets a verdict with its artifact instead of dying. Any other panic of the code
// serving a task or the coordinator (a runtime error, or a standard-library function's
// panic on a bad argument) fails that task or the coordinator (failOnError), and a panic
// while it does is a failed check of the engine. The assertions
// of the protocol and the engine (*protocol.InvariantError, *InvariantError) go on as panics,
// which the harness judges as broken invariants, their stacks intact.
func (rt *Runtime) guard(who string) {
	r := recover()
	if r == nil {
		return
	}
	switch {
	case isInvariant(r):
		panic(r)
	case panickedIn(protocolFuncs):
		rt.breakContract(who, 0, contractNoPanic, fmt.Sprint(r))
	case !rt.failOnErrorOnce(who, r):
		panic(r)
	}
}

// failOnErrorOnce is failOnError, save that a panic raised while it fails who (a task whose
// process is broken too, say) is a failed check of the engine: the engine cannot carry out
// its own failure handling, which is no longer a failure of who.
func (rt *Runtime) failOnErrorOnce(who string, r any) bool {
	defer func() {
		if again := recover(); again != nil {
			if isInvariant(again) {
				panic(again)
			}
			panic(invariantf("engine: failing %s for %v panicked: %v", who, r, again))
		}
	}()
	return rt.failOnError(who, r)
}

// isInvariant reports whether r is a failed check of the protocol or the engine.
func isInvariant(r any) bool {
	err, ok := r.(error)
	var protocolCheck *protocol.InvariantError
	var engineCheck *InvariantError
	return ok && (errors.As(err, &protocolCheck) || errors.As(err, &engineCheck))
}

// failOnError fails task who, or the coordinator, for a panic (a nil dereference, an index
// out of range, a negative size handed to the standard library) raised in the engine's own
// code while it served them, as Flink fails a task whose code throws and a JobManager whose
// code does: task.crash or coordinator.crash with the panic and where the engine's code
// raised it as the reason. The job then halts instead of failing over, since the same input
// would raise the same panic again; a failure nothing caused is what task.fails-for-a-cause
// judges. It reports whether it did: who is a live task or the coordinator of a running job.
func (rt *Runtime) failOnError(who string, r any) bool {
	if rt.halted {
		return false
	}
	reason := "error: " + fmt.Sprint(r) + " at " + raisedAt()
	if c := rt.currentCoordinator(); who == coordinatorName && c != nil && c.incarnation().running() {
		rt.emit(trace.CoordinatorFailed(reason))
		rt.halt()
		return true
	}
	for _, t := range rt.tasks {
		if t != nil && t.plan.id == who && t.alive() {
			rt.emit(trace.TaskCrash(who, reason))
			rt.halt()
			return true
		}
	}
	return false
}

// moduleFuncs prefixes the names of this module's functions in a stack trace.
var moduleFuncs = path.Dir(protocolFuncs) + "/"

// panicFrame returns the frame of this module's code that raised the panic being handled:
// the first below runtime.gopanic in the module (a nil dereference passes through runtime
// helpers, a bad argument through the standard library's function that panics).
func panicFrame() (runtime.Frame, bool) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case !panicking:
			panicking = f.Function == "runtime.gopanic"
		case strings.HasPrefix(f.Function, moduleFuncs):
			return f, true
		}
		if !more {
			return runtime.Frame{}, false
		}
	}
}

// panickedIn reports whether the panic being handled was raised in the package whose
// functions' names start with prefix.
func panickedIn(prefix string) bool {
	f, ok := panicFrame()
	return ok && strings.HasPrefix(f.Function, prefix)
}

// raisedAt names where this module's code raised the panic being handled, as
// dir/file.go:line, the same on every machine: a panic of the standard library is named by
// the call into it.
func raisedAt() string {
	f, ok := panicFrame()
	if !ok {
		return "an unknown place"
	}
	return filepath.Base(filepath.Dir(f.File)) + "/" + filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
}

// spawn starts process p as name with every entry into it guarded (see guard): its
// messages, its crash, and the timers and storage answers of the Proc it gets back.
func (rt *Runtime) spawn(name string, p Process) (Proc, error) {
	proc, err := rt.env.Spawn(name, guardedProcess{p: p, rt: rt, name: name})
	if err != nil {
		return nil, err
	}
	return guardedProc{Proc: proc, rt: rt}, nil
}

// guardedProcess is a Process whose calls are guarded.
type guardedProcess struct {
	p    Process
	rt   *Runtime
	name string
}

func (g guardedProcess) Receive(from string, msg any) {
	defer g.rt.guard(g.name)
	g.p.Receive(from, msg)
}

func (g guardedProcess) Crashed() {
	defer g.rt.guard(g.name)
	g.p.Crashed()
}

// guardedProc is a Proc whose callbacks are guarded.
type guardedProc struct {
	Proc
	rt *Runtime
}

func (g guardedProc) After(d time.Duration, fn func()) Timer { return g.Proc.After(d, g.wrap(fn)) }
func (g guardedProc) NewTimer(fn func()) Timer               { return g.Proc.NewTimer(g.wrap(fn)) }

func (g guardedProc) Write(key string, data []byte, done func(error)) {
	g.Proc.Write(key, data, func(err error) {
		defer g.rt.guard(g.Name())
		done(err)
	})
}

func (g guardedProc) Read(key string, done func([]byte, error)) {
	g.Proc.Read(key, func(data []byte, err error) {
		defer g.rt.guard(g.Name())
		done(data, err)
	})
}

func (g guardedProc) wrap(fn func()) func() {
	return func() {
		defer g.rt.guard(g.Name())
		fn()
	}
}
