// Package checker judges a recorded run. Every property is a pure function of the trace (the
// events of package trace, in order, possibly read back from a JSON Lines file written by an
// engine other than ckptsim's) and of the scenario's Reference, the plain-data model of what a
// correct run produces. No property looks at a simulator, so a trace is all an engine author
// needs to have their runs judged.
//
// Check runs the selected properties and returns a Report: one Result per property, each with
// a verdict (pass, fail, unknown or unexercised) and its violations. Each property is also exported as a
// function of its own. A Violation names its property, says in one line what went wrong, and
// pins it to the first event that shows it (seq, virtual time, task, checkpoint); its String
// form is stable, so it can go into golden files and artifacts.
//
// # Which properties
//
// DefaultProperties is the one place that chooses what a trace is judged by; Check uses it
// when Options.Properties is nil, and so do simrun check and every run of package scenarios.
// It chooses from facts in the Reference: Reference.Promises, what the job promises to keep
// (which properties a checkpoint mode or a sink promises is the engine's knowledge, so the
// engine's side states it: package scenarios derives it from a scenario's mode, sink and
// check list), plus well-formed and contract always and determinism when there is a trace
// hash. A
// reference without promises (one built in Go before they existed, or a reference file
// without the field) gets the properties its Guarantee implies.
//
// # Verdicts
//
// A property passes, fails, is unknown, or is unexercised; only pass is a pass.
//
// Unknown means the property could not be decided, and the note says why: the trace lacks
// evidence the property needs for what it shows happened (a checkpoint completed but no
// snapshot.taken for it), or the reference lacks what the property needs (no expected
// output, no trace hash, no liveness bound), or a liveness deadline lies beyond the end of
// the trace, or porcupine could not decide a history within its budget of model steps
// (Options.SearchSteps). Each of these is a function of the trace and the reference alone:
// porcupine's search visits a history in an order fixed by the history, so it runs out of
// steps at the same point on every machine and at any load. The one exception is
// porcupine's wall-clock safety net (Options.SearchTimeout, a minute by default), there for a
// search whose steps are unexpectedly slow; when it fires, the note says so. It can only
// turn a decided verdict into unknown, never pass into fail or back. Package scenarios uses
// the word the same way for a run whose properties were not all decided, and keeps limit for
// a run that hit its own virtual-time or event limit before it could be judged.
//
// Unexercised means the trace gave the property no occasion at all: restore-fidelity in a
// run that never restored from a checkpoint, listener-contract in one that called no
// listener, checkpoint-outcome in one where no checkpoint asked for came to an end,
// expected-snapshot when the reference expects no snapshot. It claims nothing, and the note says what never
// happened. Report.Verdict is fail if any property failed, else unknown if any is unknown or
// if no property passed (every one unexercised: nothing was judged), else pass.
//
// # Evidence
//
// This section is the contract between an engine and the checkers. Per property, it says
// which events a trace must hold, with which fields and attributes, and in which order.
// Order means position in the trace (seq), never time stamps. Fields are those of
// trace.FieldsOf; well-formed refuses any other. Without the evidence a property is unknown
// or unexercised, and its note names what was missing. Neither is a pass.
//
// Events several properties share:
//
//   - task.restore (task; cp; state): each task, as it starts. A fresh start is cp 0, with
//     no state. It starts the task's incarnation. A task is one of the job's tasks once the
//     trace shows it in its lifecycle or at work (barriers, snapshots, notifications, records,
//     sink writes), so an engine that traces no fresh start is judged all the same.
//   - task.finish (task): a bounded task exits. Trace it after its last notification and
//     commit, never before.
//   - task.crash (task; reason): a task fails. A reason says it failed by itself.
//   - checkpoint.trigger (cp; savepoint=true for a savepoint; periodic=true and start for a
//     trigger of the periodic schedule): before the triggers leave the coordinator. The
//     savepoint attribute is how every property tells savepoints apart, the periodic one how
//     trigger-pacing tells the periodic schedule's triggers from checkpoints asked for
//     outside it; start is when the coordinator decided to trigger, if before the event.
//   - checkpoint.complete (cp): once the metadata write is durable and confirmed, before any
//     notification of it is sent. A coordinator.recover (cp) that read a checkpoint back
//     counts as its completion too.
//   - snapshot.carried (task cp; taken): a checkpoint holds task's final snapshot, taken for
//     the earlier checkpoint taken. Trace one per carried task and checkpoint. It comes after
//     that snapshot.taken and before checkpoint.complete cp; ckptsim's engine traces it
//     just before checkpoint.persist cp. protocol.TaskSnapshot.TakenFor gives taken.
//   - phase (phase=fault|heal|liveness|end): the run's phases. The liveness phase starts at
//     phase=liveness, else at phase=heal. A trace with no phase event is healthy throughout.
//     A phase=fault never followed by heal or liveness leaves the liveness rules unjudged.
//   - fault (fault; id, window_ns, end): an injected fault. One with window_ns and an id is
//     in force until a fault event with the same id and end=true, else until the trace
//     ends. recovery-bound and alignment-timeout skip what a fault overlaps; abort-reach
//     waits for it to end.
//   - job.failover (cp; reason): the job restarts from checkpoint cp (0: from scratch). The
//     failover lasts until every job task traced task.restore again. It replaces every
//     task: what an incarnation did before it is no longer owed anything, and a task that
//     traces no restore after it counts as restored from cp.
//   - job.resubmit (cp; mode; and for a rescale rescale, parallelism, tasks): the job is
//     stopped and submitted again from cp. A rescale's tasks lists every task of the new
//     job: from then on the job's tasks are those, a task it leaves out is gone for good
//     (owed no restore, notification, alignment's end or finish), and the channels of the
//     new job are learnt apart from the old job's.
//
// well-formed: any event. seq counts from 0 by one, t never decreases. Numeric attributes
// (records, start, tokens, taken, the channel counts) are non-negative decimal integers.
//
// contract: contract.broken (task cp; what, detail), traced by an engine that met something
// the protocol's contract rules out, just before it halts. Each is a violation. Without one
// the property passes, as well-formed does: it reads the trace alone. An empty trace is
// unknown, one of phases and faults only unexercised. An engine that does not check its
// protocol's answers traces none, so for it the rule judges nothing.
//
// exactly-once, at-least-once: Reference.Output, and the sink's events in order.
// sink.write (task txn rid; value) or sink.writes (task txn; rids, values) put records into
// a transaction. sink.commit (task cp txn; records, start) makes them visible; records is
// how many became visible, 0 for a repeated commit. sink.upsert (task rid; value) is visible
// at once. Once the job has finished (every task seen at work or in its lifecycle, and
// every sink writer, last traced task.finish), a record never committed is lost: a missing
// commit reads as data loss. Before that it may still come, and is not judged: the
// verdict is unknown if nothing else fails, and liveness judges whether the job had to finish.
//
// consistent-cut: per completed checkpoint n, its cut. For every task, snapshot.taken n, or a
// snapshot.carried n naming an earlier snapshot.taken. Both come before checkpoint.complete
// n; later ones are not in the cut. A checkpoint.abort n drops what n collected before it.
// Channel counts ride on the snapshots: sent.<to> and out.<to> at the sender, recv.<from>
// and chan.<from> at the receiver. Count every channel at its ends, zeros included where a
// channel would otherwise go uncounted. A channel that any event of the trace names, but
// neither end counts in a completed cut, makes the verdict unknown, naming the channel. A
// receiver holding records from a sender that finished earlier, with no snapshot of the
// sender in the cut, is unknown too, in a trace without any snapshot.carried: it is missing.
// A trace that carries final snapshots elsewhere says the cut lacks the sender. Any other
// end missing from the cut holds nothing, so records that need it fail. A completed checkpoint without
// any snapshot is unknown. Token workloads count tokens and chantokens.<from> instead; a
// snapshot without tokens, or a channel with records in flight but no chantokens.<from>, is
// unknown unless the cut already holds more than the total.
//
// expected-snapshot: Reference.Snapshots, and checkpoint.complete or checkpoint.abort of
// each. The cut is built as for consistent-cut. tokens on each named process's snapshot;
// chan.<from>, chanmsgs.<from> (and chanmore.<from> when the list is cut short) on each
// receiver's snapshot.
//
// restore-fidelity: task.restore n > 0 (task cp; state) for a restore from a checkpoint. n
// completed before it and is not a savepoint. state equals the state of that task's
// snapshot.taken n, or of the one a snapshot.carried n names (a restore may also name the
// carried snapshot's own checkpoint). A job.failover cp must name a completed checkpoint
// too. A digest on one side only is unknown. Restores of cp 0 are not judged. A restore
// of a rescaled job (rescaled-from: the snapshots it read) is not compared by digest:
// each snapshot it names was taken for n, and once every task the rescale listed has
// restored after a job.failover, every key group a snapshot.taken n names (keygroups) is
// owned (keygroups on the restore) by exactly one restore that read that snapshot, and the
// records each snapshot.taken n held in flight (its chan.* and out.* counts) add up to
// what the restores replayed from it (replayed: "task:count" items). A whole round from a
// checkpoint with records in flight whose restores do not all carry replayed is unknown.
// Union list state (union.<state> on snapshot.taken n: key:value entries) must reach every
// restore that keeps some of it (union.<state> on the restore, whose rescaled-from names
// every snapshot holding it), and each entry is kept by exactly one restore, at its value.
//
// listener-contract: notify.complete and notify.abort (task cp) as delivered, after the
// protocol's filter, before the listener acts; sink.commit after the notification that
// commits it. An incarnation runs from task.restore to task.crash. It exits at task.finish,
// or once notified of the checkpoint its snapshot.carried names: trace the carried events,
// or a later notification reads as reaching a live task. checkpoint.complete n precedes any
// notify.complete n, and checkpoint.trigger marks savepoints. With
// LivenessBounds.NotifyMaxNanos, every live task must be notified after the liveness phase
// starts (phase events, above). A completed checkpoint no live task was told of fails.
// sink.precommit (task cp txn), sink.commit and sink.abort with Policy.MaxPendingTransactions
// count a two-phase-commit sink's open transactions.
//
// checkpoint-outcome: checkpoint.request (cp) when a checkpoint is asked for, if it may wait
// before it starts; else checkpoint.trigger. Each ends with checkpoint.complete, or with
// checkpoint.abort (cp reason). A coordinator.crash drops what its incarnation had pending.
// A checkpoint still pending when the job has ended (every task the trace names last traced
// task.finish) fails. So a finished bounded job still needs the end of each checkpoint.
//
// failure-accounting: Reference.Policy.TolerableFailures. checkpoint.abort reasons as
// protocol.Reason renders them; an unknown reason is unknown. checkpoint.complete of a
// checkpoint newer than every completed one, coordinator.crash and job.failover reset the
// count. A job.failover with reason tolerable-failures-exceeded must follow more failures
// than the limit since the last failover (completions may land between the two).
//
// no-trigger-in-failover, no-pending-across-failover: job.failover, task.restore of every
// job task after it, checkpoint.trigger, complete and abort. Every checkpoint triggered
// before job.failover completes or aborts before it. Trace checkpoint.abort (reason
// failover) for the checkpoints a failover ends, before job.failover.
//
// no-trigger-after-finish: task.restore (cp 0 included) and task.finish of every job task,
// snapshot.ack final=true and snapshot.carried, checkpoint.complete and checkpoint.trigger.
// No trigger follows the task.finish that ends the job, nor the completion of a checkpoint
// that holds every job task's final snapshot.
//
// trigger-pacing: Reference.Policy.IntervalNanos, MinPauseNanos, MaxConcurrent and Mode.
// checkpoint.trigger with savepoint=true, or periodic=true and start (the decision, when
// it came before the trigger: the wait for the id, or for a slot, lies between);
// checkpoint.complete and checkpoint.abort end what a trigger started; coordinator.crash
// and job.failover end it all, and start the periodic schedule anew. A trigger without
// periodic=true is one asked for outside the schedule: the pause and the interval do not
// pace it. Without a setting the rules that need it are unknown.
//
// checkpoint-timing: Reference.Policy.TimeoutNanos and Liveness.ReactionMaxNanos.
// checkpoint.trigger starts the timeout; checkpoint.persist before the deadline says the
// metadata write was in flight; checkpoint.abort (reason expired) ends it. snapshot.decline
// (task cp; reason) from a live task, snapshot.ack and snapshot.carried of the same task
// and checkpoint (which make the coordinator ignore a decline), task.finish, and fault
// events: a bound with a fault in force before it is not judged.
//
// recovery-bound: Liveness.RecoveryMaxNanos, job.failover, then checkpoint.complete of a
// checkpoint (not a savepoint) or task.finish of every job task within the bound. The
// checkpoint.trigger and checkpoint.abort (reason expired) of the checkpoints after it:
// each expiry after the first extends the bound by that checkpoint's lifetime, up to
// Liveness.CheckpointAfterHealNanos.
//
// alignment-timeout: Policy.AlignmentTimeoutNanos and Liveness.SwitchMaxNanos.
// barrier.recv (task from cp) and then snapshot.taken or barrier.send (task to cp) at the
// task. Only tasks that trace record.send or barrier.send are judged, and only barriers
// that come before their checkpoint's checkpoint.complete or checkpoint.abort.
//
// failure-cause: task.crash with a reason. It must follow what can fail a healthy task: a
// fault event on the external system, a job.failover or a coordinator.crash, or, for a task
// that has not traced its task.restore since the job last failed over, a storage fault.
//
// failover-cause: job.failover with its reason, and since the previous job.failover a
// task.crash (reason task-failure) or a coordinator.crash (reason coordinator-recovery); a
// failover without a reason needs either. Per task incarnation (from task.restore, or the
// last job.failover, to task.crash), each snapshot.taken is an upload under way until the
// task traces snapshot.ack, snapshot.decline, notify.abort or state.release of it, or
// notify.complete of it or a newer checkpoint. Fault events with id, window_ns and end
// (storage.fail, storage.unavailable: writes fail; external.* and faults naming ext or
// extstore: the external system fails). A task whose upload fails traces snapshot.decline
// (reason upload-failed) and runs on.
//
// state-release: Policy.RetainedCheckpoints. snapshot.ack (task cp; final=true for a final
// snapshot) for each snapshot a task uploaded and acknowledged, and state.release (task cp:
// cp is the checkpoint the snapshot was taken for, a carried snapshot's own) wherever the
// engine deletes uploaded state, the coordinator and the task alike, once per deletion.
// What a completed checkpoint or savepoint holds: its snapshot.carried events, else the
// task's snapshot.ack or snapshot.taken for it, before checkpoint.complete (or a
// coordinator.recover that read it back). checkpoint.trigger (savepoint=true) marks the
// savepoints, checkpoint.abort ends what a checkpoint collected, and task.finish of every
// job task ends the job, after which every acked snapshot nothing retained holds must have
// been released. The excuses read coordinator.crash, task.crash, job.failover and fault
// events (net.*, pause.host, crash.host). A trace with acks that nothing holds and no
// state.release at all is unknown. Incremental snapshots add the pieces attribute of
// snapshot.taken (the handles of the shared pieces the snapshot refers to) and piece.release
// (task cp piece: the piece task uploaded for cp is deleted); pieces owed a deletion with no
// piece.release at all are unknown too. A state.live at the end (pieces, bytes: what the
// storage itself holds) lets the deletes be checked against the storage; without it they
// are taken as done. A job.resubmit (cp mode) says the job was stopped
// and submitted again from checkpoint cp in a restore mode: from there the stopped job's
// retained checkpoints are the user's (restore.ownership), and so is cp unless the mode is
// claim; under no-claim a completion that holds a snapshot the new job took referring to a
// piece of cp breaks restore.no-claim-independent.
//
// abort-reach: Liveness.AbortReachMaxNanos, checkpoint.abort (not reason failover), and
// per task that took part (barrier.send, barrier.recv, snapshot.taken, snapshot.ack or
// snapshot.decline of it) a notify.abort, or notify.complete of a newer checkpoint, in time.
// Nothing is owed by a task that already knew of a newer completion (a notify.complete, or
// a restore from one): it drops the notice as moot. Nor by an incarnation that did not take
// part: task.crash, task.restore and job.failover end what the one before took part in.
//
// barrier-handling: per task incarnation, in trace order. trigger.recv (task cp) as a task
// takes the coordinator's trigger in, before it acts on it; then its answer, snapshot.taken
// or barrier.send of cp or snapshot.decline cp, before the task's next input: trigger.recv,
// barrier.recv, marker.recv (task from cp, a cancel marker taken in), notify.complete,
// notify.abort or record.recv. barrier.send and marker.send (task to cp) for every barrier
// and cancel marker put on a channel, in the order they go onto it, a cancel marker the
// task owes before its next input: after a snapshot.decline, or a notify.abort that ends an
// alignment, of a checkpoint whose barrier.recv came while it was the newest the task knew
// of; after a new marker.recv; after a barrier.recv, trigger.recv or marker.recv of a
// checkpoint it was told aborted. A task's outputs are what its sends, and the receives
// of others, name. snapshot.ack, notify.abort, notify.complete and task.restore say what
// the task knew; task.crash, task.restore, task.finish and job.failover end an
// incarnation and what it owed. A trace that triggers checkpoints without any trigger.recv
// is unknown; so is one where a cancel marker is owed but that holds no marker.send or
// marker.recv at all, and one without marker.recv where a receiver evidently took a marker
// in (a newer barrier followed it on its channel).
//
// durable-before-visible: checkpoint.persist (cp) before the metadata write starts, and
// checkpoint.complete after it is durable. notify.complete n after checkpoint.complete n.
// sink.commit of n's transaction after the completion of some m >= n. coordinator.crash,
// then coordinator.recover (cp: the latest checkpoint the new incarnation read back, 0 for
// none) before its first message.
//
// sink-visibility: sink.read (task records; start) from each reader, and the commits.
//
// liveness: a bound in Reference.Liveness. From the start of the liveness phase (phase
// events, above; the first event without any), a checkpoint completes within
// CheckpointAfterHealNanos. Each of FinishTasks traces task.finish last, and the output is
// committed. No alignment (barrier.recv without its snapshot.taken) outlasts
// AlignmentMaxNanos, unless snapshot.decline, notify.abort, checkpoint.abort or a lifecycle
// event ends it. A deadline past the trace's end is unknown.
//
// determinism: Reference.TraceHash, and the trace exactly as written.
//
// # Reference files
//
// ParseReference and ReadReference read a Reference written as JSON, and MarshalReference
// writes one (reference_file.go has the format), so that a trace from any engine can be judged
// without writing Go: simrun check -reference FILE TRACE runs Check on a trace file against
// one, and simrun run -reference-out FILE writes the reference of a built-in run.
//
// # Cost
//
// Every property except the two porcupine checks is one pass over the trace with maps keyed
// per task, per checkpoint, per transaction or per record id, so its cost is linear in the
// trace (BenchmarkCheckLinear, over a synthetic run of a million events, and
// BenchmarkCheckStandard, over the standard scenario's trace, report events checked per
// second). Check reads every event's kind once into a bit set per kind, and most properties
// then visit only the events of the kinds they react to (well-formed and determinism read
// every event); the sinks are replayed once for the properties that need it. Over a trace of
// 65,536 events or more the properties run concurrently, on as many goroutines as the Go
// runtime runs at once, taking them in turn: first the sink replay, the longest single piece
// of work, then the properties that do not read it, and last those that do, when it is done;
// a shorter trace, such as a run of a sweep, is judged a property at a time, which costs
// less.
// The porcupine checks work on small histories: one operation per checkpoint and recovery
// for the store, one per commit and read for the sink, split at quiescent points.
// A sink segment with a single read, the usual case, is decided exactly by a subset-sum over
// record counts instead, since porcupine would try every subset of the commits that overlap
// the read.
//
// # What each property means, and why
//
// Several properties ask whether a checkpoint was durably complete at some point. A
// checkpoint.complete says so, and so does a coordinator.recover that read the checkpoint back
// from the store: a coordinator can crash after its metadata write landed and before it heard
// so, and the next incarnation then rightly restores from a checkpoint that has no
// checkpoint.complete in the trace (completion.go).
//
// well-formed. Sequence numbers count up by one, virtual time never goes back, every event is
// of a kind schema v1 defines and carries exactly the fields and attributes the schema gives
// that kind (trace.FieldsOf: a misspelt kind or attribute would otherwise be evidence no
// property sees), and numeric attributes are non-negative decimal integers (with start no
// later than its event). Every other property reads these fields; a trace that
// breaks them would be judged on misread data, so this comes first.
//
// contract. No contract.broken. An engine that embeds the protocol relies on promises of
// its contract (one snapshot request per checkpoint, channel state only while a snapshot
// records it, no error where none is promised); where one fails, going on builds on a state
// neither side can trust, and crashing throws the trace away. ckptsim's engine traces what
// broke and halts, so the run is judged and the verdict names the promise. Either side may
// be at fault, which is why the property blames neither.
//
// exactly-once. The committed output equals Reference.Output: each record id committed
// exactly Expected.Count times (normally once) with Expected.Value, and nothing else. The
// output is what the external store made visible, replayed from the trace: a sink.write puts
// a record into a transaction; a sink.commit makes the transaction's records visible; a
// sink.upsert (idempotent sinks) makes a record visible at once, replacing its value. A
// commit's records attribute says how many records it made visible: a repeated, idempotent
// commit reports 0, and so does a commit whose transaction the store had already dropped (the
// classic exactly-once loss, when a transaction outlives the store's timeout). A commit
// without the attribute counts only the first time. A lost record is pinned to its last write
// that never became visible, or to the commit that made nothing visible; a duplicate to the
// commit that made it visible once too often. Result.Diff shows, with go-cmp, the committed
// count per differing record id, so a duplicate reads as 2 and a loss as 0.
//
// A job that stop-with-savepoint ended (job.finish with attr stop) owes less: the output of
// its input up to the savepoint's cut, where each source's snapshot for it (snapshot.taken,
// or snapshot.carried for a source that had finished) lists its offsets. A record of the
// reference is owed when the source record it comes from (Expected.Split, Expected.Offset)
// lies before its split's offset there; a record from past the cut that the attempt which
// took the stop made visible breaks output.ends-at-the-stop (one an earlier attempt
// upserted before the job went back to an older checkpoint stays, as in Flink: an upsert
// counts as sent at its start attribute). A job that ran again after its stop (job.failover,
// job.resubmit) owes its whole input; tasks that exited for a stop that no job.finish names
// leave the output unknown. Without the offsets or the records' origins the output
// properties are unknown, never judged against the whole input.
//
// at-least-once. No record of Reference.Output is lost. Duplicates and changed values are
// allowed, since replay after recovery may re-emit and re-aggregate records.
//
// consistent-cut. Every completed checkpoint (checkpoint.complete, or a coordinator.recover
// that read it back) is a consistent global state. Its cut holds, per task, the task's
// snapshot.taken for it, or the earlier snapshot a snapshot.carried names: a finished task's
// final snapshot, which the protocol carries into later checkpoints instead of asking for a
// new one. For each channel S -> R:
//
//	recv.S at R + chan.S at R + out.R at S = sent.R at S
//
// Records S sent before its snapshot must be reflected in R's state, or saved as channel
// state by R (they arrived after R's snapshot, ahead of the barrier), or saved by S as
// output-side channel state (S's unaligned barrier overtook them in its output queue, so
// they reach R after the barrier); a record R consumed that S sent after its snapshot would
// make the restored state hold an effect without its cause. This is the Chandy-Lamport
// condition, for aligned checkpoints (chan and out are 0) and unaligned ones alike. Senders
// and receivers are judged alike: an end missing from the cut holds nothing, so records at
// the other end that need it are a violation. For token workloads (Reference.TokenWorkload, or
// TokenTotal > 0), tokens held (tokens) plus tokens in flight (chantokens.*) add up to the total. Only
// completed checkpoints are judged, since only they are restored. A snapshot that lists the
// messages it recorded on a channel (chanmsgs.<from>) must list as many as it counts
// (chan.<from>, those the list leaves out counted in chanmore.<from>) and, listed in full,
// of as many tokens as chantokens.<from>; where a cut lists messages, a channel it counts
// but does not list is missing evidence, and the verdict unknown. In a job with split
// sources the cut also holds each split exactly once: in the split enumerator's state that
// the checkpoint's trigger lists (unassigned) or in one reader's snapshot (splits)
// (cut.splits-held-once); and between restarts the enumerator never assigns a split a reader
// holds to another (splits.one-reader).
//
// expected-snapshot. Each global snapshot of Reference.Snapshots completed as a golden test
// states it: every process it names holds the given tokens (tokens on the process's
// snapshot in the cut, as for consistent-cut), and every channel records exactly the given
// messages, in order (chanmsgs.<from> on the receiver's snapshot), a channel it leaves out
// none. Counts are exact even where a list is cut short, so a wrong number of messages fails
// on the count alone. An expected snapshot that was aborted fails; one the trace never
// completes, or whose cut lacks a process's tokens or a channel's full list where the
// comparison needs it, is unknown. A scenario file writes these expectations per scripted
// snapshot (package scenarios), so that a course's golden snapshot becomes a test.
//
// restore-fidelity. A task.restore from checkpoint n carries the same state digest (attr
// state: operator state and source offsets) as that task's snapshot.taken for n, and n had
// completed and is not a savepoint (savepoints are never used for automatic recovery); for a
// task whose snapshot n carried over, the snapshot it names. Every restore in a trace is
// taken to be automatic recovery. A job.failover must name a completed, non-savepoint
// checkpoint too.
//
// listener-contract. The listener contract of package protocol, checked per task incarnation (from
// task.restore to task.crash): completion notifications strictly increase, exceed the restored
// id and so come at most once; a completion notification for n only after checkpoint.complete
// n and never for an aborted id or a savepoint; no notification reaches a task that exited
// (after its task.finish, or after the notification that covers its final snapshot, which a
// snapshot.carried names); an abort notification never names a completed
// id; a sink commits checkpoint n's transaction only after a completion notification m >= n
// in the same incarnation, or in an incarnation restored from m >= n; a repeated commit of a
// transaction never takes effect again; and once faults stop, every live task ends notified
// of (or restored from) the latest completed checkpoint whose notification deadline
// (LivenessBounds.NotifyMaxNanos after completion) lies in the trace. A two-phase-commit sink
// holds at most Policy.MaxPendingTransactions transactions open that no notification has
// settled (transactions.bounded), as Flink's Kafka producer fails a checkpoint its pool of
// producers cannot serve. The rules exist because a two-phase-commit sink turns each
// notification into an irreversible external effect.
//
// checkpoint-outcome. No checkpoint vanishes: every checkpoint asked for (checkpoint.request;
// checkpoint.trigger for an engine that traces no requests) ends with checkpoint.complete or
// with checkpoint.abort carrying a reason. A coordinator.crash drops what its incarnation had
// pending, and a checkpoint still running when the trace ends is judged only if the trace
// shows the job ended (every task seen in the trace, at work or in its lifecycle, last traced
// task.finish): then it is a violation pinned to the last event. A second request of an id
// still pending, and an abort without a reason, are violations too. Without any request the
// verdict is unknown; when none of them ended, unexercised. A coordinator that finishes a job, fails it over or gives up on a
// checkpoint must say so in the trace, or a snapshot it dropped reads as if it never existed.
//
// failure-accounting. The job fails over exactly when its checkpoint failures in a row exceed
// Reference.Policy.TolerableFailures. What counts is Flink's classification (its checkpoint
// failure manager): an abort for expired, upload-failed (an asynchronous failure),
// persist-failed (finalizing), a decline for a fault at a task (declined,
// channel-state-overflow, too-many-pending), of a checkpoint (never a savepoint) above the
// latest completed one, each id once; a subsumed or cancelled checkpoint, one overtaken by a
// newer barrier, ended by a failover or a finished job, or that failed to trigger counts
// nothing. A completion, a job.failover and a coordinator.crash start the count again. A
// failover for tolerable-failures-exceeded with the count within the limit is a violation,
// and so is a checkpoint triggered after the count passed it with no failover in between.
// The rule exists because a miscount either restarts a healthy job or lets a job whose
// checkpoints all fail run on without any, its recovery point falling ever further behind.
//
// no-trigger-in-failover, no-pending-across-failover, no-trigger-after-finish. Checkpoints are
// triggered only while the job runs. A failover lasts from job.failover until every job task
// (one seen to restore before it) has traced task.restore again; a checkpoint.trigger in
// between asks tasks that are being replaced for a snapshot (FLINK-13969). At job.failover
// no checkpoint triggered by that coordinator incarnation may still be pending: it would
// live on out of a dead job's snapshots. Once every job task's last lifecycle event is
// task.finish the job is over, its final checkpoint behind it, and nothing may be triggered;
// so too once a checkpoint (a savepoint finishes no task) completed holding every job task's
// final snapshot, though the tasks' exits may still be on their way (a savepoint queued
// behind that checkpoint must be dropped, not triggered); a restore makes it run again. A coordinator.crash ends a failover and drops what was
// pending, since its successor starts both anew.
//
// failure-cause. A task fails by itself (a task.crash with a reason, which an injected crash
// does not carry) only after something that can make a healthy task fail: an
// external-system fault, a fault on the external system's host or links, a restart (a
// job.failover or coordinator.crash, after which fenced writers and older transactions are
// met), or a storage fault while the task restores (reading its state back fails).
// Otherwise the task failed for nothing and the failover that follows is needless
// (FLINK-10377's sink, failing on a notification it should have ignored). A storage fault
// is no cause for a running task to fail: its uploads fail, and a failed upload declines
// the checkpoint (failover-cause). Which failures an engine reports of itself is its own, so
// Check judges this property only where the reference promises it; every scenario of
// ckptsim's engine does.
//
// failover-cause. The job fails over only for a cause, found since it last failed over: a
// task failure, a coordinator crash, or checkpoint failures beyond the budget (which
// failure-accounting counts). And a checkpoint's failure at a task stays a checkpoint
// failure: a task whose snapshot cannot be uploaded declines the checkpoint (upload-failed),
// the budget counts it, and the job fails over only once the budget is exceeded, as Flink's
// asynchronous snapshot failure declines the checkpoint (CHECKPOINT_ASYNC_EXCEPTION) for
// the CheckpointFailureManager. Failing the task instead restarts a job whose budget
// tolerates the failure. The trace shows the upload's failure only as a storage fault that
// fails writes while the snapshot was under way; a task that fails by itself then, with no
// external-system fault in force that could fail it too, failed on its upload. Judged only
// where the reference promises it, like failure-cause.
//
// state-release. Uploaded state lives exactly as long as something may restore it. A
// snapshot is held by every completed checkpoint whose cut names it and by every completed
// savepoint; the job keeps Policy.RetainedCheckpoints checkpoints, the latest by id, and
// savepoints belong to the user. No state.release may name a snapshot a retained checkpoint
// or a savepoint holds, whatever coordinator crashes and recoveries came between (the
// recovered coordinator reads the same store, savepoints included), and no checkpoint may
// complete holding released state: either leaves a restore point without its state. Nor
// may a task release its snapshot of a checkpoint or savepoint still pending before it gave
// it up (declined it, heard it aborted) or, for a checkpoint only, heard of a newer
// completion: a savepoint is never subsumed. Once
// the job has finished, every acked snapshot nothing retained holds must have been released:
// those of aborted checkpoints (PendingCheckpoint.abort in Flink), late and duplicate acks
// (CheckpointCoordinator's discardSubtaskState) and checkpoints that fell out of retention
// (the completed-checkpoint store's subsumption). Not owed: a final snapshot, which
// savepoints may share, so the protocol leaves it to the host; state a coordinator crash
// orphaned (a checkpoint pending at the crash, or one discarded just before it, or an ack
// sent while no coordinator incarnation ran), as a new JobManager leaves the old one's; and an ack the coordinator may not have heard of (a fault
// that loses or delays messages while it was on its way, or a crash of the sending task).
// A failover excuses nothing: an ack of a replaced attempt still reaches the coordinator,
// which discards its state as Flink does. The rule
// exists because a release too early makes a checkpoint unrestorable, and a release never
// made fills the checkpoint storage with state no one will read.
//
// The same holds for the shared pieces of incremental snapshots, which several snapshots
// of one task refer to (snapshot.taken lists them): no piece.release while a snapshot a
// retained checkpoint or a savepoint holds refers to the piece, no completion holding a
// snapshot that refers to a deleted one (pieces.kept, the class of Flink's
// SharedStateRegistry bugs such as FLINK-29913, where a checkpoint built on one that a
// concurrent checkpoint subsumed and completed on deleted files), and, once the job has
// finished, no piece left that nothing refers to, unless a snapshot whose state is excused
// above refers to it (pieces.released). While the job runs, a piece nothing has held since
// a checkpoint fell out of retention is owed a deletion once two more checkpoints
// completed with no coordinator crash between: storage must not grow without bound. Where
// the trace ends with the storage's own listing (state.live), a piece a retained
// checkpoint needs must be in it, and a piece deleted must not, unless whoever deleted it
// may have died before the delete took effect. A task restored from a checkpoint the trace
// never shows complete (a job started from an external checkpoint) may reuse that
// checkpoint's pieces in its next snapshot; what that snapshot lists first is its owner's
// to keep or delete, and not owed a release. The verdict's note counts the pieces live at
// the end, and what the storage holds. A job submitted again from a retained checkpoint (job.resubmit) leaves the stopped
// job's other checkpoints to the user, for good; the restored one too unless the new job
// claimed it (a claim takes over every piece of it, those an older checkpoint shares
// included, as Flink's claim mode does). Under no-claim the new job may not build on the
// restored checkpoint: its first completed checkpoint holds none of its pieces, so that the
// user may delete it (restore.ownership, restore.no-claim-independent; FLINK-26985 is a bug
// of this class).
//
// trigger-pacing. The coordinator triggers as the job's policy says, as Flink's
// CheckpointRequestDecider and periodic scheduler do. A periodic checkpoint is decided no
// sooner than MinPause after the latest checkpoint completion its coordinator incarnation
// saw; a checkpoint asked for outside the schedule and a savepoint are not held back, in
// Flink as here (a savepoint's completion is not counted either: Flink restarts the pause
// on it too, which is stricter and passes). A trigger finds fewer than MaxConcurrent
// checkpoints pending, savepoints counted; where the mode aligns savepoints (aligned,
// at-least-once) Flink forces a savepoint through, so one may be triggered regardless,
// and one that waits is fine too. The k-th periodic trigger since the schedule (re)started,
// at the coordinator's start, a coordinator.crash or a job.failover, is decided no sooner
// than MinPause plus k-1 intervals after it: Flink's first delay is drawn from [MinPause,
// Interval], a request queued behind a long checkpoint may run late and the next on time,
// and a trigger that came within the pause makes the schedule start over, so two triggers
// may be closer than an interval, but never more than the schedule had turns. A trigger is
// judged where it was decided (its start), since a checkpoint may complete while the next
// waits for its id. The rules exist because a coordinator that checkpoints more often than
// it was told takes the job's time for snapshots (the pause is what keeps a slow job from
// checkpointing all the time), and one that exceeds MaxConcurrent runs the barriers of
// more checkpoints through the job at once than its alignments and uploads were sized for.
//
// checkpoint-timing. A checkpoint ends when it must, as Flink's CheckpointCanceller and
// receiveDeclineMessage end it. An abort for expiry comes no sooner than Timeout after the
// trigger (the timeout runs from the trigger; a checkpoint still waiting for its id has
// none running); one still pending at its timeout, with no metadata write in flight, has
// ended, or begun its metadata write, within Liveness.ReactionMaxNanos after it (a write
// the trace does not show, one that only drops discarded checkpoints from the store, may
// have held it back). A metadata write of any checkpoint in
// flight at the timeout moves the bound to the write's end: Flink writes the metadata
// under the coordinator's lock, which its canceller must take, so a checkpoint whose acks
// were all in meanwhile may begin its own write then, and complete. A checkpoint that a live task declined
// while it was pending, and that the task had not acknowledged nor had its final snapshot
// carried into, ends within the same bound of the decline, by an abort for the decline's
// reason (or for a cause of the coordinator's own that came first: its timeout, a newer
// completion, a failover, the job finishing), never by a completion. The late bounds hold
// where no fault is in force from the trigger or the decline to the bound: a skewed or
// paused coordinator host acts late, and a decline may be lost. A decline whose task
// finished before the checkpoint ended is not judged: its final snapshot may stand in for
// it, which the trace says only when the checkpoint's metadata is written. The rules exist
// because a checkpoint left to expire instead of aborted holds every task's alignment and
// uploads for a whole timeout, and counts as a failure of the wrong kind.
//
// recovery-bound, alignment-timeout, abort-reach. Bounds on what must happen in time while no
// fault is in force; liveness judges only after the heal, these judge the fault phase too,
// wherever no fault event (a windowed fault from its event to its end) falls between the
// cause and its deadline. After a job.failover a checkpoint completes (or the job finishes)
// within Liveness.RecoveryMaxNanos. A task aligning with Policy.AlignmentTimeoutNanos forwards
// the barrier within the timeout plus Liveness.SwitchMaxNanos of receiving its first one: it
// forwards it when it snapshots, so a later barrier.send means it never switched to
// unaligned (tasks that send nothing are not judged: nothing in the trace says when they
// switched). When the coordinator aborts a checkpoint (not for a failover), every live task
// that traced a barrier, snapshot, ack or decline for it gets notify.abort, or a newer
// completion, within Liveness.AbortReachMaxNanos; one a fault overlapped is owed within that
// bound of the first stretch as long without a fault, unless a newer abort came before it (the
// coordinator re-sends only its newest notices). A missed deadline is pinned to the first
// event after it.
//
// barrier-handling. What a task does with the checkpoint traffic that reaches it, rules T5
// to T10 and T12 of the specification, each at once: before the task takes anything else in. A
// trigger is answered with a snapshot or a decline; a task that takes a trigger in and then
// something else before either leaves the checkpoint to run into its timeout (Flink's task
// declines a trigger it cannot act on). A duplicate of a trigger it answered owes nothing,
// nor one of a checkpoint it knows ended. The barriers and cancel markers a sender puts on
// one channel name newer and newer checkpoints (a cancel marker may follow its own
// checkpoint's barrier), since a barrier or marker of n is what tells the receiver that no
// older barrier comes on that channel any more. A task that gives up a checkpoint after its
// barrier came (it declines it, or is told it aborted while still aligning it, when
// ckptsim's tasks drop the alignment) cancels it on every output that carried nothing of it
// or newer, so that no downstream alignment waits for a barrier that will not come (Flink's
// abortCheckpointOnBarrier; FLINK-18238). A cancel marker ends its checkpoint and every older one at the
// task, whichever input their barriers came on: no snapshot or barrier of them follows it.
// When it is news (newer than anything the task knew of, or the checkpoint the task is
// aligning) the task also declines it, so that the coordinator aborts it at once, and
// passes it on. A barrier, trigger or cancel marker of a checkpoint the task was told
// aborted, newer than anything else it took in, is cancelled downstream and never forwarded
// or snapshotted (FLINK-18238). A marker owed for an abort notice, or for a barrier that
// came after one, may also wait until the abandoned alignment would have completed, as
// Flink's does (it checks for the notice when it would trigger the checkpoint); sending
// anything newer on the output settles it. A cancel marker owed on an output may wait while the task still aligns an
// older checkpoint whose barrier or marker has not gone there (sent first, it would make the
// older one's ids go back), or while a newer marker owed there waits so (it settles the
// older one too), and is due at once when neither holds. A barrier of n taken in on an
// input where an older checkpoint the task aligns has had no barrier ends that checkpoint:
// its barrier cannot come on that channel any more, so the task declines it at once and
// never snapshots it (Flink's barrier handler aborts it as subsumed); a task the alignments
// leave nothing to take in must have declined it before the trace moves on in time. A
// checkpoint the task declined, or was told aborted, is never acknowledged after: giving it
// up drops the snapshot being uploaded (Flink cancels the snapshot's asynchronous part).
// What an incarnation owed ends with it; what is owed where the trace ends is not judged, and the note counts it.
//
// durable-before-visible. No completion becomes visible before it is durable, and failover
// never forgets one. A notify.complete for n must follow checkpoint.complete n; a sink.commit
// of n's transaction must follow the completion of some m >= n. The coordinator's failover is
// judged with porcupine over the completed-checkpoint store's history, against a fenced
// monotonic register holding the latest completed id (linz.RegisterModel): each write runs
// from checkpoint.persist to checkpoint.complete, and stays pending forever when its
// coordinator crashed first (porcupine may then place it anywhere after its start, or
// nowhere); each coordinator.recover is a read invoked at the preceding coordinator.crash;
// each notification or commit is an observation that the register held at least its id. A
// recovery behind a checkpoint that was made visible, or that had durably completed, or of an
// id never written, is pinned to the coordinator.recover.
//
// sink-visibility. Reader clients of the external store see only committed output, and
// output never shrinks. Commits (sink.commit, sink.upsert) add the records they made visible;
// reads (sink.read, attr records) return how many records the reader saw; each lasts from its
// start attribute to its event. The history must be linearizable against a counter of
// committed records (linz.CounterModel). Reads outside bounds that every linearization
// respects are pinned to the read directly (seeing uncommitted output, missing committed
// output, or less than an earlier read); the rest is decided segment by segment, exactly
// without a search for a segment with one read, by porcupine otherwise. The model counts
// records, not their values: a reader that sees an upserted record's value go back to an
// older one, while the count holds, is not flagged here (exactly-once judges the values that
// end up committed, not what readers saw on the way).
//
// liveness. Progress follows the heal: from the phase event that starts the liveness phase
// (else the heal phase; else the trace's first event when it has no phase events), a
// checkpoint completes within LivenessBounds.CheckpointAfterHealNanos; a bounded job's tasks
// (LivenessBounds.FinishTasks) end with task.finish and all of Reference.Output committed; and
// no task stays in alignment (barrier.recv without its snapshot.taken) longer than
// LivenessBounds.AlignmentMaxNanos unless the checkpoint aborted. A missed deadline is pinned
// to the first event after it, or to the last event when the trace ends at the deadline.
// The last stop-with-savepoint to end, unless the job restarted or had finished before it,
// is judged at the end of the trace like the bounded job: one that completed must have let
// every task exit, with job.finish naming it, and with drain (drain=true on its trigger)
// every task must have reached the end of its input first (stop.ends-the-job); one that
// aborted must have left the job running to the end of its input, and one with drain, whose
// sources ended their input, must have failed the job over (stop.failed-job-runs-on).
//
// determinism. The trace hashes (trace.HashEvents) to Reference.TraceHash, the hash recorded
// when the run was first made. FirstDifference compares two traces and names the first event
// where they part; CompareHashes compares two hashes.
//
// # Emitting a trace from another engine
//
// Write the schema of package trace: a header line, then one JSON object per event with seq
// counting from 0 and t in nanoseconds never decreasing, each kind with the fields and
// attributes trace.FieldsOf gives it. Attribute values may be JSON strings or numbers. The
// checkers know when an event happened only from its place in the trace, so record each
// event before anything it causes can be recorded elsewhere. Package protocol, "Tracing",
// maps each protocol output to its event and says when to emit it. "Evidence", above, says
// what each property needs. In short, emit:
//
//   - checkpoint.request, checkpoint.trigger, checkpoint.persist, checkpoint.complete and
//     checkpoint.abort from the coordinator; coordinator.crash and coordinator.recover.
//   - snapshot.taken with state and channel counts; snapshot.carried for every checkpoint
//     that holds a finished task's earlier final snapshot; barrier.send and barrier.recv;
//     snapshot.ack (final=true for a final snapshot) and state.release where uploaded state
//     is deleted (with incremental snapshots, the pieces attribute of snapshot.taken and
//     piece.release where a shared piece is); trigger.recv, marker.send and marker.recv.
//   - task.restore as every task starts (cp 0 when fresh), task.crash, task.finish, and
//     job.failover when the job restarts.
//   - for a stop-with-savepoint: stop=true on its checkpoint.trigger (and drain=true with
//     drain, whose failure fails the job over with reason drain-failed), the sources' offsets
//     (stop) on their snapshot for it, and stop=<its id> on the task.finish and job.finish
//     it causes.
//   - for split sources: split.assign as the coordinator sends a reader a split, split.add as
//     the reader takes it, the enumerator's state (unassigned) on every checkpoint.trigger,
//     and a reader's splits with their offsets (splits) on its snapshots.
//   - notify.complete and notify.abort when listeners are called.
//   - sink.write or sink.writes, sink.commit, sink.abort or sink.upsert; sink.read for
//     readers.
//   - phase events if the run has a fault phase, and fault events for injected faults.
package checker
