package faults

import "slices"

// Kind names a fault. Kind names are the vocabulary of schedules, artifacts and the Fault field
// of fault trace events, so they never change meaning; new kinds may be added.
type Kind string

// Process faults.
const (
	// CrashTask kills one task; the system's own failover restarts it (see RestartDelay).
	CrashTask Kind = "crash.task"
	// CrashHost takes a host and every task on it down for window_ns, then brings the host back.
	CrashHost Kind = "crash.host"
	// CrashCoordinator kills the coordinator; a new incarnation recovers from the durable store.
	CrashCoordinator Kind = "crash.coordinator"
	// PauseHost stalls a host (a long GC pause, a frozen VM) for window_ns: nothing on it runs,
	// its timers do not fire, and what it would do happens late, when it resumes.
	PauseHost Kind = "pause.host"
	// RestartDelay makes every restart of a crashed part that is due during window_ns wait
	// delay_ns longer than the system would by itself.
	RestartDelay Kind = "restart.delay"
)

// Network faults. Endpoints are task ids and "coordinator".
const (
	// NetDrop drops barriers or control messages (message = barrier, trigger, ack, notify) on a
	// link, or everywhere when from and to are empty, each with the given probability, for
	// window_ns. In model: the protocol must stay safe and regain progress through timeouts and
	// newer barriers.
	NetDrop Kind = "net.drop"
	// NetBreak breaks the channel from -> to: both ends fail, as with a lost TCP connection.
	NetBreak Kind = "net.break"
	// NetDelay adds delay_ns to every message on the link for window_ns, keeping FIFO order.
	NetDelay Kind = "net.delay"
	// NetPartition cuts the link (both ways unless oneway) for window_ns. Control messages sent
	// across are lost; records and barriers on a data channel are held and delivered in order
	// when the partition heals, as a stalled TCP connection would.
	NetPartition Kind = "net.partition"
	// NetClog holds every message on the link for window_ns and delivers them in order after.
	NetClog Kind = "net.clog"
)

// Data faults: out of model, they break the FIFO, lossless channel the protocol assumes.
const (
	// DataDrop silently loses data records on a link (or everywhere) with a probability.
	DataDrop Kind = "data.drop"
	// DataDuplicate silently delivers data records twice with a probability.
	DataDuplicate Kind = "data.duplicate"
	// DataReorder lets data records on a link overtake each other for window_ns.
	DataReorder Kind = "data.reorder"
)

// Storage faults, on one durable store (store) or on all of them (store empty). The kinds
// that take a probability also take key: when set, only operations on keys that start with
// it are hit (a list by its prefix), so that one copy of a value written twice, or one
// checkpoint's state, fails while the rest of the store works. Deletes are writes: a
// write fault hits them too (a delete that fails, or with StorageLost one acknowledged that
// did nothing).
const (
	// StorageFail makes writes fail with a probability; the writer is told.
	StorageFail Kind = "storage.fail"
	// StorageReadFail makes reads (gets and lists) fail with a probability; the reader is told.
	// In model: a failed read says nothing about what is stored, so a correct engine retries
	// it, or fails what it was doing, and never takes it for a missing or damaged value (a
	// recovery that then fell back to an older checkpoint would restore state older than
	// output a sink has committed).
	StorageReadFail Kind = "storage.read-fail"
	// StorageSlow makes writes take delay_ns longer: every write, or those under key, each
	// with probability when one is given (slow writes now and then, as a store's tail).
	StorageSlow Kind = "storage.slow"
	// StorageTorn makes writes, with a probability, succeed but store only a prefix; the damage
	// is detected when the data is read back.
	StorageTorn Kind = "storage.torn"
	// StorageCorrupt makes writes, with a probability, succeed but store flipped bytes; the
	// damage is detected when the data is read back.
	StorageCorrupt Kind = "storage.corrupt"
	// StorageUnavailable makes the store refuse every read and write for window_ns.
	StorageUnavailable Kind = "storage.unavailable"
	// StorageLost acknowledges writes and then, with a probability, loses them. Out of model: the
	// protocol trusts an acknowledged write. A job that reads every write back before it
	// relies on it (the engine's default; not with checkpoint.unverified_writes) finds a lost
	// write at once and handles it as a failed one, so there it is survivable, and a
	// generated scenario draws it only there.
	StorageLost Kind = "storage.lost"
)

// External-store faults, on the store every sink writes to: transactions are the
// two-phase-commit sink's; writes are every sink's (records into a transaction, upserts,
// appends).
const (
	// ExternalTimeout makes the store abort transactions open longer than timeout_ns, for
	// window_ns: the classic exactly-once data-loss trap when it is shorter than the time from
	// pre-commit to commit. Out of model: two-phase commit assumes the external system keeps a
	// pre-committed transaction until it is committed or aborted, which is why Flink asks for a
	// transaction timeout longer than the checkpoint interval plus the longest recovery. No
	// protocol can survive its own participant discarding a prepared transaction; the checkers
	// are expected to report the loss.
	ExternalTimeout Kind = "external.timeout"
	// ExternalCommitFail makes commits fail transiently with a probability; a retry may succeed.
	ExternalCommitFail Kind = "external.commit-fail"
	// ExternalWriteFail makes the store refuse a sink's write with a probability, applying
	// none of it, and answer that it failed. In model: the sink fails its task, and the job
	// restores its last checkpoint and writes the records again.
	ExternalWriteFail Kind = "external.write-fail"
	// ExternalWriteLost loses a sink's write on its way to the store with a probability:
	// nothing is applied and nobody is told. In model because the engine verifies its
	// writes: a pre-commit carries the count of records written into its transaction, and
	// an upsert or append sink confirms its count at every snapshot, so a loss fails the
	// snapshot before any checkpoint can count the records as written.
	ExternalWriteLost Kind = "external.write-lost"
)

// Operator actions: not faults, but what a user of the job does at a chosen moment, scheduled
// like faults (at a time or on a trace event) so that scenarios reach the paths they open.
// They are in model, and the swarm never draws them (schedule them in Faults).
const (
	// TriggerSavepoint asks the coordinator for a savepoint now (a user's savepoint request).
	TriggerSavepoint Kind = "trigger.savepoint"
	// TriggerCheckpoint asks the coordinator for a checkpoint now (a manual trigger).
	TriggerCheckpoint Kind = "trigger.checkpoint"
	// ResubmitClaim stops the job, keeping its retained checkpoints, and submits it again
	// from the latest completed one, which the new job claims (Flink's restore mode CLAIM).
	ResubmitClaim Kind = "resubmit.claim"
	// ResubmitNoClaim is ResubmitClaim in restore mode NO_CLAIM: the checkpoint stays the
	// user's, and the new job's first checkpoint holds nothing of it.
	ResubmitNoClaim Kind = "resubmit.no-claim"
	// ResubmitLegacy is ResubmitClaim in restore mode LEGACY: the checkpoint stays the
	// user's, and the new job's checkpoints may build on it.
	ResubmitLegacy Kind = "resubmit.legacy"
	// StopWithSavepoint stops the job with a synchronous savepoint (Flink's
	// stop-with-savepoint without drain): if it completes the job ends there, with its
	// output committed up to it; if it fails the job keeps running.
	StopWithSavepoint Kind = "stop-with-savepoint"
	// StopWithSavepointDrain is StopWithSavepoint with drain: the sources end their input
	// before the savepoint, every task finishes, and the job ends with it; if it fails
	// after its sources ended, the job fails over and runs on.
	StopWithSavepointDrain Kind = "stop-with-savepoint-drain"
	// Rescale stops the job and submits it again from its latest completed checkpoint in
	// restore mode restore_mode (claim unless set), with operator (and the operators forward
	// edges tie to it) at
	// parallelism: keyed state goes by key group, a source's partitions and a sink's
	// transactions to the new tasks. A rescale the engine cannot carry out (see
	// engine.Runtime.Rescale) is not made.
	Rescale Kind = "rescale"
)

// RestoreModes are the restore modes a resubmission or a rescale names, as Flink's
// RestoreMode: the checkpoint restored becomes the new job's (claim), stays the user's
// (no-claim), or is shared with no one deleting it (legacy).
var RestoreModes = []string{"claim", "no-claim", "legacy"}

// MaxRescaleParallelism bounds a rescale's parallelism, as the engine bounds an operator's.
const MaxRescaleParallelism = 1024

// Time faults.
const (
	// ClockSkew skews the timers of one host by skew_ppm for window_ns: a timer set for d
	// nanoseconds fires after d + d*skew_ppm/1e6.
	ClockSkew Kind = "clock.skew"
)

// field is one parameter of a Fault, as a bit in a fieldSet.
type field uint16

const (
	fieldTask field = 1 << iota
	fieldHost
	fieldFrom
	fieldTo
	fieldOneWay
	fieldMessage
	fieldStore
	fieldProbability
	fieldWindow
	fieldDelay
	fieldTimeout
	fieldSkew
	fieldKey
	fieldOperator
	fieldParallelism
	fieldRestoreMode
)

// fieldNames are the JSON names of the fields, used in errors; the order is the bit order.
var fieldNames = []string{
	"task", "host", "from", "to", "oneway", "message", "store", "probability",
	"window_ns", "delay_ns", "timeout_ns", "skew_ppm", "key", "operator", "parallelism", "restore_mode",
}

func (f field) name() string {
	for i, name := range fieldNames {
		if f == 1<<i {
			return name
		}
	}
	panic("faults: unknown field bit")
}

// kindInfo is what the package knows about a kind: which fields it takes and needs, whether it
// lasts for a window, and whether it stays within the protocol's model.
type kindInfo struct {
	allowed    field
	required   field
	windowed   bool
	outOfModel bool
	// action: an operator action, which the swarm never draws.
	action bool
}

// linkFields are the two ends of a link.
const linkFields = fieldFrom | fieldTo

// kindTable is consulted by lookup only; anything that walks the kinds uses allKinds, which
// fixes the order.
var kindTable = map[Kind]kindInfo{
	CrashTask:        {allowed: fieldTask, required: fieldTask},
	CrashHost:        {allowed: fieldHost | fieldWindow, required: fieldHost | fieldWindow, windowed: true},
	CrashCoordinator: {},
	PauseHost:        {allowed: fieldHost | fieldWindow, required: fieldHost | fieldWindow, windowed: true},
	RestartDelay:     {allowed: fieldDelay | fieldWindow, required: fieldDelay | fieldWindow, windowed: true},

	NetDrop: {allowed: fieldMessage | linkFields | fieldProbability | fieldWindow,
		required: fieldMessage | fieldProbability | fieldWindow, windowed: true},
	NetBreak:     {allowed: linkFields, required: linkFields},
	NetDelay:     {allowed: linkFields | fieldDelay | fieldWindow, required: linkFields | fieldDelay | fieldWindow, windowed: true},
	NetPartition: {allowed: linkFields | fieldOneWay | fieldWindow, required: linkFields | fieldWindow, windowed: true},
	NetClog:      {allowed: linkFields | fieldWindow, required: linkFields | fieldWindow, windowed: true},

	DataDrop: {allowed: linkFields | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true, outOfModel: true},
	DataDuplicate: {allowed: linkFields | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true, outOfModel: true},
	DataReorder: {allowed: linkFields | fieldWindow, required: fieldWindow, windowed: true, outOfModel: true},

	StorageFail: {allowed: fieldStore | fieldKey | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},
	StorageReadFail: {allowed: fieldStore | fieldKey | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},
	StorageSlow: {allowed: fieldStore | fieldKey | fieldProbability | fieldDelay | fieldWindow,
		required: fieldDelay | fieldWindow, windowed: true},
	StorageTorn: {allowed: fieldStore | fieldKey | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},
	StorageCorrupt: {allowed: fieldStore | fieldKey | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},
	StorageUnavailable: {allowed: fieldStore | fieldWindow, required: fieldWindow, windowed: true},
	StorageLost: {allowed: fieldStore | fieldKey | fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true, outOfModel: true},

	ExternalTimeout: {allowed: fieldTimeout | fieldWindow, required: fieldTimeout | fieldWindow,
		windowed: true, outOfModel: true},
	ExternalCommitFail: {allowed: fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},
	ExternalWriteFail: {allowed: fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},
	ExternalWriteLost: {allowed: fieldProbability | fieldWindow,
		required: fieldProbability | fieldWindow, windowed: true},

	ClockSkew: {allowed: fieldHost | fieldSkew | fieldWindow, required: fieldHost | fieldSkew | fieldWindow, windowed: true},

	TriggerSavepoint:  {action: true},
	TriggerCheckpoint: {action: true},
	ResubmitClaim:     {action: true},
	ResubmitNoClaim:   {action: true},
	ResubmitLegacy:    {action: true},
	StopWithSavepoint: {action: true},

	StopWithSavepointDrain: {action: true},
	Rescale:                {allowed: fieldOperator | fieldParallelism | fieldRestoreMode, required: fieldOperator | fieldParallelism, action: true},
}

// allKinds lists every fault kind in a fixed order: the order of swarm draws and of Kinds.
// The operator actions come after them, in actionKinds, so that adding one never shifts a
// swarm's draws.
var allKinds = []Kind{
	CrashTask, CrashHost, CrashCoordinator, PauseHost, RestartDelay,
	NetDrop, NetBreak, NetDelay, NetPartition, NetClog,
	DataDrop, DataDuplicate, DataReorder,
	StorageFail, StorageSlow, StorageTorn, StorageCorrupt, StorageUnavailable, StorageLost,
	ExternalTimeout, ExternalCommitFail,
	ClockSkew,
}

// operationKinds are the faults on single storage operations, added after the swarm's
// kinds were fixed. The swarm does not draw them: one more kind in allKinds would shift
// every later draw of every swarm, and so every swarm run recorded so far. Schedules
// (and so the generator's schedules) use them like any other kind.
var operationKinds = []Kind{StorageReadFail, ExternalWriteFail, ExternalWriteLost}

var actionKinds = []Kind{TriggerSavepoint, TriggerCheckpoint, ResubmitClaim, ResubmitNoClaim, ResubmitLegacy, StopWithSavepoint, StopWithSavepointDrain, Rescale}

// Kinds returns every kind, the swarm's faults, the operation faults, then operator
// actions, in a fixed order.
func Kinds() []Kind {
	return slices.Concat(allKinds, operationKinds, actionKinds)
}

// Swarmable reports whether a swarm may draw k: not an operator action, and not one of
// the operation faults added after the swarm's draws were fixed. It panics on an unknown
// kind.
func (k Kind) Swarmable() bool { return !k.Action() && !slices.Contains(operationKinds, k) }

// Action reports whether k is an operator action rather than a fault. It panics on an
// unknown kind.
func (k Kind) Action() bool { return k.info().action }

// Known reports whether k is a fault kind this package can inject.
func (k Kind) Known() bool {
	_, ok := kindTable[k]
	return ok
}

// OutOfModel reports whether k breaks an assumption the protocol is entitled to make, so that
// a run using it is expected to end in a violation. It panics on an unknown kind.
func (k Kind) OutOfModel() bool { return k.info().outOfModel }

// Windowed reports whether k lasts for a window (window_ns) and is then undone, rather than
// happening at one instant. It panics on an unknown kind.
func (k Kind) Windowed() bool { return k.info().windowed }

// dataFault reports whether k acts on data records, which travel only on data channels.
func (k Kind) dataFault() bool { return k == DataDrop || k == DataDuplicate || k == DataReorder }

func (k Kind) info() kindInfo {
	info, ok := kindTable[k]
	if !ok {
		panic("faults: unknown kind " + string(k))
	}
	return info
}

// Message is a class of protocol message that NetDrop can drop.
type Message string

// The message classes. Barriers travel on data channels with the records; the other three are
// control messages between the coordinator and the tasks.
const (
	MessageBarrier Message = "barrier" // checkpoint barrier on a data channel
	MessageTrigger Message = "trigger" // coordinator -> source: start checkpoint n
	MessageAck     Message = "ack"     // task -> coordinator: snapshot n done (or declined)
	MessageNotify  Message = "notify"  // coordinator -> task: checkpoint n completed or aborted
)

var allMessages = []Message{MessageBarrier, MessageTrigger, MessageAck, MessageNotify}

// Coordinator is the endpoint name of the checkpoint coordinator, in links and triggers; it is
// also the trace's task id for the coordinator.
const Coordinator = "coordinator"
