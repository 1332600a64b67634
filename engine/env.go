package engine

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// Env is the world the engine runs in: a clock, processes that live on hosts, FIFO message
// passing between them, durable storage, randomness and the trace. The engine never reads a
// wall clock, starts a goroutine or touches a file; everything it does goes through Env, so
// the same engine runs on the deterministic simulator (scenarios/simenv) or, with another
// implementation, live.
//
// The obligations of an implementation:
//
//  1. Everything runs on one goroutine. Callbacks (Receive, timers, storage completions) run
//     one at a time, never while another engine call is on the stack, except Crashed, which
//     may be called from inside an engine call (a fault fired by a trace watcher).
//  2. Messages between two processes are delivered in the order they were sent (FIFO per
//     sender-receiver pair), at most once, and only to the receiver incarnation that was
//     current when the message was sent. A message to a dead incarnation is dropped. An Env
//     that delivers a message twice anyway (an out-of-model duplicate fault) must deliver,
//     the second time, what the message's CopyMessage method returns if it has one
//     (sim.MessageCopier): a receiver reuses the records array of a network buffer once it
//     has consumed it, and a copy marks the records it carries as duplicated.
//  3. Timers and storage completions of an incarnation never run after it dies (crash or
//     Kill). A storage write that reported success is durable: it survives every crash.
//  4. The same sequence of calls gives the same sequence of callbacks (determinism).
type Env interface {
	// Now returns the current virtual time in nanoseconds since the start of the run.
	Now() int64
	// Emit records e at Now (the Env assigns Seq and T).
	Emit(e trace.Event)
	// Rand returns the random sub-stream called name. The same name always returns the
	// same stream, so components draw independently of each other.
	Rand(name string) *rand.Rand
	// Spawn starts a new incarnation of the process called name on the host the Env places
	// it on, killing the current incarnation if there is one. It returns ErrHostDown when
	// that host is down; the caller retries later.
	Spawn(name string, p Process) (Proc, error)
}

// ErrHostDown is returned by Env.Spawn when the process's host is down.
var ErrHostDown = errors.New("engine: host down")

// Process is what the engine runs inside one incarnation of a process. The Env calls it.
type Process interface {
	// Receive delivers a message sent to this incarnation by the process called from.
	Receive(from string, msg any)
	// Crashed tells the incarnation that it died with its host: no further callback comes
	// to it. It is not called after Proc.Kill.
	Crashed()
}

// Proc is the engine's handle on one incarnation of a process. Every method is a no-op (or
// reports failure) once the incarnation is dead.
type Proc interface {
	// Name returns the process name (a task id such as "sum-2", or "coordinator").
	Name() string
	// Alive reports whether this incarnation is still running.
	Alive() bool
	// After calls fn after d of virtual time (as the host's clock measures it), unless the
	// incarnation dies first or the timer is stopped.
	After(d time.Duration, fn func()) Timer
	// NewTimer returns a disarmed timer that calls fn when it goes off; Reset arms it. A
	// timer made once and re-armed for every use costs nothing per use, which matters on
	// per-buffer paths.
	//
	// Calls of one incarnation due at the same instant (After and timers alike) run in the
	// order they were armed: the external store, for one, answers requests in the order it
	// took them by giving each the same delay.
	NewTimer(fn func()) Timer
	// Send sends msg to the current incarnation of the process called to. Messages are
	// shared, not copied: the sender must not change msg after sending it.
	Send(to string, msg any)
	// Write stores data under key durably and then calls done (nil: durable). Data is not
	// copied: the caller must not change it afterwards.
	Write(key string, data []byte, done func(error))
	// Read reads the data stored under key and calls done with it, ErrNotFound, ErrCorrupt
	// (what is stored is not what was written: a torn or corrupted write, which the Env
	// detects by checksum), or another error (a failed read, which says nothing about what
	// is stored). Data may be the stored bytes themselves, not a copy: the caller must not
	// change it.
	Read(key string, done func([]byte, error))
	// Delete removes key from storage (state no checkpoint needs) and then calls done (nil:
	// removed, or never there). An error says the delete failed and the key may remain.
	Delete(key string, done func(error))
	// Kill ends this incarnation on purpose (a cancelled task). Crashed is not called.
	Kill()
}

// ErrNotFound is returned by Proc.Read for a key that was never durably written.
var ErrNotFound = errors.New("engine: not found")

// ErrCorrupt is returned by Proc.Read when the stored value is not the one written (a torn
// or corrupted write). Unlike a failed read it is definite: reading again gives the same.
var ErrCorrupt = errors.New("engine: stored value is corrupt")

// Timer is a pending call.
type Timer interface {
	// Reset arms the timer to fire d (at least 0) from now, replacing an earlier deadline.
	Reset(d time.Duration)
	// Stop cancels the call and reports whether it was still pending.
	Stop() bool
}
