// Package live runs the engine (package engine) in real time: an engine.Env on goroutines,
// channels and the wall clock, where scenarios/simenv runs it on the simulator. The same
// job, the same trace schema, the same checkers; only the world differs.
//
// # Processes
//
// Every engine process (the coordinator, each task, the external store, each reader) runs
// on a goroutine of its own, one per incarnation, that takes its work from a mailbox: the
// messages sent to it, its timers going off and its storage completions. An incarnation's
// timers wait in a queue of its own, ordered by deadline and, for one deadline, by when they
// were armed (the simulator's order, which the engine counts on); one time.AfterFunc for the
// earliest deadline posts a tick into the mailbox, and the tick runs what is due on the
// process's goroutine like everything else of the process. Spawn starts a goroutine; Kill,
// a newer Spawn or a crash closes the incarnation's done channel and the goroutine returns,
// leaving its mailbox behind: whatever was still in it is lost, as messages to a dead
// process are in the simulator.
//
// The engine's obligation 1 (engine.Env: callbacks run one at a time) still holds, through
// one lock, the engine lock, that a goroutine takes for each callback. The processes of one
// Runtime are not independent programs: they share the Runtime (its message blocks, the
// buffer pool, the in-memory external store, the table of current tasks), as the processes
// of one simulated job do. So the goroutines give the real thing's timing, its races
// between messages and timers, and its cancellation, but never run engine code at the same
// time. The time an engine call sees (Env.Now) is read from the monotonic clock when the
// callback takes the lock and stays put until it lets go: a callback is an instant, as a
// simulator step is, and time never goes back in the trace.
//
// # What it keeps of the contract
//
// Messages between two processes are delivered in the order they were sent and only to the
// incarnation that was current when they were sent (one mailbox per incarnation, filled
// under the engine lock). Timers and storage completions of a dead incarnation never run.
// Storage is a map in memory, durable for the life of the Env: a write is stored when it is
// made and reported done through the mailbox (after Config.StorageLatency), and survives
// every crash, since a crash here is of a process, not of the machine. Nothing is ever torn
// or corrupt. What a live Env cannot keep is obligation 4, determinism: the interleaving of
// goroutines and the wall clock decide the order of events, so two runs of one job give
// different traces, each of which the checkers judge on its own. There are no hosts: Spawn
// never fails with engine.ErrHostDown while the Env runs.
//
// # Crashes
//
// Env.CrashTask crashes a task the way a host crash does in the simulator: its incarnation
// dies at once (its goroutine is cancelled, its mailbox and timers dropped) and is told so
// (engine.Process.Crashed), which traces task.crash and reports the task to the
// coordinator after the failure-detection delay. The coordinator then fails the job over:
// it cancels every task and spawns a new incarnation of each on a fresh goroutine, restored
// from the latest completed checkpoint. Each crash is announced first by a fault event
// (fault=crash.task), as the fault injector announces the crashes it injects, so that the
// checkers know it was injected.
//
// # Runs
//
// Run is a whole live run: it starts the job, crashes a task picked at random (seeded) every
// Options.CrashEvery during a fault phase, and stops when a bounded job has finished or
// Options.For has passed. A run that crashes tasks writes the fault injector's phase events
// (fault at the start, heal and liveness when the crashes stop, end when the run stops), so
// that liveness is judged after the crashes; a calm run writes none and owes progress from
// its first event. Stopping kills every process, so nothing runs and nothing is traced
// after the stop: a checkpoint in flight stays pending in the trace, which the checkers
// leave unjudged.
//
// Tests run all of this inside a testing/synctest bubble, where the clock is fake and
// advances only when every goroutine of the bubble is blocked: the same code, with timing
// that does not depend on the machine, and no test sleeps.
package live
