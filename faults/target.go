package faults

// EffectID identifies one injected fault for as long as its effect lasts. The injector numbers
// faults 1, 2, 3, ... in the order it injects them; the same number appears as the id
// attribute of the fault's trace events.
type EffectID uint64

// Target is what the injector acts on. The scenario glue implements it on top of the simulator
// and the engine; the injector only says what should happen, never how.
//
// Obligations of an implementation, each needed for determinism or for precise triggers:
//
//  1. Synchronous effect. A method's effect holds when it returns. The injector may call it
//     from inside trace.Recorder.Emit (an event trigger), that is, in the middle of the step
//     that emitted the triggering event; anything the hit part would still do in that step
//     must not happen. For example, after CrashCoordinator returns, the coordinator
//     incarnation that emitted checkpoint.complete must send no notification: the glue marks
//     it dead and the engine (or the simulated network) drops the outputs of dead
//     incarnations.
//  2. No re-entry. A method marks state and schedules work; it does not step the engine or run
//     failover inline (the caller is inside the engine's step). It may emit trace events, such
//     as task.crash, which land right after the fault event.
//  3. Windows end by id. A windowed effect, started by a method that takes an EffectID, lasts
//     until End(id). Effects overlap: a link is partitioned while any partition on it is active,
//     and ending one leaves the others in force.
//  4. Probabilities are drawn by the glue, per message, record, write or commit, from a
//     random sub-stream of its own, in the order the simulation handles them.
//  5. Heal restores everything: after End has been called for every active effect, Heal
//     restarts every part that is still down (whoever crashed it) and brings every store and
//     timer back to normal.
type Target interface {
	ProcessTarget
	NetworkTarget
	StorageTarget
	ExternalStoreTarget
	ClockTarget
	OperatorTarget

	// End undoes the windowed effect started under id. The injector calls it once per
	// windowed effect: when its window ends, or at heal if that comes first.
	End(id EffectID)
	// Heal is called once, at the start of the heal phase, after every active effect has been
	// ended: no fault will follow. Restart whatever is down.
	Heal()
}

// ProcessTarget crashes and stalls parts of the system.
type ProcessTarget interface {
	// CrashTask kills a task now; the system's own failover restarts it.
	CrashTask(task string)
	// CrashCoordinator kills the coordinator now; a new incarnation recovers from the durable
	// store, started by whoever plays the cluster manager.
	CrashCoordinator()
	// CrashHost takes host and everything on it down until End(id), then brings the host
	// back empty; the system restarts its tasks.
	CrashHost(id EffectID, host string)
	// PauseHost stalls host until End(id): nothing on it runs and its timers wait.
	PauseHost(id EffectID, host string)
	// DelayRestarts makes every restart that falls due before End(id) wait delayNanos longer.
	DelayRestarts(id EffectID, delayNanos int64)
}

// NetworkTarget acts on links between endpoints (task ids and Coordinator). An empty from or
// to means any endpoint.
type NetworkTarget interface {
	// DropMessages drops messages of class on link, each with probability, until End(id).
	DropMessages(id EffectID, link Link, class Message, probability float64)
	// BreakChannel breaks the data channel link: both of its tasks fail now.
	BreakChannel(link Link)
	// DelayLink adds delayNanos to every message on link until End(id), keeping FIFO order.
	DelayLink(id EffectID, link Link, delayNanos int64)
	// Partition cuts link, and its reverse unless oneWay, until End(id): control messages
	// across are lost, data-channel messages are held and delivered in order afterwards.
	Partition(id EffectID, link Link, oneWay bool)
	// Clog holds every message on link until End(id), then delivers them in order.
	Clog(id EffectID, link Link)
	// DropRecords silently loses data records on link with probability (out of model).
	DropRecords(id EffectID, link Link, probability float64)
	// DuplicateRecords silently delivers data records twice with probability (out of model).
	DuplicateRecords(id EffectID, link Link, probability float64)
	// ReorderRecords lets data records on link overtake each other (out of model).
	ReorderRecords(id EffectID, link Link)
}

// Keys selects what a storage fault hits: the store named Store (empty: every store), and
// in it the keys that start with Prefix (empty: every key; a list is hit by its prefix).
type Keys struct {
	Store  string
	Prefix string
}

// StorageTarget acts on durable stores; an empty store means every store.
type StorageTarget interface {
	// FailWrites fails writes to keys with probability; the writer sees the error.
	FailWrites(id EffectID, keys Keys, probability float64)
	// FailReads fails reads (gets and lists) of keys with probability; the reader sees the
	// error.
	FailReads(id EffectID, keys Keys, probability float64)
	// SlowWrites makes writes of keys take delayNanos longer: each with probability, or
	// every one when probability is 0 (not given).
	SlowWrites(id EffectID, keys Keys, delayNanos int64, probability float64)
	// TearWrites acknowledges writes but stores only a prefix, with probability; reading the
	// data back detects it.
	TearWrites(id EffectID, keys Keys, probability float64)
	// CorruptWrites acknowledges writes but stores damaged bytes, with probability; reading the
	// data back detects it.
	CorruptWrites(id EffectID, keys Keys, probability float64)
	// MakeUnavailable refuses every read and write.
	MakeUnavailable(id EffectID, store string)
	// LoseAckedWrites acknowledges writes and then loses them, with probability (out of
	// model).
	LoseAckedWrites(id EffectID, keys Keys, probability float64)
}

// ExternalStoreTarget acts on the transactional store behind two-phase-commit sinks.
type ExternalStoreTarget interface {
	// TimeOutTransactions makes the store abort transactions open longer than timeoutNanos.
	TimeOutTransactions(id EffectID, timeoutNanos int64)
	// FailCommits makes commits fail transiently with probability.
	FailCommits(id EffectID, probability float64)
	// FailSinkWrites makes the store refuse each sink write with probability, answering
	// that it failed, or, when lost, drop it unanswered as if lost on the way.
	FailSinkWrites(id EffectID, probability float64, lost bool)
}

// OperatorTarget carries out the operator actions. A request the system refuses now (no
// coordinator running, a failover in progress, the job finished) is simply not made.
type OperatorTarget interface {
	TriggerSavepoint()
	TriggerCheckpoint()
	// ResubmitJob stops the job and submits it again from its latest completed checkpoint
	// in restore mode ("claim", "no-claim" or "legacy"). Without a completed checkpoint, or
	// without a coordinator running, nothing happens.
	ResubmitJob(mode string)
	// RescaleJob resubmits the job in restore mode mode (as ResubmitJob's) with operator
	// op, and the operators forward edges tie to it, at parallelism p. A rescale the system
	// refuses (see engine.Runtime.Rescale) is not made.
	RescaleJob(op string, p int, mode string)
	// StopWithSavepoint stops the job with a synchronous savepoint, with or without drain.
	StopWithSavepoint(drain bool)
}

// ClockTarget skews time as a host sees it.
type ClockTarget interface {
	// SkewTimers makes a timer for d nanoseconds on host fire after d + d*skewPPM/1e6.
	SkewTimers(id EffectID, host string, skewPPM int64)
}
