package live

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// Config configures an Env.
type Config struct {
	// Seed seeds every random stream the engine asks for (Env.Rand), each under its name.
	Seed uint64
	// StorageLatency is how long a storage read or write takes to report back; 0 reports it
	// as soon as the process has finished what its mailbox already holds.
	StorageLatency time.Duration
}

// Env implements engine.Env on goroutines and the wall clock (see the package comment). It
// is made with New, used by one engine.Runtime, and ended with Stop.
type Env struct {
	// mu is the engine lock: held while any engine code runs, whether a process's callback
	// or a call from outside (Do). Every field below except start, cfg, failed and wg is
	// guarded by it.
	mu      sync.Mutex
	start   time.Time
	cfg     Config
	now     int64 // nanoseconds since start, read when mu was taken
	rec     *trace.Recorder
	rands   map[string]*rand.Rand
	procs   map[string]*proc // the current incarnation of each process, by name
	storage map[string][]byte
	stopped bool
	failure *Panic
	// failed is closed when an engine call panics (Failed).
	failed chan struct{}
	// wg counts the process goroutines, so that Stop can wait for them.
	wg sync.WaitGroup
}

// ErrStopped is returned by Do once the Env has stopped (Stop, or a panic).
var ErrStopped = errors.New("live: the env has stopped")

// New returns an Env that records into rec. Its clock starts now: trace times are
// nanoseconds since New. rec must be used only through the Env from then on.
func New(rec *trace.Recorder, cfg Config) *Env {
	return &Env{
		start:   time.Now(),
		cfg:     cfg,
		rec:     rec,
		rands:   make(map[string]*rand.Rand),
		procs:   make(map[string]*proc),
		storage: make(map[string][]byte),
		failed:  make(chan struct{}),
	}
}

// Now implements engine.Env: the time the running callback took the engine lock at.
func (e *Env) Now() int64 { return e.now }

// Emit implements engine.Env.
func (e *Env) Emit(ev trace.Event) { e.rec.Emit(e.now, ev) }

// Rand implements engine.Env: a PCG stream seeded with Config.Seed and a hash of name.
func (e *Env) Rand(name string) *rand.Rand {
	if r, ok := e.rands[name]; ok {
		return r
	}
	r := rand.New(rand.NewPCG(e.cfg.Seed, seedOf(name)))
	e.rands[name] = r
	return r
}

// Spawn implements engine.Env: a new incarnation on a goroutine of its own, after killing
// the current one. It reports engine.ErrHostDown only once the Env has stopped, when no
// process may start.
func (e *Env) Spawn(name string, p engine.Process) (engine.Proc, error) {
	if e.stopped {
		return nil, engine.ErrHostDown
	}
	if old := e.procs[name]; old != nil {
		old.die()
	}
	pr := newProc(e, name, p)
	e.procs[name] = pr
	e.wg.Add(1)
	go pr.loop()
	return pr, nil
}

// Do runs fn under the engine lock, at the time it takes the lock, as the engine's hooks
// (engine.Runtime's Start, CrashTask, TriggerCheckpoint, Finished, ...) must be called. It
// returns ErrStopped, without calling fn, once the Env has stopped; a panic in fn stops the
// Env like a panic in a process (Failed).
func (e *Env) Do(fn func()) error {
	e.enter()
	defer e.mu.Unlock()
	if e.stopped {
		return ErrStopped
	}
	e.call("", fn)
	return nil
}

// enter takes the engine lock and reads the clock for the callback that follows. The
// monotonic clock never goes back, and the lock orders callbacks, so neither does Now; max
// keeps it so even if the clock were coarse.
func (e *Env) enter() {
	e.mu.Lock()
	e.now = max(e.now, time.Since(e.start).Nanoseconds())
}

// call runs fn, turning a panic into the Env's failure.
func (e *Env) call(process string, fn func()) {
	defer func() {
		if v := recover(); v != nil {
			e.fail(process, v, debug.Stack())
		}
	}()
	fn()
}

// Panic is a panic inside an engine call: a process's callback (Process names it) or a
// call through Do. Invariant says it was the protocol's or the engine's own check of its
// state (*protocol.InvariantError, *engine.InvariantError), a verdict as good as a property's.
type Panic struct {
	Process   string
	Value     any
	Stack     []byte
	Invariant bool
	// Nanos is the Env's time at the panic.
	Nanos int64
}

func (p *Panic) String() string {
	where := "a call from outside"
	if p.Process != "" {
		where = p.Process
	}
	return fmt.Sprintf("panic in %s at t=%d: %v", where, p.Nanos, p.Value)
}

// fail records the first panic and stops every process: the engine's state is suspect
// after a panic, and the run is over.
func (e *Env) fail(process string, v any, stack []byte) {
	if e.failure != nil {
		return
	}
	p := &Panic{Process: process, Value: v, Stack: stack, Nanos: e.now}
	if err, ok := v.(error); ok {
		var broken *protocol.InvariantError
		var engineBroken *engine.InvariantError
		p.Invariant = errors.As(err, &broken) || errors.As(err, &engineBroken)
	}
	e.failure = p
	e.halt()
	close(e.failed)
}

// Failed is closed when an engine call panicked; Failure then says how.
func (e *Env) Failed() <-chan struct{} { return e.failed }

// Failure returns the first panic of an engine call, nil if there was none.
func (e *Env) Failure() *Panic {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failure
}

// Stop kills every process, without telling any (engine.Proc.Kill), and waits for their
// goroutines to return. Nothing is traced after it: the trace ends with what happened
// before. Calling it again does nothing.
func (e *Env) Stop() {
	e.mu.Lock()
	e.halt()
	e.mu.Unlock()
	e.wg.Wait()
}

// halt kills every process and refuses new ones. The caller holds the engine lock.
func (e *Env) halt() {
	e.stopped = true
	for _, p := range e.procs {
		p.die()
	}
}
