package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/engine/extstore"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// The methods in this file are the handles scenario glue, fault injection and tests use on
// a running job. They act at the Env's current time, from outside any process.

// Processes returns the name of every process the job spawns, in a fixed order: the
// coordinator, the external store, the readers, then the tasks in graph order. An Env
// places each of them on a host.
func (rt *Runtime) Processes() []string { return ProcessNames(&rt.cfg) }

// ProcessNames returns the processes a job with configuration cfg spawns, as
// Runtime.Processes does, without building the job: an Env needs them to lay out hosts.
func ProcessNames(cfg *Config) []string {
	names := []string{coordinatorName, storeName}
	for i := 0; i < cfg.readers(); i++ {
		names = append(names, ReaderName(i))
	}
	return append(names, cfg.Graph.Tasks()...)
}

// Tasks returns the job's task ids in graph order.
func (rt *Runtime) Tasks() []string { return rt.cfg.Graph.Tasks() }

// Config returns the job's configuration (with defaults the runtime filled in).
func (rt *Runtime) Config() Config { return rt.cfg }

// CrashTask crashes the current incarnation of task id on its own (not its host): it dies
// at once and the coordinator learns of it after FailureDetection, which fails the job
// over. It reports an error if no incarnation of the task is running.
func (rt *Runtime) CrashTask(id string) error { return rt.FailTask(id, "") }

// FailTask is CrashTask with a reason carried by the task.crash event ("channel-broken"
// when fault injection breaks a data channel, say).
func (rt *Runtime) FailTask(id, reason string) error {
	for _, t := range rt.tasks {
		if t != nil && t.plan.id == id {
			if !t.alive() {
				return fmt.Errorf("engine: task %s is not running", id)
			}
			t.phase = phaseDead
			t.proc.Kill()
			rt.emit(trace.Event{Kind: trace.KindTaskCrash, Task: id, Reason: reason})
			rt.taskFailed(t, reason)
			return nil
		}
	}
	return fmt.Errorf("engine: no task %q", id)
}

// CrashCoordinator crashes the coordinator process (not its host). Nothing restarts it:
// whoever plays the cluster manager calls StartCoordinator later, and that incarnation
// recovers from storage and restarts the job. (When the coordinator's host crashes instead,
// simenv restarts the coordinator with the host.)
func (rt *Runtime) CrashCoordinator() error {
	if !rt.CoordinatorRunning() {
		return fmt.Errorf("engine: coordinator is not running")
	}
	c := rt.currentCoordinator().incarnation()
	c.proc.Kill()
	c.dead = true
	rt.emit(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coordinatorName})
	return nil
}

// CoordinatorRunning reports whether a coordinator incarnation is alive.
func (rt *Runtime) CoordinatorRunning() bool {
	c := rt.currentCoordinator()
	return c != nil && c.incarnation().running()
}

// SetCommitFaultHook installs fn, asked at every commit attempt the external store sees
// (by writer and transaction): true fails the attempt transiently. nil removes it. Fault
// injection draws its probabilities inside fn.
func (rt *Runtime) SetCommitFaultHook(fn func(writer, txn string) bool) { rt.store.SetCommitHook(fn) }

// SetSinkWriteFaultHook installs fn, asked at every sink write the external store receives
// (by writer): it says whether the store applies the write, refuses it, or never gets it.
// nil removes it. Fault injection draws its probabilities inside fn.
func (rt *Runtime) SetSinkWriteFaultHook(fn func(writer string) extstore.WriteFault) {
	rt.store.SetWriteHook(fn)
}

// SetExtraRestartDelay adds d to every failover restart (and deployment retry) scheduled
// from now on, until set back to 0.
func (rt *Runtime) SetExtraRestartDelay(d time.Duration) { rt.extraRestartDelay = d }

// Store returns the external store, for inspection and its fault hooks.
func (rt *Runtime) Store() *extstore.Store { return rt.store }

// FailStoreCommits makes the external store fail the next n commit attempts (a transient
// failure). A 2PC sink whose commit fails fails its task; the restore commits again.
func (rt *Runtime) FailStoreCommits(n int) { rt.store.FailCommits(n) }

// SetTxnTimeout sets the external store's transaction timeout for transactions begun from
// now on (0: never).
func (rt *Runtime) SetTxnTimeout(d time.Duration) { rt.store.SetTxnTimeout(int64(d)) }

// Finished reports whether the job finished (bounded jobs only): every task's final
// snapshot is in a completed checkpoint, and every task exited, sinks only after the store
// confirmed their last commits.
func (rt *Runtime) Finished() bool {
	if !rt.finished {
		return false
	}
	for _, t := range rt.tasks {
		if t == nil || t.phase != phaseExited {
			return false
		}
	}
	return true
}

// noteFinished reports whether the job finished (Finished), and traces job.finish the first
// time it did: the engine's own report of the end, which a host reads from Finished and the
// checkers from the trace.
func (rt *Runtime) noteFinished() bool {
	if !rt.Finished() {
		return false
	}
	if !rt.finishTraced {
		rt.finishTraced = true
		if rt.stoppedBy != 0 {
			rt.emit(trace.JobStop(uint64(rt.stoppedBy)))
		} else {
			rt.emit(trace.JobFinish())
		}
	}
	return true
}

// SourceRecords returns how many records the sources have read, replays after failovers
// included: the work the job did, for throughput figures.
func (rt *Runtime) SourceRecords() int64 { return rt.sourceRecords }

// SnapshotBytes returns how many bytes the tasks' snapshots wrote: each snapshot's own
// state (inline or uploaded) and the shared pieces it uploaded, not those it reused. Per
// completed checkpoint, it is what incremental snapshots save.
func (rt *Runtime) SnapshotBytes() int64 { return rt.snapshotBytes }

// Attempt returns how many job attempts were deployed (1 without failovers).
func (rt *Runtime) Attempt() int { return rt.attempt }

// LatestCheckpoint returns the id of the latest completed checkpoint the running
// coordinator knows, 0 if none or while it recovers.
func (rt *Runtime) LatestCheckpoint() uint64 {
	if kc := rt.kindCoord; kc != nil {
		return kc.logic.LatestCheckpoint()
	}
	c := rt.coord
	if c == nil || c.proto == nil {
		return 0
	}
	if cp := c.proto.LatestRestorable(); cp != nil {
		return uint64(cp.ID)
	}
	return 0
}

// TokenBalances returns what each task of a JobKind's job holds now (KindState.Held: a
// token process's balance), by task id. After the job finished they are the final
// balances.
func (rt *Runtime) TokenBalances() map[string]int64 {
	out := make(map[string]int64)
	for _, t := range rt.tasks {
		if t != nil && t.kind != nil {
			out[t.plan.id] = t.kind.State().Held
		}
	}
	return out
}

// StoredCheckpoints returns the completed-checkpoint store as the running coordinator
// last made it durable (nil while it recovers, and for a JobKind's jobs), for tests and tools
// that compare storage with it. The slice is the caller's.
func (rt *Runtime) StoredCheckpoints() []protocol.CompletedCheckpoint {
	c := rt.coord
	if c == nil || c.proto == nil || c.dead {
		return nil
	}
	return slices.Clone(c.stored)
}

// TriggerCheckpoint asks the coordinator for a checkpoint now.
func (rt *Runtime) TriggerCheckpoint() error {
	if rt.kind != nil {
		return fmt.Errorf("engine: a %s job initiates its snapshots itself", rt.kindName())
	}
	c := rt.coord
	if c == nil || c.proto == nil || c.dead {
		return fmt.Errorf("engine: coordinator is not running")
	}
	defer rt.guard(coordinatorName)
	err := c.proto.TriggerCheckpoint(c.now())
	c.handleReady()
	return err
}

// TriggerSavepoint asks the coordinator for a savepoint and returns its id. The id is
// reserved now, and the savepoint starts once its id is durable: at once in the aligned and
// at-least-once modes (forced through MaxConcurrent, as in Flink), when a MaxConcurrent
// slot is free in the unaligned ones. Its checkpoint.trigger event, with savepoint=true,
// says when.
func (rt *Runtime) TriggerSavepoint() (uint64, error) {
	return rt.askSavepoint((*protocol.Coordinator).TriggerSavepoint)
}

// StopWithSavepoint asks the coordinator to stop the job with a synchronous savepoint
// (Flink's stop-with-savepoint without drain) and returns its id. Its checkpoint.trigger
// says savepoint=true and stop=true. If it completes, sinks commit up to it, every task
// exits (task.finish with attr stop) and the job finishes (job.finish with attr stop); if
// it aborts, the job keeps running.
func (rt *Runtime) StopWithSavepoint() (uint64, error) {
	return rt.askSavepoint((*protocol.Coordinator).StopWithSavepoint)
}

// DrainWithSavepoint is StopWithSavepoint with drain (Flink's stop-with-savepoint --drain):
// its checkpoint.trigger says drain=true as well. Each source ends its input at the
// trigger, so every task finishes (task.finish) before the job finishes with it
// (job.finish with attr stop); if it aborts, the job fails over (reason drain-failed).
func (rt *Runtime) DrainWithSavepoint() (uint64, error) {
	return rt.askSavepoint((*protocol.Coordinator).DrainWithSavepoint)
}

// askSavepoint asks the running coordinator for a savepoint of either kind.
func (rt *Runtime) askSavepoint(ask func(*protocol.Coordinator, protocol.Time) (protocol.CheckpointID, error)) (uint64, error) {
	if rt.kind != nil {
		return 0, fmt.Errorf("engine: a %s job has no savepoints", rt.kindName())
	}
	c := rt.coord
	if c == nil || c.proto == nil || c.dead {
		return 0, fmt.Errorf("engine: coordinator is not running")
	}
	defer rt.guard(coordinatorName)
	id, err := ask(c.proto, c.now())
	c.handleReady()
	return uint64(id), err
}

var _ protocol.Listener = (*sinkPart)(nil)
