package trace

import "slices"

// The kinds of schema v1. The comment after each names the fields it uses beyond seq, t and
// kind; "attrs:" lists attributes (Event.Attrs) that producers should set and checkers read.
const (
	// Coordinator and checkpoint lifecycle.
	// KindCheckpointRequest: a checkpoint is asked for and its id reserved, before it can
	// start (its id persisted, room for it among those in flight). A coordinator that traces
	// requests makes every checkpoint visible from the moment it is asked for, so one that
	// never starts cannot vanish unseen; checkpoint.trigger follows when it starts, and
	// checkpoint.complete or checkpoint.abort ends it either way.
	KindCheckpointRequest  = "checkpoint.request"  // task=coordinator cp
	KindCheckpointTrigger  = "checkpoint.trigger"  // task=coordinator cp; attrs: savepoint=true, stop=true, periodic=true, start
	KindCheckpointPersist  = "checkpoint.persist"  // task=coordinator cp: metadata write to the completed-checkpoint store begins
	KindCheckpointComplete = "checkpoint.complete" // task=coordinator cp: the metadata write is durable
	KindCheckpointAbort    = "checkpoint.abort"    // task=coordinator cp reason
	KindCoordinatorCrash   = "coordinator.crash"   // task=coordinator; reason when it failed by itself
	KindCoordinatorRecover = "coordinator.recover" // task=coordinator cp: latest completed id read back from the store (0: none)
	KindJobFailover        = "job.failover"        // task=coordinator cp reason: the job restarts from cp
	KindJobFinish          = "job.finish"          // task=coordinator: the engine reports the job finished; attrs: stop
	// KindJobResubmit says that the job was stopped, its retained checkpoints kept, and
	// submitted again from checkpoint cp in restore mode (attr mode: claim, no-claim or
	// legacy). The coordinator.crash of the stopped job follows; the new job's
	// coordinator.recover names cp.
	KindJobResubmit = "job.resubmit" // task=coordinator cp; attrs: mode

	// Barriers and snapshots at the tasks.
	KindBarrierSend   = "barrier.send"   // task to cp
	KindBarrierRecv   = "barrier.recv"   // task from cp
	KindSnapshotTaken = "snapshot.taken" // task cp; attrs: state, sent.<to>, recv.<from>, chan.<from>, out.<to>, tokens, chantokens.<from>, chanmsgs.<from>, chanmore.<from>
	// KindSnapshotCarried says that checkpoint cp holds task's final snapshot, the one it
	// took for the earlier checkpoint taken (attr), instead of a snapshot of its own: a task
	// that finished emits nothing more, so its last state stands for every later cut. It
	// comes before the checkpoint's checkpoint.persist, when the cut is fixed.
	KindSnapshotCarried = "snapshot.carried" // task cp; attrs: taken
	KindSnapshotAck     = "snapshot.ack"     // task cp; attrs: final=true
	KindSnapshotDecline = "snapshot.decline" // task cp reason
	// KindStateRelease says that the state task uploaded for checkpoint cp (the checkpoint
	// the snapshot was taken for, which a carried snapshot keeps) is gone: the engine
	// deleted it, or dropped it where it lived inline, in a message or in the metadata of
	// checkpoints no longer kept. Deletion is idempotent, so a snapshot may be released twice.
	KindStateRelease = "state.release" // task cp
	// KindPieceRelease says that a shared piece of incremental state (attr piece, its
	// handle), which task uploaded for checkpoint cp, is deleted. The pieces a snapshot
	// refers to are listed in its snapshot.taken (attr pieces).
	KindPieceRelease = "piece.release" // task cp; attrs: piece
	// KindStateLive says what the checkpoint storage holds at the end of a run, as the
	// storage itself sees it, not as the engine believes: the shared pieces still stored
	// (attr pieces, handles; a piece whose delete is in flight is not listed) and the bytes
	// of all checkpoint state stored (attr bytes). A harness that can look into the storage
	// emits it last; it is what tells a delete that took effect from one that was lost.
	KindStateLive = "state.live" // attrs: pieces, bytes

	// Split sources: the coordinator's split enumerator hands a source's splits to its
	// readers (the source's tasks). KindSplitAssign: the coordinator sends split (attr) to
	// reader to, or sends it again. KindSplitAdd: reader task takes split (attr) and reads it
	// from its start. A reader's snapshot.taken (and a carried final one) lists the splits
	// it holds with their offsets (attr splits), and the checkpoint.trigger of a job with
	// split sources lists the splits the enumerator still held (attr unassigned).
	KindSplitAssign = "split.assign" // task=coordinator to; attrs: split
	KindSplitAdd    = "split.add"    // task; attrs: split

	// Triggers and cancel markers at the tasks.
	// KindTriggerRecv: task takes the coordinator's trigger of checkpoint cp in, before it
	// handles it. Only a task the coordinator triggers directly (a source, or a task whose
	// upstreams have all finished) receives one.
	KindTriggerRecv = "trigger.recv" // task cp
	// KindMarkerSend and KindMarkerRecv: a cancel marker of checkpoint cp goes onto task's
	// channel to task to, or task takes one in from task from. A cancel marker says in band
	// that the sender gave its part of cp up, so the receiver stops waiting for its barrier.
	KindMarkerSend = "marker.send" // task to cp
	KindMarkerRecv = "marker.recv" // task from cp

	// Listener notifications, as delivered to a task's listeners.
	KindNotifyComplete = "notify.complete" // task cp
	KindNotifyAbort    = "notify.abort"    // task cp

	// Task lifecycle.
	KindTaskCrash   = "task.crash"   // task
	KindTaskRestore = "task.restore" // task cp (0: fresh start); attrs: state
	KindTaskFinish  = "task.finish"  // task: a bounded task has processed all input and exits; attrs: stop

	// Sinks and the external transactional store.
	KindSinkWrite     = "sink.write"     // task txn rid; attrs: value
	KindSinkWrites    = "sink.writes"    // task txn; attrs: rids, values
	KindSinkPrecommit = "sink.precommit" // task cp txn
	KindSinkCommit    = "sink.commit"    // task cp txn; attrs: records, start
	KindSinkAbort     = "sink.abort"     // task txn reason
	KindSinkRead      = "sink.read"      // task=reader id; attrs: records, start
	// The committed output, as the checkers replay it: sink.write puts record rid into
	// transaction txn; sink.commit makes that transaction's records visible, cp naming the
	// checkpoint whose transaction it is and records counting the records this commit made
	// visible (0 for a repeated, idempotent commit, or when the store had dropped the
	// transaction). KindSinkUpsert is an idempotent sink writing rid straight into the store,
	// replacing any earlier value for rid: visible at once, with no transaction or commit.
	// KindSinkWrites is a run of sink.write events of one transaction in one line: attrs rids
	// and values list the records' ids and values in write order, each list joined by single
	// spaces (so neither may contain a space), both of the same length. It means exactly
	// what the sink.write events it stands for would, in that order; an emitter that writes
	// records in batches uses it because one event per batch costs a fraction of one per
	// record.
	KindSinkUpsert = "sink.upsert" // task rid; attrs: value, start

	// Records, in detailed traces only.
	KindRecordSend = "record.send" // task to rid
	KindRecordRecv = "record.recv" // task from rid

	// Harness events.
	// KindContractBroken: the engine met something the protocol's contract rules out (a
	// second snapshot request for one checkpoint, channel state for a checkpoint that is
	// not recording, an error where the contract promises none) and halted the job rather
	// than go on from a state it cannot trust. Attr what names the broken promise; detail
	// says more, for a person.
	KindContractBroken = "contract.broken" // task cp; attrs: what, detail

	KindFault = "fault" // fault; attrs: the fault's own parameters
	KindPhase = "phase" // attrs: phase=fault|heal|liveness|end
)

// Attribute keys with a fixed meaning across kinds.
const (
	// AttrState is a digest of a task's state (operator state and source offsets) at a
	// snapshot or a restore; restore fidelity compares the two.
	AttrState = "state"
	// AttrSentPrefix + task counts records sent to that task before the snapshot, including
	// those the snapshot's own barrier then overtook in the sender's output queue (counted
	// again in out.<task>).
	AttrSentPrefix = "sent."
	// AttrRecvPrefix + task counts records consumed from that task before the snapshot.
	AttrRecvPrefix = "recv."
	// AttrChanPrefix + task counts records from that task stored as channel state.
	AttrChanPrefix = "chan."
	// AttrOutPrefix + task counts the records to that task that an unaligned barrier
	// overtook in the sender's output queue and that the sender's snapshot stores as
	// output-side channel state: they were sent before the snapshot (so they are in sent.)
	// but reach the receiver after its barrier (so they are in neither its recv. nor its
	// chan.), and a restore emits them again.
	AttrOutPrefix = "out."
	// AttrTaken names, on snapshot.carried, the checkpoint the carried snapshot was taken for.
	AttrTaken = "taken"
	// AttrTokens is the token balance a process holds at its snapshot (token workloads).
	AttrTokens = "tokens"
	// AttrPieces lists, on snapshot.taken of an incremental snapshot, the handles of the
	// shared pieces it refers to (uploaded for it or reused), separated by ListSeparator.
	AttrPieces = "pieces"
	// AttrPieces also lists, on state.live, the pieces still stored.
	// AttrPiece names, on piece.release, the handle of the piece deleted.
	AttrPiece = "piece"
	// AttrSplit names, on split.assign and split.add, the split given.
	AttrSplit = "split"
	// AttrSplits lists, on a split source's reader's snapshot.taken or snapshot.carried, the
	// splits it holds as split=offset items (see ListSeparator); empty when it holds none.
	AttrSplits = "splits"
	// AttrUnassigned lists, on the checkpoint.trigger of a job with split sources, the
	// splits the enumerator held as the triggers went out: its state in the checkpoint.
	AttrUnassigned = "unassigned"
	// AttrBytes counts, on state.live, the bytes of checkpoint state stored.
	AttrBytes = "bytes"
	// AttrMode names, on job.resubmit, the restore mode: claim, no-claim or legacy.
	AttrMode = "mode"
	// AttrRescale names, on a job.resubmit that rescales the job, the operator given a new
	// parallelism (AttrParallelism); operators forward edges tie to it follow it.
	AttrRescale     = "rescale"
	AttrParallelism = "parallelism"
	// AttrTasks lists, on a job.resubmit that rescales the job, every task of the rescaled
	// job (see ListSeparator): from then on they are the job's tasks, and the earlier ones
	// that it does not list are gone for good.
	AttrTasks = "tasks"
	// AttrKeyGroups is, on the snapshot.taken and task.restore of a task of an operator
	// keyed by key group, the key groups it owns as "first-last".
	AttrKeyGroups = "keygroups"
	// AttrRescaledFrom lists, on the task.restore of a job rescaled from that checkpoint,
	// the earlier job's tasks whose snapshots the task read (see ListSeparator); NoneRead
	// when it read none (a stateless task).
	AttrRescaledFrom = "rescaled-from"
	// NoneRead is the value of AttrRescaledFrom for a task that read no snapshot: an empty
	// value would leave the attribute out of the trace.
	NoneRead = "-"
	// AttrUnionPrefix + state lists, on the snapshot.taken of a task that keeps union list
	// state named state, the entries it holds, and on the rescaled task.restore of such a
	// task the entries it kept of the union it was given: "key:value" items (see
	// ListSeparator), for a source's offsets "partition:offset". Union state is given whole
	// to every task of the rescaled job, each of which keeps its share.
	AttrUnionPrefix = "union."
	// AttrReplayed lists, on the rescaled task.restore of a job whose checkpoints may hold
	// channel state, how many records of each earlier snapshot's channel state the task
	// replayed, as "task:count" items (see ListSeparator); NoneRead when it replayed none.
	AttrReplayed = "replayed"
	// AttrChanTokensPrefix + task sums the tokens recorded in flight from that task.
	AttrChanTokensPrefix = "chantokens."
	// AttrChanMsgsPrefix + task lists the messages recorded in flight from that task, in
	// the order they arrived: each message's tokens in decimal, separated by single spaces
	// (ListSeparator), so that a global snapshot can be compared message by message. The
	// list is bounded: an emitter may list only the first messages (ckptsim lists at most
	// engine.MaxListedChannelMessages), and then sets AttrChanMorePrefix + task to the number
	// it left out; chan.<task> always counts them all. A channel that recorded nothing has
	// no list (an emitter may also write an empty one). Token workloads, on snapshot.taken.
	AttrChanMsgsPrefix = "chanmsgs."
	// AttrChanMorePrefix + task counts the recorded messages from that task that
	// chanmsgs.<task> leaves out; absent when the list is whole.
	AttrChanMorePrefix = "chanmore."
	// AttrRecords counts records: committed by a sink.commit, or seen by a sink.read.
	AttrRecords = "records"
	// AttrStart is the virtual time, in nanoseconds, at which an operation that ends with this
	// event began (sink.commit, sink.read), for linearizability checks; on a checkpoint.trigger,
	// when the coordinator decided to take the checkpoint, if before the trigger (the pause
	// between checkpoints is judged there).
	AttrStart = "start"
	// AttrValue is the value a sink wrote for a record.
	AttrValue = "value"
	// AttrRIDs and AttrValues list the record ids and values of a sink.writes, separated by
	// single spaces (see ListSeparator), in the same order.
	AttrRIDs   = "rids"
	AttrValues = "values"
	// AttrSavepoint marks a checkpoint.trigger of a savepoint.
	AttrSavepoint = "savepoint"
	// AttrStop marks a checkpoint.trigger of a stop-with-savepoint (with savepoint=true).
	// On task.finish and job.finish it names the stop-with-savepoint whose completion ended
	// the task or the job before its input did; on a source's snapshot.taken or
	// snapshot.carried for one, it lists the source's offsets there as split=offset items
	// (see ListSeparator).
	AttrStop = "stop"
	// AttrDrain marks a checkpoint.trigger of a stop-with-savepoint with drain (with
	// stop=true): its sources end their input before their snapshot, so every task
	// finishes (task.finish without stop) before the job ends with it.
	AttrDrain = "drain"
	// AttrPeriodic marks a checkpoint.trigger of the periodic schedule: the interval and the
	// minimum pause pace these, not a checkpoint asked for outside the schedule.
	AttrPeriodic = "periodic"
	// AttrFinal marks a snapshot.ack of a final snapshot: one a task took after its input
	// ended, which later checkpoints and savepoints may carry instead of a snapshot of their
	// own.
	AttrFinal = "final"
	// AttrPhase names the phase a phase event starts.
	AttrPhase = "phase"
	// AttrWhat names the promise of the protocol's contract a contract.broken event says
	// was broken ("snapshot-request", "receive", ...); AttrDetail says more, for a person.
	AttrWhat   = "what"
	AttrDetail = "detail"
)

// ListSeparator separates the items of a list attribute (rids and values of sink.writes,
// chanmsgs.<task> of snapshot.taken).
const ListSeparator = " "

// kinds lists every kind above; schema_test.go keeps it in step with the constants.
var kinds = []string{
	KindCheckpointRequest, KindCheckpointTrigger, KindCheckpointPersist, KindCheckpointComplete, KindCheckpointAbort,
	KindCoordinatorCrash, KindCoordinatorRecover, KindJobFailover, KindJobFinish, KindJobResubmit,
	KindBarrierSend, KindBarrierRecv, KindSnapshotTaken, KindSnapshotCarried, KindSnapshotAck, KindSnapshotDecline,
	KindStateRelease, KindPieceRelease, KindStateLive,
	KindSplitAssign, KindSplitAdd,
	KindTriggerRecv, KindMarkerSend, KindMarkerRecv,
	KindNotifyComplete, KindNotifyAbort,
	KindTaskCrash, KindTaskRestore, KindTaskFinish,
	KindSinkWrite, KindSinkWrites, KindSinkPrecommit, KindSinkCommit, KindSinkAbort, KindSinkRead, KindSinkUpsert,
	KindRecordSend, KindRecordRecv,
	KindContractBroken,
	KindFault, KindPhase,
}

// Kinds returns every kind of the schema, so that tools which take a kind as input (fault
// triggers, filters) can reject a misspelt one instead of silently matching nothing.
func Kinds() []string { return slices.Clone(kinds) }

// IsKind reports whether kind is one of the schema's kinds.
func IsKind(kind string) bool { return slices.Contains(kinds, kind) }
