package scenarios

import (
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/extstore"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
)

// engineHalf is the simtarget.Engine of a run: the faults that need to know what a task, the
// coordinator or a transaction is. It also plays the cluster manager that restarts a crashed
// coordinator, after the engine's restart delay plus any restart.delay in force.
type engineHalf struct {
	rt    *engine.Runtime
	env   *simenv.Env
	k     *sim.Kernel
	world *simtarget.World
	rand  *rand.Rand // per-commit draws of commit-fail effects

	baseTimeout time.Duration
	timeouts    []timeoutEffect
	commitFails []commitFailEffect
	writeFails  []writeFailEffect
}

type writeFailEffect struct {
	id          faults.EffectID
	probability float64
	lost        bool
}

type timeoutEffect struct {
	id      faults.EffectID
	timeout time.Duration
}

type commitFailEffect struct {
	id          faults.EffectID
	probability float64
}

func (e *engineHalf) CrashTask(task string) {
	// A task that is not running (crashed already, or between attempts) is not hit.
	_ = e.rt.CrashTask(task)
}

func (e *engineHalf) CrashCoordinator() {
	if e.rt.CrashCoordinator() != nil {
		return // not running: nothing to crash
	}
	delay := e.rt.Config().RestartDelay + e.world.RestartDelay()
	e.k.After(delay, e.restartCoordinator)
}

// TriggerSavepoint asks for a savepoint as a user would; one the engine refuses now (no
// coordinator running, a failover, the job finished) is not taken, which is no error.
func (e *engineHalf) TriggerSavepoint() { _, _ = e.rt.TriggerSavepoint() }

func (e *engineHalf) StopWithSavepoint(drain bool) {
	if drain {
		_, _ = e.rt.DrainWithSavepoint()
		return
	}
	_, _ = e.rt.StopWithSavepoint()
}

// TriggerCheckpoint asks for a checkpoint now, as a manual trigger would.
func (e *engineHalf) TriggerCheckpoint() { _ = e.rt.TriggerCheckpoint() }

// ResubmitJob stops the job and submits it again, as a user would, in restore mode mode;
// the new job's coordinator starts after the restart delay, as after a crash. A job the
// engine will not resubmit now (no coordinator running, no completed checkpoint) is left
// alone.
func (e *engineHalf) ResubmitJob(mode string) {
	if e.rt.Resubmit(restoreMode(mode)) == nil {
		e.k.After(e.rt.Config().RestartDelay+e.world.RestartDelay(), e.restartCoordinator)
	}
}

// restoreMode is the protocol's restore mode named mode, which faults validated.
func restoreMode(mode string) protocol.RestoreMode {
	for m := protocol.RestoreClaim; m <= protocol.RestoreLegacy; m++ {
		if m.String() == mode {
			return m
		}
	}
	panic("scenarios: unknown restore mode " + mode)
}

// RescaleJob resubmits the job in restore mode mode with op at parallelism p; the new
// job's coordinator starts after the restart delay, as for ResubmitJob. A rescale the
// engine refuses (engine.Runtime.Rescale) is left alone.
func (e *engineHalf) RescaleJob(op string, p int, mode string) {
	if e.rt.Rescale(restoreMode(mode), op, p) == nil {
		e.k.After(e.rt.Config().RestartDelay+e.world.RestartDelay(), e.restartCoordinator)
	}
}

// restartCoordinator starts a coordinator if none runs and its host is up; when the host is
// down, simenv starts the coordinator with the host.
func (e *engineHalf) restartCoordinator() {
	if !e.rt.CoordinatorRunning() && e.env.Host("coordinator").Up() {
		_ = e.rt.StartCoordinator()
	}
}

func (e *engineHalf) TimeOutTransactions(id faults.EffectID, timeoutNanos int64) {
	e.timeouts = append(e.timeouts, timeoutEffect{id: id, timeout: time.Duration(timeoutNanos)})
	e.applyTimeout()
}

// applyTimeout sets the store's transaction timeout to the shortest in force: the
// configured one, or an active effect's.
func (e *engineHalf) applyTimeout() {
	timeout := e.baseTimeout
	for _, t := range e.timeouts {
		if timeout == 0 || t.timeout < timeout {
			timeout = t.timeout
		}
	}
	e.rt.SetTxnTimeout(timeout)
}

func (e *engineHalf) FailCommits(id faults.EffectID, probability float64) {
	e.commitFails = append(e.commitFails, commitFailEffect{id: id, probability: probability})
	e.rt.SetCommitFaultHook(e.failCommit)
}

// failCommit is the store's commit hook: one draw per active effect and attempt, in effect
// order, so the draws are deterministic.
func (e *engineHalf) failCommit(writer, txn string) bool {
	fail := false
	for _, f := range e.commitFails {
		if e.rand.Float64() < f.probability {
			fail = true
		}
	}
	return fail
}

func (e *engineHalf) FailSinkWrites(id faults.EffectID, probability float64, lost bool) {
	e.writeFails = append(e.writeFails, writeFailEffect{id: id, probability: probability, lost: lost})
	e.rt.SetSinkWriteFaultHook(e.failWrite)
}

// failWrite is the store's write hook: one draw per active effect and write, in effect
// order, so the draws are deterministic; the first effect that hits decides.
func (e *engineHalf) failWrite(writer string) extstore.WriteFault {
	outcome := extstore.WriteApplied
	for _, f := range e.writeFails {
		if e.rand.Float64() < f.probability && outcome == extstore.WriteApplied {
			outcome = extstore.WriteRefused
			if f.lost {
				outcome = extstore.WriteLost
			}
		}
	}
	return outcome
}

func (e *engineHalf) End(id faults.EffectID) {
	if i := slices.IndexFunc(e.writeFails, func(f writeFailEffect) bool { return f.id == id }); i >= 0 {
		e.writeFails = slices.Delete(e.writeFails, i, i+1)
		if len(e.writeFails) == 0 {
			e.rt.SetSinkWriteFaultHook(nil)
		}
	}
	if i := slices.IndexFunc(e.timeouts, func(t timeoutEffect) bool { return t.id == id }); i >= 0 {
		e.timeouts = slices.Delete(e.timeouts, i, i+1)
		e.applyTimeout()
	}
	if i := slices.IndexFunc(e.commitFails, func(f commitFailEffect) bool { return f.id == id }); i >= 0 {
		e.commitFails = slices.Delete(e.commitFails, i, i+1)
		if len(e.commitFails) == 0 {
			e.rt.SetCommitFaultHook(nil)
		}
	}
}

// Heal runs after the World healed the hosts: only a coordinator crashed on its own may
// still be down.
func (e *engineHalf) Heal() { e.restartCoordinator() }

var _ simtarget.Engine = (*engineHalf)(nil)
