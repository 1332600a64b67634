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
// check list), plus well-formed always and determinism when there is a trace hash. A
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
// What each property needs, and what it concludes without it:
//
//	property                needs                                          without it
//	well-formed             any event                                      unknown: no events
//	exactly-once,           Reference.Output                               unknown: no expected output
//	  at-least-once         (sink.write/writes, sink.commit, sink.upsert)  (no commit: records lost, fail)
//	consistent-cut          checkpoint.complete (or coordinator.recover)   unknown: no cut to judge
//	                        snapshot.taken or snapshot.carried for each    unknown: checkpoint n completed
//	                          completed checkpoint                           but no snapshot for it
//	                        channel counts (sent./recv./chan./out.) or     unknown: no snapshot counts a
//	                          tokens on those snapshots                      channel or tokens
//	expected-snapshot       Reference.Snapshots                            unexercised: none expected
//	                        checkpoint.complete or .abort of each          unknown: never completed
//	                        tokens, chan.<from> and chanmsgs.<from> on     unknown: a process or channel
//	                          the snapshots of its cut                       not (fully) recorded
//	restore-fidelity        task.restore from a checkpoint                 unexercised: nothing restored
//	                        state digests on restores and snapshots        unknown: no digest to compare
//	listener-contract       notify.complete, notify.abort or sink.commit   unexercised: no listener call
//	                                                                         (but with NotifyMaxNanos set, a
//	                                                                         completed checkpoint no live
//	                                                                         task was told of fails)
//	checkpoint-outcome      checkpoint.request or checkpoint.trigger       unknown: nothing asked for
//	                        a complete or abort of one                     unexercised: none ended
//	failure-accounting      Reference.Policy.TolerableFailures             unknown: no limit
//	                        abort reasons it can classify                  unknown: reason not classified
//	                        a counted failure or such a failover, judged   unexercised: none (a count
//	                          (not left above the limit at the end)          left waiting is not judged)
//	no-trigger-in-failover  job.failover                                   unexercised: no failover
//	                        task.restore before it (the job's tasks)       unknown: no end of a failover
//	no-pending-across-      job.failover                                   unexercised: no failover
//	  failover
//	no-trigger-after-finish every task's last lifecycle event task.finish  unexercised: never finished
//	(these three)           checkpoint.trigger                             unknown: checkpoints ended but
//	                                                                         none was triggered; else
//	                                                                         unexercised: none triggered
//	recovery-bound          Liveness.RecoveryMaxNanos                      unknown: no bound
//	                        a job.failover with no fault before deadline   unexercised: none judged
//	alignment-timeout       Policy.AlignmentTimeoutNanos, SwitchMaxNanos   unknown: no timeout or bound
//	                        barrier.recv at a sending task, no fault and   unexercised: none judged
//	                          a trace reaching its deadline
//	failure-cause           a task.crash with a reason                     unexercised: no task failed
//	                                                                         by itself
//	abort-reach             Liveness.AbortReachMaxNanos                    unknown: no bound
//	                        a checkpoint.abort (not failover) of one that  unexercised: none judged
//	                          tasks took part in, no fault, and a trace
//	                          reaching its deadline
//	durable-before-visible  checkpoint.complete (or recover of one)        unknown: nothing durable
//	                        checkpoint.persist before each completion      unknown: completion without persist
//	                        notify.complete, sink.commit of a checkpoint   unexercised: nothing depends
//	                          or coordinator.recover                         on the store
//	sink-visibility         sink.read                                      unknown: no reader to judge
//	liveness                a bound in Reference.Liveness                  unknown: no liveness bound
//	                        a heal or liveness phase after phase=fault     unknown: fault phase never healed
//	                        a trace reaching each deadline                 unknown: trace ends before it
//	                        something its bounds apply to                  unexercised: only the alignment
//	                                                                         bound, and no alignment
//	determinism             Reference.TraceHash                            unknown: no trace hash
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
// of as many tokens as chantokens.<from>.
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
// (LivenessBounds.NotifyMaxNanos after completion) lies in the trace. The rules exist because
// a two-phase-commit sink turns each notification into an irreversible external effect.
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
// a restore makes it run again. A coordinator.crash ends a failover and drops what was
// pending, since its successor starts both anew.
//
// failure-cause. A task fails by itself (a task.crash with a reason, which an injected crash
// does not carry) only after something that can make a healthy task fail: a storage or
// external-system fault, a fault on the external system's host or links, or a restart (a
// job.failover or coordinator.crash, after which fenced writers and older transactions are
// met). Otherwise the task failed for nothing and the failover that follows is needless
// (FLINK-10377's sink, failing on a notification it should have ignored). Which failures an
// engine reports of itself is its own, so Check judges this property only where the
// reference promises it; every scenario of ckptsim's engine does.
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
// completion, within Liveness.AbortReachMaxNanos. A missed deadline is pinned to the first
// event after it.
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
// event before anything it causes can be recorded elsewhere (package protocol, "Tracing",
// says event by event when; above all checkpoint.complete comes before the notifications of
// the checkpoint leave the coordinator's host). A property whose events are absent is
// unknown or unexercised, never passed, so emit everything the properties you care about
// need:
//
//   - checkpoint.request (cp) when a checkpoint is asked for, if it may wait before it
//     starts; checkpoint.trigger (cp; savepoint=true for savepoints), checkpoint.persist and
//     checkpoint.complete (cp) from the coordinator, checkpoint.abort (cp reason) when it
//     gives up, coordinator.crash and coordinator.recover (cp: the latest completed id it
//     read back).
//   - snapshot.taken (task cp) with state, and per channel sent.<to>, recv.<from>, chan.<from>
//     and out.<to> counts (zero counts may be left out); tokens and chantokens.<from> for
//     token workloads. snapshot.carried (task cp; taken) for every checkpoint that holds a
//     task's snapshot taken for an earlier one. barrier.recv (task from cp) for alignment.
//   - task.restore (task cp, 0 for a fresh start; state), task.crash, task.finish.
//   - notify.complete and notify.abort (task cp) when listeners are called.
//   - sink.write (task txn rid; value), or sink.writes (task txn; rids, values: a batch of
//     writes as space-separated lists, in write order), sink.commit (task cp txn; records,
//     start: cp is the checkpoint whose transaction it is), sink.abort (task txn), or
//     sink.upsert (task rid; value) for idempotent sinks; sink.read (task: the reader;
//     records, start) for readers.
//   - phase (phase=fault|heal|liveness|end) if the run has a fault phase.
package checker
