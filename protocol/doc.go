/*
Package protocol is the checkpoint protocol of ckptsim: Flink-style
asynchronous barrier snapshots, written so that any stream processor can
embed it. It is sans I/O, in the manner of etcd raft's RawNode: the protocol
is a set of values the host steps. The host calls methods with inputs
(messages that arrived, the current virtual time, the outcome of I/O it was
asked to do) and collects outputs (messages to send, snapshots to take,
writes to make durable, listener calls to make). The protocol never reads a
clock, never starts a goroutine, never blocks and never touches a network
or a disk, so a simulator can drive it deterministically and a real engine
can drive it with real I/O, and both run the same code.

# A host loop

In outline, a host on one goroutine (the examples show complete hosts:
Example_pipeline, Example_crashAndRestore, Example_boundedInput, and
Example_live, with the coordinator and every task on a goroutine of its
own):

	c, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, now)
	t, err := protocol.NewTask(cfg.TaskConfig(id, topo.Inputs(id), topo.Outputs(id)))
	for {
		switch in := next(); in.kind { // whatever happened first
		case deadline: // now reached c.NextDeadline() or t.NextDeadline()
			c.Tick(now)
			t.Tick(now)
		case toCoordinator: // an ack, decline or task-finished message
			c.Step(now, in.message)
		case counterWritten, metadataWritten: // a write the coordinator asked for
			c.CounterPersisted(now, in.value, in.err) // or MetadataPersisted
		case toTask: // a trigger or a notification
			t.Step(now, in.message)
		case record: // the next data buffer of input i, left in its channel while t.Blocked(i)
			switch a := t.Admit(in.input); a.Action {
			case protocol.AdmitRecord: // a copy goes into a.Checkpoint's channel state
				record(a.Checkpoint, in.record)
				process(in.record)
			case protocol.AdmitProcess:
				process(in.record)
			}
		case event: // a barrier, cancel marker or end of data on input i
			t.Receive(now, in.input, in.event)
		case uploaded: // a snapshot the task asked for is durable
			t.SnapshotCompleted(now, in.checkpoint, in.snapshot)
		}
		for c.HasReady() {
			handle(c.Ready()) // every field, in order: "Driving the coordinator"
		}
		for t.HasReady() {
			handle(t.Ready()) // every field, in order: "Driving a task"
		}
	}

# The API at a glance

	c, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{HighestID: n, Completed: store}, now)
	c.Tick(now)                         // at c.NextDeadline(): expiry, re-sends, triggers
	c.Step(now, msg)                    // MsgAck, MsgDecline, MsgTaskFinished
	c.CounterPersisted(now, value, err) // after writing rd.CounterWrites[i]
	c.MetadataPersisted(now, id, err)   // after writing rd.MetadataWrites[i]
	c.TriggerCheckpoint(now)            // outside the schedule
	c.TriggerSavepoint(now)             // returns the savepoint's id; forced, or waits for a slot
	c.RequestFailover(now, reason)      // then, once the plan is carried out: c.JobRestarted(now)
	rd := c.Ready()                     // CoordinatorReady; c.HasReady() says whether there is one
	c.LatestRestorable()                // what a coordinator.recover event names
	c.Status()                          // CoordinatorStatus: a copy, for tests and statistics

	t, err := protocol.NewTask(cfg.TaskConfig(id, inputs, outputs))
	t.Restore(now, from, snapshot)      // first input, or never (a fresh start)
	t.Step(now, msg)                    // MsgTrigger, MsgNotifyComplete, MsgNotifyAborted
	t.Receive(now, input, event)        // a channel event on input index input
	t.Admit(input)                      // per data buffer: AdmitProcess, AdmitBlock or AdmitRecord
	t.Blocked(input)                    // whether Admit would answer AdmitBlock
	t.Tick(now)                         // at t.NextDeadline(): alignment timeouts
	t.SnapshotCompleted(now, id, snap)  // or t.SnapshotFailed(now, id, reason)
	t.Finish(now)                       // the task produced its last record
	rd := t.Ready()                     // TaskReady; t.HasReady() says whether there is one
	t.Status()                          // TaskStatus: a copy, for tests and statistics

The package's exported API is pinned, one declaration a line, in
testdata/api.golden; TestExportedAPIIsPinned fails on any change until the
listing is rewritten, so that what embedders compile against changes only
on purpose.

# The parts

  - Coordinator: one per job. Triggers checkpoints, collects
    acknowledgements, has completed checkpoints made durable, notifies
    tasks, aborts what cannot complete, decides when the job must fail over
    and from which checkpoint it restarts.
  - Task: one per parallel task instance and incarnation (a restarted task
    gets a new Task). Handles barriers on the task's input channels in the
    job's mode, asks for snapshots, acks or declines them, forwards barriers
    and cancel markers, filters notifications into the listener contract.
  - Listener: what the host's operators implement to hear about completed
    and aborted checkpoints; its documentation states the contract.
  - TwoPhaseCommit: the bookkeeping of an exactly-once sink.

The values a host moves around are small flat structs with a stable
String(): Message (control plane, coordinator <-> task), ChannelEvent (data
plane, in band with records: barrier, cancel marker, end of data, end of
partition), TaskSnapshot, CompletedCheckpoint. Every output slice handed to
the host belongs to the host: the protocol never writes it again, so the
host may keep it as long as it likes. (The slices of consecutive Readys may
share an array, their capacity clipped, which is why a busy task allocates
less than once per checkpoint; an append by the host copies. Only the
slices that hold whole checkpoints, MetadataWrites, Completed and
Discarded, are allocated on their own: per checkpoint the coordinator
allocates those three and the task states, plus a share of the arrays the
other slices come from; ready_alloc_test.go pins it.)

Every enum (Kind, Mode, Reason, MessageType, EventType, NotificationType,
AdmitAction, TransactionActionType) renders as its constant's name without
the prefix, in kebab case: ReasonTooManyPending is "too-many-pending". The
String methods are generated from the constants (go generate runs
internal/enumgen), and traces and golden files depend on the texts.

# Keyed literals

The structs that carry a record whole, and may gain a field, start with a
blank field `_ struct{}`, which costs no memory and makes an unkeyed
literal (protocol.Message{protocol.MsgAck, ...}) a compile error, so that a
field added later cannot shift the meaning of a host's literal: what the
host fills in (Config, TaskConfig, Topology, Durable, TaskSnapshot,
ChannelStateHandle, TwoPhaseCommitState), what travels between the
coordinator and the tasks (Message, ChannelEvent), and what the protocol
hands out (CoordinatorReady, TaskReady and their elements: SnapshotRequest,
Send, Abort, TriggeredCheckpoint, CompletedCheckpoint, StateRelease,
FailoverPlan, TransactionAction; CoordinatorStatus and TaskStatus). The
small values whose fields are the whole of their meaning keep unkeyed
literals possible: ChannelID, SourceOffset, TaskState, PendingTransaction,
Admission and Notification, and the error types. The blank field is
first: a zero-size field last would add padding.

# Assumptions

Data channels are FIFO and lossless while both ends live: records and
channel events arrive in the order they were sent, exactly once. (Losing or
reordering records breaks exactly-once by definition; a broken channel must
fail the tasks at both ends, as a lost TCP connection does.) Control
messages (Message) may be lost, delayed, duplicated or reordered: the
protocol stays safe and regains progress through timeouts and newer
checkpoints. Durable storage answers every write with success or failure,
and a write reported as successful is durable; a write reported as failed
must not become visible later, nor may a write of a coordinator
incarnation that died become visible after its successor read storage
(fence it, with a lease or an epoch). Virtual time passed to one value never goes
backwards. Calls to one value are serialised by the host.

# Ids

CheckpointID is a uint64 that strictly increases over the life of a job,
across coordinator incarnations; 0 means "none". TaskID is a stable name
("sum-2") that survives restarts. ChannelID names a data channel by its two
tasks (and an index when there are several). A Task refers to its channels
by index into TaskConfig.Inputs and TaskConfig.Outputs (in the order of
Topology.Inputs and Topology.Outputs when Config.TaskConfig is given
those), which keeps the per-record path free of string hashing.

CompletedCheckpoint.Tasks is in Topology.Tasks order, and a stored
checkpoint of another topology is refused by NewCoordinator.
CompletedAt is the time of the last ack: the time the store holds (the
confirmation's time is never durable anywhere).

# Configuration

DefaultConfig returns a valid Config; Config.Validate names the field
that is wrong (*ConfigError). Config.TaskConfig derives a task's
TaskConfig from the job's, with WaitForFinalCheckpoint always set.
Topology lists the tasks and channels; Topology.Cycle returns one cycle
(its first task repeated at the end), nil if the graph is acyclic.

# Driving the coordinator

Build it with NewCoordinator(cfg, topology, durable, now). For a new job
durable is the zero Durable; after a coordinator crash it is what the host
reads back from durable storage (the id counter and the completed-checkpoint
store). Then loop:

 1. Call Tick(now) when now reaches NextDeadline() (more often is harmless):
    periodic triggers, timeouts and re-sent notifications happen there.

 2. Pass every control message from a task to Step(now, m).

 3. After every call, take Ready() and handle its fields in order:

    CounterWrites: write the id counter durably, then call
    CounterPersisted(now, value, err). A checkpoint is triggered only after
    its id is durable. Why: a coordinator that crashes and restarts from
    storage must never hand out an id that a task has already seen, or a
    stale barrier would be taken for a new one. An id reserved but never
    confirmed was never sent anywhere, so losing it is harmless. At most
    one counter write is outstanding: ids reserved meanwhile are covered by
    the next write, asked for only after CounterPersisted for the previous
    one, so writes made in the order asked can never lower the stored
    counter. CounterPersisted for a value that is not the outstanding
    write panics. The stored counter must never go down for another reason
    either: a write of a coordinator incarnation that died must not land
    after its successor read the counter (fence it, with a lease or an
    epoch, or store max(stored, value)), or the successor could hand out
    an id the dead one already used.

    MetadataWrites: add the completed checkpoint to the durable
    completed-checkpoint store, then call MetadataPersisted(now, id, err).
    Only the confirmation completes the checkpoint; a failure aborts it.
    Why: completion notifications let sinks make output visible. If a
    notification could precede durability, a crash could make recovery go
    back behind output that the world has already seen: duplicates or an
    inconsistent cut. The coordinator only emits notifications for a
    checkpoint after this confirmation, so the API shape enforces the
    order. Trace checkpoint.persist before the write starts.

    Triggered, Completed, Aborted: trace them (checkpoint.trigger,
    checkpoint.complete, checkpoint.abort) before sending any of the
    Ready's Messages; use them for statistics too. Completed lists the
    checkpoints whose metadata write was confirmed with
    MetadataPersisted(now, id, nil) since the previous Ready was taken,
    and the Messages of the same Ready carry the completion notifications
    they cause (as they carry the triggers of Triggered and the abort
    notifications of Aborted).
    Why: the checkers order events by their position in the trace. A task
    that receives the notification of n traces notify.complete n, and a
    sink then traces sink.commit; if either lands in the trace before
    checkpoint.complete n, the trace shows output made visible before it
    was durable, on an engine that did nothing wrong. With the coordinator
    and the tasks on different goroutines, a task can run between any two
    steps of the coordinator's host, so only this order is safe (see
    "Tracing").

    Messages: send them, after the trace of the fields above (triggers,
    completion and abort notifications, including re-sent ones; see "Lost
    notifications"). None depends on a write in the same Ready, so they
    may go out at once.

    Discarded: completed checkpoints that fell out of retention; remove
    them from the store. Do not delete their task state because of it:
    state can be shared (a finished task's final snapshot is carried into
    every later checkpoint and savepoint), and the state that is no longer
    held is listed in Released. They are emitted only after the newer
    checkpoint that replaced them is durable, so the store never holds
    fewer restorable checkpoints than it did.

    Released: uploaded task state that nothing will ever use (the state of
    discarded checkpoints and of aborted ones; late, duplicate and unknown
    acks); delete it, after removing the Discarded checkpoints from the
    store. Deletion must be idempotent: the same state may be released
    twice. A release never names a handle that a pending or retained
    checkpoint or a completed savepoint holds; handles should be unique
    per upload (a host whose storage names identical uploads identically
    is safe too: a handle still held is never released). A final snapshot
    of a completed checkpoint is never released, because savepoints may
    share it and the coordinator does not keep their contents: the host
    deletes it with the job, or when it deletes the savepoints. A release
    of an incremental snapshot lists in Pieces the shared pieces to delete
    with it (see "Shared state").

    Failover: restart every task from the plan (see "Failover" below), then
    call JobRestarted(now).

    JobFinished: every task's final snapshot is in a completed checkpoint;
    once every task has exited, the host may stop the coordinator.

The host may call into the coordinator while it handles a Ready (confirm
a write as soon as it is done, say): the state is consistent between any
two calls, and the outputs of the call go into the next Ready. But it
must finish handling the Ready it holds before it takes the next one:
taking it in the middle (recursing) would act on later outputs before
earlier ones.

Request a checkpoint outside the schedule with TriggerCheckpoint and a
savepoint with TriggerSavepoint. Tell the coordinator about a task failure
with RequestFailover.

# Driving a task

Build it with NewTask(cfg.TaskConfig(id, inputs, outputs)). If the task
resumes from a checkpoint, call Restore(now, id, snapshot) before anything
else. Why: the restored id decides which notifications are stale (a
notification at or below it must not commit anything again) and which
barriers are stale; and the host must load the state, rewind sources to the
snapshot's offsets and replay the snapshot's channel state into each input
before any new record of that input, because those records were in flight
across the cut and belong before everything that follows. A snapshot that
is Final restores a finished task, which exits at once (TaskReady.Exit);
the host must still carry out the restore first, above all a sink's
RestoreTwoPhaseCommit actions: the recommits of the restored checkpoint's
transactions are what makes their records visible if the notification
never arrived.

Then, for every input:

  - A data buffer from input i: ask Admit(i). AdmitProcess: process it.
    AdmitBlock: leave it (and everything behind it on that input, events
    included) in the channel; the input is blocked for an aligned
    checkpoint, and processing it now would put post-barrier records into
    the pre-barrier state. AdmitRecord: add a copy to the channel state of
    the named checkpoint, then process it: the record was sent before the
    upstream's snapshot but arrives after this task's, so the checkpoint
    must carry it. Admit allocates nothing and costs a few nanoseconds.
  - A channel event from input i: Receive(now, i, ev). Never deliver an
    event from a blocked input (Blocked(i)); Receive refuses it.
  - A control message: Step(now, m).
  - Upload outcomes: SnapshotCompleted(now, id, snapshot) to ack, or
    SnapshotFailed(now, id, reason) to decline.
  - The virtual time reaching NextDeadline(): Tick(now). Do it before the
    next Admit: Admit takes no time argument, so it answers from the state
    left by the last input.
  - Bounded input exhausted (a source), or every input delivered end of data
    and the operator flushed: Finish(now).

After every call, take Ready() and handle its fields in order, before the
next input:

 1. Snapshots: take each now, synchronously: copy (or mark copy-on-write)
    the operator state, record the source offsets, and pre-commit the
    sink's transaction (TwoPhaseCommit.PreCommit). Nothing may be processed
    between the input that caused the request and the snapshot: the
    snapshot is the cut. Then upload asynchronously. For a request with
    AwaitChannelState, keep recording channel state until the id appears
    in Sealed.
 2. Sends: put each event on its output channel, after the snapshot. An
    aligned barrier goes behind the records already queued (they were
    produced before the snapshot, so they belong before the barrier). A
    Priority barrier (unaligned) may instead jump ahead of queued records,
    never ahead of a queued channel event (barrier, cancel marker, end of
    data or partition): ids on a channel must increase, and the receiver
    relies on events keeping their order. Appending is always correct. If
    it jumps, the overtaken records are output-side channel state of the
    snapshot: keep them with this task's snapshot (in the host's own
    snapshot data, or as a ChannelStateHandle in this task's snapshot whose
    Input names the output channel; its From is this task), and on restore
    emit them on that channel before any new record. The receiver replays
    its own input-side state of the channel first (those records were
    ahead on the channel), then consumes what arrives, so the records come
    out in their original order.
 3. Sealed: the channel state of these unaligned checkpoints is complete:
    finish the upload, then call SnapshotCompleted. Calling it earlier
    returns ErrChannelStateOpen.
 4. Aborted: cancel these uploads and drop their recorded channel state
    (including, at Exit, whatever the task still had in progress).
 5. Released: delete this uploaded state.
 6. Messages: send to the coordinator (acks, declines, task-finished). A
    task declines a stale barrier or trigger of a checkpoint it will not
    take part in, so the coordinator need not wait for the timeout, and
    declines what a cancel marker makes it give up (ReasonCanceled).
 7. Notifications: deliver each to the task's listeners, in order, with
    Notification.Deliver. Why after the snapshots: a notification for n
    commits what the snapshot of n pre-committed, so it must never overtake
    it. A notification for n reaches a task only after every task the
    coordinator expected has acked n, so a snapshot of n at this task was
    requested in an earlier Ready; within one Ready the order above keeps
    snapshots first.
 8. Exit: the task may stop now (after sending the end-of-partition events
    in Sends). Snapshots and alignments it still had in progress were
    given up (listed in Aborted); the coordinator uses its final snapshot
    for them. Whatever the host still delivers to an exited task is
    ignored.

As for the coordinator, calls into the task while a Ready is being handled
are allowed, but the Ready in hand is finished before the next is taken.

# Checkpoint modes

Config.Mode selects one per job; every barrier carries the mode it must be
handled in.

  - ModeAligned (exactly-once): a task blocks each input on which barrier n
    arrived until barrier n arrived on all open inputs, then snapshots and
    forwards the barrier. No channel state. Needs an acyclic graph: on a
    cycle the barrier of the back edge can only arrive after the task
    forwarded it, so NewCoordinator refuses a cyclic topology
    (ErrCyclicTopology, naming the cycle).
  - ModeUnaligned (exactly-once, Chandy-Lamport style): the first barrier
    triggers the snapshot at once; the barrier is forwarded immediately with
    Priority; records arriving on inputs whose barrier has not come yet are
    recorded (AdmitRecord) and replayed on restore. Nothing blocks, so it
    works on cyclic graphs and under backpressure. One checkpoint at a time
    (Config.MaxConcurrent must be 1).
  - ModeAlignedWithTimeout: starts aligned; when the alignment at a task has
    lasted Config.AlignmentTimeout of virtual time (measured from the first
    barrier at that task), the task switches to unaligned: snapshot now,
    forward the barrier as ModeUnaligned, unblock, record. A task that
    receives an unaligned barrier for a checkpoint it is aligning switches
    at once. On a cycle every checkpoint switches at the tasks of the
    cycle, after the timeout.
  - ModeAtLeastOnce: barriers are counted, inputs never block; the snapshot
    is taken when the barrier arrived on every open input. Records that
    overtook the barrier on one input are in the snapshot and replayed after
    recovery: duplicates are expected. Several checkpoints may be counting
    at once; an end of partition that completes several snapshots only the
    newest, as Flink's barrier tracker does, and gives up the older ones.
    Needs an acyclic graph, like ModeAligned: the snapshot waits for the
    back edge's barrier.

Savepoints are aligned in every mode, so a job with a cycle can take none
(TriggerSavepoint returns ErrCyclicTopology), and a job with a cycle
cannot finish bounded input either: the tasks of the cycle never see end
of data on their back edges.

Chandy-Lamport on arbitrary graphs is not a Mode: it has no coordinator
(any process initiates), no sources or sinks, no listener contract, and a
collector instead of a completed-checkpoint store. It lives in package
protocol/chandylamport with an API of its own; a host picks one package
or the other per job (ckptsim's engine uses it for token workloads).

Barrier ids on one channel strictly increase (each task forwards them in
order, channels are FIFO), so a barrier or cancel marker for n on an input
proves that every older checkpoint's barrier will never arrive there. That
is the rule behind "a newer barrier aborts an older pending alignment": the
older checkpoint is declined (ReasonNewerBarrier) and canceled downstream.
A cancel marker for n goes further, as in Flink's barrier handlers: it ends
every older checkpoint still aligning at the task, whichever inputs
delivered its barrier, because the task forwards the marker and nothing
older may follow it on its outputs. A task keeps the rule on what it sends
(it panics rather than break it): a cancel marker it owes while an older
checkpoint still aligns waits until that one's barrier or marker has gone
out, and none is sent once a newer id went downstream.

# Aborts

A checkpoint ends without completing when it times out (ReasonExpired), a
task declines it (upload failure, channel-state overflow, too many pending,
a newer barrier, a stale barrier or trigger), its metadata write fails
(ReasonPersistFailed), its counter write fails (ReasonTriggerFailed), a
newer checkpoint completes first (ReasonSubsumed), or the job fails over.
The coordinator sends MsgNotifyAborted to the tasks that took part (not on
failover: those tasks are being replaced) and releases the state uploaded
for it. A task that abandons a checkpoint while still aligning (or
recording channel state) for it sends a cancel marker on every output, so
that downstream tasks stop waiting for a barrier that will not come, or
stop recording for it. A task that receives a cancel marker declines what
it gives up with its own reason, ReasonCanceled (as Flink's task declines
with CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER), which counts as no
failure. A task told of an abort before anything of the checkpoint reached
it sends a cancel marker in place of the barrier when the checkpoint's
barrier, trigger or marker comes (as Flink's task does since FLINK-18238),
so a downstream task aligning for it does not wait for its own notice.

Aborts of checkpoints (not savepoints) with a reason for which
Reason.CountsAsFailure is true count as failures, unless the checkpoint is
older than the latest completed one (as in Flink's failure manager: its
failure says nothing about whether the job makes progress) or the job has
finished. A completion newer than every earlier one resets the count (an
older one whose metadata write lands late does not); more than Config.TolerableFailures
in a row makes the coordinator ask for a failover. A failover the count
asked for is dropped if the job finishes before the plan goes out.

Late, duplicate and unknown acks are answered with ErrUnknownCheckpoint and
their state is listed in Released, unless it is the very state a pending or
retained checkpoint holds (a duplicated message), or state a savepoint may
hold. A decline from a task that already acked, or whose final snapshot
stands in for it, is ignored: a task declines stale triggers and barriers,
and a duplicate of an old one must not abort a checkpoint it acked.

A metadata write in flight is never expired, subsumed or ended by a
failover request: only the host knows whether it became durable, and the
coordinator must not disagree with the store.

# Failover and recovery

The coordinator emits a FailoverPlan when the host called RequestFailover
or too many checkpoints failed in a row, once no metadata write is in
flight (so the plan names the newest checkpoint the store may hold). Its
Restore field is the latest completed checkpoint that is not a savepoint
(nil: start fresh). The host restarts every task as a new Task, calls
Restore on each with its snapshot from the plan (CompletedCheckpoint.Snapshot)
and then calls JobRestarted. Tasks whose snapshot in the plan is Final had
finished; they exit at once.

A new coordinator incarnation (after a coordinator crash) is built from
Durable: ids continue after Durable.HighestID (and after every stored id),
retention is applied to the store, and the latest completed checkpoint is
announced to every task again, because the old incarnation may have
crashed after the store write and before notifying. Tasks drop what they
have seen. Acks addressed to the old incarnation's checkpoints are unknown
to the new one and their state is released. Whether the job keeps running
or fails over after a coordinator crash is the host's choice
(RequestFailover with ReasonCoordinatorRecovery). Failing over is the safe
default: the new incarnation does not know the old one's unfinished
checkpoints, so it cannot announce their aborts (it could not even be sure
they are over, should a write of the dead incarnation still land). A job
that keeps running has a task still aligning for one of them released by
the barriers of the next checkpoint; with Interval 0 the host triggers one.
A job with split sources must fail over: the new incarnation's split
enumerator starts from the latest checkpoint's state and numbers its
messages afresh, so readers that ran on would be given splits again that
they already hold.

If the coordinator crashes during a failover (after the plan, before
JobRestarted), the new incarnation knows nothing of it: the host calls
RequestFailover on it and restarts every task again from the new plan,
replacing the tasks the old plan started. The new plan names the
checkpoint the old one named: no checkpoint completes between a plan and
JobRestarted, so it is still the latest in the store.

# Bounded input and final checkpoints

A task that produced its last record calls Finish. It sends end of data on
its outputs (no record follows, but barriers still do) and MsgTaskFinished to
the coordinator, and from then on every snapshot it takes is Final. It exits
(TaskReady.Exit, with end of partition on every output, after everything
else it sent) only once it is notified of a checkpoint at or after its first
final snapshot: that checkpoint covers its last records, and for an
exactly-once sink its notification commits the last transaction. Exiting
earlier would lose that commit or make recovery replay records into a task
that no longer exists.

Once a completed checkpoint holds a task's final snapshot, the task is fully
finished: later checkpoints carry the final snapshot over and do not wait
for it, and pending checkpoints that still waited for it take the final
snapshot instead (the task produced no record after it, so it is its
state at their cuts too). That matters because the task exits as soon as
it is notified, giving up (TaskReady.Aborted) whatever it still had in
progress for those checkpoints; they complete without it, and end of
partition releases the downstream alignments that waited for its barrier.
A task none of whose upstream tasks is still running cannot receive a
barrier, so the coordinator triggers it directly, like a source. When
every remaining task has finished, the coordinator triggers the final
checkpoint at once, with or without periodic checkpoints (Config.Interval
0 included; Config.TaskConfig always sets WaitForFinalCheckpoint). When
every task is fully finished the coordinator reports JobFinished; no
checkpoint is left to expire and no failure counts any more.

# Savepoints

TriggerSavepoint reserves an id at once. As in Flink, whose coordinator
forces a savepoint unless unaligned checkpoints are enabled, the savepoint
starts as soon as its id is durable in ModeAligned and ModeAtLeastOnce,
whatever MaxConcurrent says and however many savepoints already run; in
ModeUnaligned and ModeAlignedWithTimeout it waits for a MaxConcurrent slot,
ahead of any checkpoint waiting for one. Why a slot there: an unaligned
barrier is sent with Priority and may overtake an aligned barrier queued
before it; a task that sees the newer barrier first can no longer take
part in the older savepoint. In the other modes nothing is sent with
Priority, so a forced savepoint is safe. Either way a started savepoint
holds a slot like a checkpoint, so checkpoints wait for it, MinPause never
holds a savepoint back (it paces periodic checkpoints, in Flink too), and
its Timeout runs from its start. A savepoint is aligned in every mode (no channel state, so it can be
restored into a changed job); it is never subsumed (a newer checkpoint
completing does not end it, and its completion does not end older
checkpoints); never used for automatic recovery; and never notified as
complete, because it must not commit side effects: a job that later fails
over to an older checkpoint would replay records whose effects the
savepoint had made visible. The coordinator reports it in Completed and
then forgets it: savepoints belong to the user and are not subject to
retention. The state of a completed savepoint is never released (a
savepoint may also hold the final snapshots of finished tasks, shared
with checkpoints); the state acked for an aborted savepoint is released
like any aborted checkpoint's.

# Stop-with-savepoint

StopWithSavepoint takes a synchronous savepoint (KindStopSavepoint) that
ends the job, Flink's stop-with-savepoint without drain. It is a savepoint
in how it is triggered and aligned, and its state is the user's. No
checkpoint is asked for while it is pending (Flink stops the checkpoint
scheduler; one reserved before it still starts, ahead of it). A task that took its snapshot for it reports Stopping: a
source emits nothing more, so the savepoint's cut is the end of the job's
output, and the host does not finish a task's input for the
end-of-partition events of upstream tasks that exit. If it aborts, the
tasks are told as of any abort, the sources go on and checkpoints start
again: the job keeps running (Flink fails the tasks over to the latest
checkpoint instead; either way the job goes on). If it completes, its
completion is announced, so sinks commit up to it (Flink notifies
synchronous savepoints, and only those), every task exits once told, and
the coordinator reports JobFinished. It is also the latest restorable
checkpoint: a failover between its completion and the end of the job
restores from it, never from an older checkpoint whose replay the sinks
that already committed would write twice. Flink keeps it out of the
store and fails such a job, asking the user to restart it from the
savepoint (FLINK-26783); here the coordinator does that restart itself.
A recovered coordinator that finds it latest in the store restores the
job from it, and the job runs on.

DrainWithSavepoint is the same with drain (KindDrainSavepoint), Flink's
stop-with-savepoint --drain: a source ends its input as the trigger
reaches it (end of data goes out ahead of its barrier, and Task.Finished
turns true), every task downstream finishes as end of data reaches it,
and every snapshot of the savepoint is final. Its completion ends the job
as a stop's does. Once its triggers went out its sources cannot read on,
so if it aborts while the job runs the coordinator fails the job over
(ReasonDrainFailed) to the latest checkpoint before it, as Flink fails
the tasks of a failed synchronous savepoint.

# Split sources

A source may leave its splits to the coordinator (Topology.SplitSources),
as Flink's FLIP-27 sources do: a split enumerator on the coordinator's side
hands each reader one split when it asks (Task.RequestSplit, then
TaskReady.Splits, or TaskReady.NoMoreSplits once none is left). Each
checkpoint holds the enumerator's state, the splits no reader was given as
its triggers went out (CompletedCheckpoint.Unassigned, also in
TriggeredCheckpoint), and a restore gives the enumerator back the state of
the checkpoint restored: a split handed out after it is handed out again,
from its start, and one a reader's snapshot holds is read on from there.
That every split is in exactly one of the two at each checkpoint is kept
by numbering the assignments per reader and holding back, at the reader,
an assignment sent while a checkpoint was pending until the reader has
heard of it, and by declining a trigger sent after assignments the reader
has not received (ReasonSplitsInFlight); splits.go says how.

# Shared state

An incremental snapshot uploads only the pieces its task's state gained
since the task's last completed checkpoint, and refers to the earlier
pieces it still needs (TaskSnapshot.Shared). The coordinator is the
registry of those pieces, without a table of its own: a piece is held
while a retained checkpoint or a pending checkpoint's acked snapshot of
the same task refers to it, and a release lists in Pieces the ones that
nothing holds any more. A recovered coordinator holds what the stored
checkpoints refer to, before it releases anything; a piece that only a
lost pending checkpoint referred to is the host's to collect.

A host reuses only pieces of a checkpoint its task was told completed
(never those of a pending one, which may abort and take its uploads
along) and of the latest it heard of. Even so, the checkpoint it built on
may be subsumed before its ack arrives, by a checkpoint whose snapshot of
the task was taken earlier and uploaded the same state afresh. So an ack
that reuses a piece the registry no longer holds aborts its checkpoint
(ReasonSharedStateGone): the piece may be deleted already. The task,
told of the abort, uploads everything afresh next time. A savepoint reuses
nothing: it belongs to the user and must outlive every checkpoint, so an
ack of a savepoint that reuses a piece aborts it the same way.

# Restore modes

A job submitted again from a checkpoint an earlier job retained (Flink's
restore from a retained checkpoint) names it in Durable.Restored, with
its RestoreMode, for every incarnation of its coordinator. Claimed, the
checkpoint is the job's own from then on. Not claimed (no-claim, legacy),
nothing it holds is ever released: not its snapshots, not the pieces
uploaded for it or before it. Under no-claim the job does not build on it
either: an ack that reuses one of its pieces aborts its checkpoint
(ReasonSharedStateGone), so the first checkpoint that completes holds
nothing of it, and the user may delete it from then on. Under legacy
later checkpoints may reuse its pieces, and it can never be deleted
safely. The Completed that the host passes holds the restored
checkpoint and the job's own, not the earlier job's other checkpoints:
those stay the user's.

A job submitted again with another parallelism (a rescale) sets
Restored.Rescaled: the restored checkpoint's snapshots are then the earlier
job's tasks', not the topology's, and the coordinator takes them as they
are (it refuses one holding a final snapshot, which no task of the new job
could take as its own). Redistributing their state is the host's: keyed
state by key group (KeyGroupRangeOf, RescaledFrom name the snapshots a task
of the new parallelism reads), operator state as the host lays it out. A
task of the rescaled job restores with Task.Restore and an empty
TaskSnapshot; its channels are new.

# Lost notifications

Control messages may be lost, and without a newer checkpoint (Interval 0,
or a finished job) nothing would ever repair a lost notification: a
two-phase-commit sink would keep its last transaction uncommitted, and a
task aligning for an aborted savepoint would keep its inputs blocked. So
the coordinator re-sends a notification that has not gone out for
Config.Timeout: the latest completion to every task, and each abort newer
than it (at most MaxPendingCheckpoints of them, the newest) to the tasks
that took part. NextDeadline includes these re-sends; they pause during a
failover. The coordinator sends every completion to every task (fully
finished ones included), and tasks drop duplicates. Hence the last rule of the listener
contract: once faults stop, every live task is eventually notified of the
latest completed checkpoint and of the aborts it may be blocked on.

The same holds the other way for the end of a bounded job without periodic
checkpoints (Interval 0), where the final checkpoint is the only one sure to
come. A finished task tells the coordinator again, every Timeout, that it
finished (TaskConfig.FinishedResend), until a completed checkpoint lets it
exit: the coordinator asks for the final checkpoint only once every task
said so, and a lost message would leave them all waiting. The coordinator
asks for the final checkpoint again when the one it asked for aborts, or
completes without every final snapshot, and no other is pending. With
periodic checkpoints the next periodic one does both jobs.

# Listener contract and two-phase commit

See Listener for the contract, which the task's notification filter
implements per incarnation: completion notifications strictly increasing,
above the restored id, at most once; aborts never at or below an id that
may be complete. See TwoPhaseCommit for an exactly-once sink: pre-commit at
the snapshot, commit everything up to n on the notification of n (the
transactions of aborted checkpoints included, as in Flink), recommit on
restore. Its actions are returned to the host, which performs them
idempotently.

# Limits

Every table has a bound: Config.MaxPendingCheckpoints (pending checkpoints
and savepoints and the aborts kept for re-sending at the coordinator;
alignments, snapshots in flight, acked ids and delivered abort
notifications at a task; at most MaxPendingCheckpointsLimit),
Config.MaxConcurrent, Config.MaxBufferedRecords (channel-state records per
checkpoint at a task; beyond it the task declines with
ReasonChannelStateOverflow), Config.RetainedCheckpoints (at most
MaxRetainedCheckpointsLimit), the completed savepoints remembered
(MaxRetainedCheckpointsLimit), TwoPhaseCommit's maxPending. Hitting a
bound declines or refuses the newest request, or forgets the oldest entry
of a window; it never grows a queue.

# Errors and panics

Expected failures (stale, duplicate or malformed inputs, host requests that
cannot be honoured now) are returned as errors prefixed "protocol:"; the
sentinels work with errors.Is: ErrUnknownCheckpoint (late, duplicate or
unknown), ErrUnknownTask, ErrUnexpectedMessage, ErrTooManyPending,
ErrFailingOver, ErrJobFinished, ErrAlreadyStarted, ErrBadInput,
ErrChannelStateOpen, ErrNotFinishable, ErrCyclicTopology (wrapped with
the cycle) and, for TwoPhaseCommit, ErrTooManyPendingTransactions.
They leave the state as documented by the method. Broken invariants, which
only a bug in the protocol or a host that breaks its obligations can cause
(confirming a metadata write that was never asked for, JobRestarted without
a plan), panic with context.

# Invariant checks

With Config.CheckInvariants set (TaskConfig copies it), the coordinator and
every task check their internal state after each call of the API and panic
with an *InvariantError naming the first broken invariant: pending
checkpoints ordered by id and within MaxPendingCheckpoints and
MaxConcurrent; acknowledgement bookkeeping that matches the acks (a count of
missing snapshots equal to the tasks that owe one, no ack from a task that
does not take part unless its final snapshot is carried); the failure count
within TolerableFailures unless a failover is on its way; only checkpoints
in the completed store, in order; at a task, alignments ordered and bounded,
their missing-barrier counts right, an input blocked or recorded only for a
checkpoint still waiting for its barrier, one snapshot per checkpoint, and
nothing in progress after exit. Simulators and tests turn it on (every run
of ckptsim's simulator does); a host that leaves it off pays one branch per
call. It is a switch rather than a build tag so that a plain
`go run ./cmd/simrun` sweep checks the invariants too. A few assertions
guard a state the very next line relies on (a cancel marker behind a newer
barrier, a pending checkpoint that is not there); they run whatever the
switch says and panic with an *InvariantError as well, so that a host can
tell a broken invariant from a runtime error by the panic's type.

# Tracing

Every event of the ckptsim trace schema maps onto an input or output the
host already handles: checkpoint.trigger is CoordinatorReady.Triggered
(periodic=true and start, its RequestedAt, when TriggeredCheckpoint.Periodic),
checkpoint.persist is a write of MetadataWrites, checkpoint.complete is
Completed, checkpoint.abort is Aborted (with its Reason), barrier.send is
a barrier in TaskReady.Sends, barrier.recv is a barrier passed to
Task.Receive, snapshot.taken is TaskReady.Snapshots, snapshot.ack and
snapshot.decline are MsgAck and MsgDecline in TaskReady.Messages,
notify.complete and notify.abort are TaskReady.Notifications (as
delivered, after filtering), sink.precommit and sink.commit are
TwoPhaseCommit's pre-commit and its commit actions, task.restore is
Task.Restore, and coordinator.recover names LatestRestorable of a
coordinator built from a non-empty Durable.

A few events have no single output of their own:

  - snapshot.carried: a task whose snapshot in a write of MetadataWrites
    was taken for an earlier checkpoint. TaskSnapshot.Carried(cc.ID) says
    so, and TaskSnapshot.TakenFor is the taken attribute. Only a finished
    task's final snapshot is ever carried. Without the event, the task is
    missing from the checkpoint's cut in the trace.
  - task.restore with checkpoint 0: a task that starts fresh, without
    Restore. Trace it for every task as it starts, so that the trace
    names the job's tasks: otherwise a task that finishes early reads as
    the end of the whole job.
  - task.finish: TaskReady.Exit, once the task has handled that Ready;
    with attr stop, the stop-with-savepoint's id, when the task exits
    because that completed rather than at the end of its input.
  - stop-with-savepoint: stop=true on its checkpoint.trigger (a
    TriggeredCheckpoint of KindStopSavepoint; drain=true as well for
    KindDrainSavepoint), and on a source's
    snapshot.taken for it the offsets its snapshot records
    (TaskSnapshot.SourceOffsets, as split=offset items); job.finish names
    it once CoordinatorReady.JobFinished follows its completion.
  - job.failover: a FailoverPlan, naming Restore's id (0 for none).
  - checkpoint.request: TriggerCheckpoint or TriggerSavepoint, when a
    checkpoint may wait for a slot before CoordinatorReady.Triggered.
  - task.crash and coordinator.crash: the host's own failures.
  - trigger.recv: an MsgTrigger as the host passes it to Task.Receive, so
    that the answer a task owes (a snapshot or a decline) can be judged.
  - marker.send and marker.recv: a cancel marker in TaskReady.Sends, and
    one passed to Task.Receive, as barrier.send and barrier.recv are for
    barriers.
  - state.release: the host deletes state CoordinatorReady.Released
    listed (or a late upload it abandons), naming the task and the
    checkpoint the snapshot was taken for. With incremental snapshots,
    snapshot.taken lists the handles of TaskSnapshot.Shared (attribute
    pieces), and piece.release names each piece of StateRelease.Pieces the
    host deletes (task, the piece's UploadedFor, attribute piece).

What each property of package checker needs, event by event, is in that
package's documentation ("Evidence"). A property whose events are missing
is unknown, never passed.

The checkers know when an event happened only from its position in the
trace (its seq): not from its time stamp, nor from the goroutine or the
machine that recorded it. So a host records each event before anything it
causes can be recorded elsewhere, that is, before it sends the message or
channel event that carries it on. A host whose coordinator and tasks run
on different goroutines fixes an event's position when it appends it to
the shared trace (under whatever lock orders the trace), so it appends
first and sends after; a task may run between any two of its steps, and
a pause of a millisecond between sending and tracing is enough to turn
the order around. Event by event:

  - checkpoint.complete n: when the host has learnt that the metadata
    write of n is durable and confirmed it, and before any notification
    of n leaves the coordinator's host. That is, at the call
    MetadataPersisted(now, n, nil), or when the host takes the Ready that
    lists n in Completed (the next one), before it sends any of that
    Ready's Messages: they hold the completion notifications of n.
    Not earlier: the event says the write is durable, and the checkers
    model the store write as lasting from checkpoint.persist n to
    checkpoint.complete n. Not later: a task that received the
    notification traces notify.complete n, and a sink then sink.commit;
    if either comes before checkpoint.complete n in the trace, it reads
    as visible before durable, and listener-contract and
    durable-before-visible fail on a correct engine.
  - checkpoint.persist n: before the metadata write of n starts.
  - snapshot.carried n: once the write of n is in MetadataWrites, before
    checkpoint.complete n (the checkers judge the cut at the completion),
    and after the snapshot.taken it names, which the earlier checkpoint
    traced.
  - checkpoint.trigger and checkpoint.abort: before the triggers and the
    abort notifications in the Messages of their Ready are sent.
  - checkpoint.abort of an id whose counter write failed
    (ReasonTriggerFailed): the id was never durable, so trace it only once
    the counter covers it (write it again), or a recovering coordinator
    could hand out an id the trace already shows aborted. The abort counts
    as a failure at once, and the checkers count failures in trace order:
    until it is traced, hold what bears on the count. Carry out a
    FailoverPlan (the count may have asked for it) and report the outcome
    of a metadata write (a completion starts the count again) only after
    the abort is traced. Leave out the abort of a savepoint that never
    started: only checkpoint.trigger marks a savepoint, so its abort would
    read as a counted checkpoint failure.
  - coordinator.recover: before the new incarnation's first Messages are
    sent, since they announce again the checkpoint it names.
  - job.failover: before any task of the plan traces its task.restore;
    the checkers take the failover to last until every task restored.
  - snapshot.taken: when the snapshot is taken (step 1 of the task's
    Ready), before the barriers in that Ready's Sends leave the task, and
    so before its ack; barrier.send before the barrier is put on its
    channel; snapshot.ack and snapshot.decline before the message is
    sent.
  - notify.complete and notify.abort: when the notification is
    delivered, before the listener acts on it; a sink's sink.commit of
    what the notification commits comes after it.

# Determinism

Outputs depend only on the inputs: no map iteration reaches an output, and
the only randomness, the first-trigger jitter, comes from Config.Random or
a PCG seeded with Config.JitterSeed.

# Time

Time is virtual nanoseconds (an int64), on one clock for the whole job
(a new coordinator incarnation gets times at or after the old one's);
durations in Config are time.Duration. The coordinator measures timeouts
from the trigger (neither the counter write nor a savepoint's wait for a
slot counts), MinPause from the last completion of a checkpoint,
Interval between triggers, and re-sends notifications Timeout after they
last went out; the first trigger is at the start plus a jitter uniform
in [MinPause, Interval]. A task measures alignment timeouts from the
first barrier it received.

# Where this differs from Flink

The protocol follows Flink's semantics except where this section says
otherwise; each difference has its reason.

Declines. A task declines every checkpoint it gives up for a newer
barrier or a cancel marker (ReasonNewerBarrier, ReasonCanceled), in every
mode, an end of partition that completes several included. Flink's
aligned and unaligned barrier handler declines the cancelled checkpoint
but drops an older one it was aligning without a word, and its
at-least-once barrier tracker drops older checkpoints silently once a
newer one completes. Why: a checkpoint nobody declines waits at the
coordinator until a newer one completes and subsumes it, or until it
expires, which counts as a failure; the decline ends it at once and
counts nothing.

Notified aborts. A task told that a checkpoint was aborted before any of
it arrived sends the cancel marker at the first barrier of it and ignores
the others; Flink's task, whose barrier handler does not hear of the
notification, aligns first and sends the marker where it would have
snapshotted. The marker means the same either way; sending it at once
spares this task and the tasks downstream an alignment for a dead
checkpoint.

Too many alignments. At MaxPendingCheckpoints alignments a task refuses
the newest checkpoint; Flink's barrier tracker forgets the oldest of the
checkpoints it tracks instead. Why: every bound in the protocol refuses
the newest request and never drops what is under way (see "Limits"); the
refused checkpoint's cancel marker waits until the older ones have sent
their barriers, so ids on the channel still increase.

# Out of scope

Changing parallelism on restore, region
failover (a task crash fails the whole job over), and barrier modes
on cyclic graphs other than unaligned (and aligned-with-timeout, which
becomes unaligned there). The classic Chandy-Lamport algorithm on
arbitrary graphs lives in package protocol/chandylamport.
*/
package protocol
