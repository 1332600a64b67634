package simtarget

import "github.com/ckptsim/ckptsim/faults"

// Engine is the engine-level half of a faults.Target, which the scenario glue implements on
// top of its engine: the faults the kernel cannot express because they need to know what a
// task, the coordinator or a transaction is.
type Engine interface {
	// CrashTask and CrashCoordinator kill one process now (Target obligation 1: its outputs
	// after this call must go nowhere) and leave the restart to the system's failover,
	// delayed by World.RestartDelay.
	CrashTask(task string)
	CrashCoordinator()
	faults.ExternalStoreTarget
	faults.OperatorTarget
	// End undoes the engine-level effect started under id. Ids the engine half did not start
	// (the World's) must be ignored: Target passes every id to both halves.
	End(id faults.EffectID)
	// Heal restarts every process that is still down and returns the external store to
	// normal. Target calls it after World.Heal, so every host is up again by then.
	Heal()
}

// Target is a whole faults.Target: the World does what acts on the kernel (network, data,
// storage, clock, hosts), Engine the rest. Give it to faults.Config as the Target.
type Target struct {
	*World
	Engine Engine
}

var _ faults.Target = Target{}

// CrashTask is the engine half's.
func (t Target) CrashTask(task string) { t.Engine.CrashTask(task) }

// CrashCoordinator is the engine half's.
func (t Target) CrashCoordinator() { t.Engine.CrashCoordinator() }

// TriggerSavepoint is the engine half's.
func (t Target) TriggerSavepoint() { t.Engine.TriggerSavepoint() }

// StopWithSavepoint is the engine half's.
func (t Target) StopWithSavepoint(drain bool) { t.Engine.StopWithSavepoint(drain) }

// TriggerCheckpoint is the engine half's.
func (t Target) TriggerCheckpoint() { t.Engine.TriggerCheckpoint() }

// ResubmitJob is the engine half's.
func (t Target) ResubmitJob(mode string) { t.Engine.ResubmitJob(mode) }

// RescaleJob is the engine half's.
func (t Target) RescaleJob(op string, p int, mode string) { t.Engine.RescaleJob(op, p, mode) }

// TimeOutTransactions is the engine half's.
func (t Target) TimeOutTransactions(id faults.EffectID, timeoutNanos int64) {
	t.Engine.TimeOutTransactions(id, timeoutNanos)
}

// FailCommits is the engine half's.
func (t Target) FailCommits(id faults.EffectID, probability float64) {
	t.Engine.FailCommits(id, probability)
}

// FailSinkWrites is the engine half's.
func (t Target) FailSinkWrites(id faults.EffectID, probability float64, lost bool) {
	t.Engine.FailSinkWrites(id, probability, lost)
}

// End passes id to both halves; each undoes the effect if it started it.
func (t Target) End(id faults.EffectID) {
	t.World.End(id)
	t.Engine.End(id)
}

// Heal heals the kernel first, so that hosts are up when the engine half restarts the
// processes on them.
func (t Target) Heal() {
	t.World.Heal()
	t.Engine.Heal()
}
