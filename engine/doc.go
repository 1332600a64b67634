// Package engine is a small dataflow engine that embeds the checkpoint protocol (package
// protocol) through its public API only, the way any stream processor would. It exists so
// that ckptsim has a real engine to break: records flow in network buffers with credit-based
// backpressure, barriers align or overtake, sinks commit in two phases against an external
// store with a transaction timeout, and failover restores state, source offsets and channel
// state. Everything it does is traced (package trace), and the checkers judge the trace.
//
// # The model
//
// A job is a Graph: operators with a parallelism, connected by edges with a partitioning
// (Forward, Hash by key, Rebalance, Broadcast). Each operator runs as tasks named
// "<operator>-<index>" (sum-2), except that a JobKind's operator may name its tasks
// (Operator.TaskNames: the processes N1, N2, ... of a chandy-lamport topology). The logics are
// Source (a partitioned, replayable log whose records are a pure function of the source's
// seed, partition and offset, with the stable record id "<source>:<partition>:<offset>"), Map,
// Filter, Aggregate (keyed count or sum with keyed state snapshotted in sorted key order),
// Union of two inputs, and Sink (two-phase commit, upsert, or plain append). Validation names
// the operator or edge at fault; cycles are allowed only in unaligned mode.
//
// Every task, the coordinator, the external store and its reader clients (only for a job with
// a sink: without one there is nothing to read) are processes on an Env, which the engine
// defines and a host implements: a clock, timers, FIFO messages between processes, durable
// storage, randomness and the trace. scenarios/simenv implements it on the deterministic
// simulator; nothing in this package knows about sim. A Runtime is one job on one Env (New,
// then Start).
//
// Data channels carry network buffers (batches of up to Network.BufferRecords records). A
// sender sends a buffer only against a credit; the receiver grants Network.Credits per
// channel and returns them as it consumes buffers, half the channel's credits per message
// (creditBatch), since a message per buffer would double the traffic. A receiver that
// blocks a channel for alignment, or is slow (Config.RecordCost per record), stops
// returning credits; its senders' output queues fill (Network.QueueBuffers) and they stop
// consuming in turn: that is backpressure, and it is why aligned checkpoints stall under
// skew and unaligned ones do not. Events (barriers, cancel markers, end of data or
// partition) need no credit but keep their place behind the buffers sent before them, and
// buffers and events carry the receiver's index of their channel, so that a delivery costs
// no look-up by the sender's name. A busy task takes no input until its processing time has
// passed; the end of a busy period costs an event only when input waits for it.
//
// Records travel in a compact form without pointers: the record id as an origin (an index
// into the job's catalog of id prefixes, "src:3:") and a number, the key as an index into the
// catalog's sorted keys, and the value (record.go, catalog.go). The catalog is computed from
// the graph, since sources make every id and key a job can carry. Strings are rendered only
// where something shows them: trace events, encoded state (which holds ids and keys in full,
// so its digest does not depend on the numbering) and the external store's rows. A run's
// records thus cost no allocation and nothing for the garbage collector to scan.
//
// This package is the barrier engine. The classic Chandy-Lamport algorithm on a token
// workload runs as another kind of job, in package engine/tokens: its Workload is the only
// operator of its graph and implements JobKind (kind.go), the one seam between the two.
// New takes a graph whose operator is a JobKind as that kind's job, and the Runtime then runs
// the kind's coordinator and task logic (through CoordinatorHost and TaskHost) in place of
// the protocol coordinator and protocol.Task; processes, channels and credits, the catalog,
// the snapshot format and storage stay this package's. Nothing below describes token jobs.
//
// # How it embeds the protocol
//
// Each task incarnation owns a protocol.Task. The engine feeds it every in-band event in
// channel order (Receive), asks Admit before each buffer (process, block, or record as
// channel state and process), forwards control messages (Step), and handles TaskReady in
// the documented order: snapshots first (a synchronous cut: operator state, source offsets,
// the per-channel record counters, and a 2PC sink's pre-commit), then the events to send,
// the sealing of unaligned channel state, aborts and releases, messages to the
// coordinator, and listener notifications last. A snapshot is uploaded to storage (and, with
// Config.VerifyWrites, read back) before SnapshotCompleted, unless it is at most
// Config.InlineStateBytes: then it travels inline, in its handle, and is durable with the
// checkpoint's metadata (inline.go); a 2PC sink also waits for the
// store to confirm its pre-commit. Unaligned barriers overtake queued data at both ends, as
// Flink's priority events do. At the receiver, a barrier handed over on arrival passes the
// buffers queued before it on its channel; the engine adds them to the checkpoint's channel
// state itself (the protocol sees them after the barrier) and then processes them as usual.
// At the sender, a barrier marked Priority passes the buffers waiting for credit; they become
// output-side channel state of the snapshot (taken out of its sent.<to> counts, since the
// receiver will see them after the barrier), are still sent, and are emitted again first on
// restore. The snapshot of such a task is finalised after its barriers are sent, so that it
// holds what they overtook.
//
// The coordinator process owns a protocol.Coordinator. It persists the id counter before
// any trigger goes out and the completed-checkpoint store (rewritten whole, one write at a
// time, so a failed write leaves the previous store) before a checkpoint completes, and
// only then sends notifications. Each of the two lives under two keys written in turn
// ("meta/counter.0" and ".1", "meta/completed.0" and ".1", each value tagged with a
// version), so that a torn or corrupted write spoils only the older copy and a recovering
// coordinator reads the newest intact one. A write counts as failed only when storage
// refused it or reading it back found it missing or wrong; a read-back that merely failed
// is retried, since the write may be durable. An abort of an id the durable counter does
// not cover yet (its counter write failed or was still in flight) is traced only once a
// later counter write covers it, so that no id that appears in the trace is handed out
// again after a crash. Discarded checkpoints leave the store; state is deleted only when
// the protocol releases it (a finished task's final snapshot is shared with newer
// checkpoints and savepoints), and after the store no longer names it. Once a finished job's
// tasks have all exited, the coordinator stops ticking: the protocol would otherwise keep
// re-sending the last completion.
//
// StopWithSavepoint (the operator action stop-with-savepoint) takes the protocol's
// synchronous savepoint. A source stops reading once its task took the stop's snapshot
// (protocol.Task.Stopping), so the records it sent before are the job's last; a task whose
// inputs end because the tasks upstream exited is not finished for it. Once the stop
// completes, sinks commit up to it and every task exits, with task.finish naming it, and
// job.finish names it too. A failover before the job ended restores from the stop, which the
// protocol keeps restorable, and the job runs on; so does one whose stop aborted.
// An enumerated source (Source.Enumerated) reads the splits the protocol's split enumerator
// hands its task (protocol.Topology.SplitSources, built from the graph): the task asks when
// it has read what it holds, and asks again if no answer comes in splitRetry polls; its
// snapshots record its splits with their offsets. The coordinator's split messages carry
// the attempt they were sent in, and a task takes only its own attempt's: the enumerator
// numbers them afresh after each restart. The completed-checkpoint store keeps the
// enumerator's state with each checkpoint of such a job.
//
// DrainWithSavepoint (stop-with-savepoint-drain) is the same with drain: a source's input
// ends at the trigger (protocol.Task.Finished), so it sends end of data ahead of the
// barrier, every task finishes as end of data reaches it (a stopping task's input ends
// only by end of data then, never by end of partition), and every task exits with a plain
// task.finish. A drain that aborts fails the job over (job.failover reason drain-failed).
//
// A 2PC sink embeds protocol.TwoPhaseCommit and is the task's protocol.Listener. Its
// transaction ids carry the writer epoch the store gave the incarnation, so they never
// collide across restarts. On restore it registers with the store (fencing predecessors and
// aborting their open transactions), commits the restored snapshot's pending transactions
// and aborts every other unfinished one.
//
// The store may go down (its host crashes) and lose the requests sent to it meanwhile
// without a word; its data survives. A sink therefore sends every request whose answer it
// waits for (registration, pre-commits, commits, recovery, confirmations) again every
// Store.RetryInterval until the store answers, and the store makes each idempotent. Writes
// travel unanswered; a pre-commit carries the number of records written into its
// transaction, and an upsert or append sink asks the store to confirm at each snapshot the
// number of records it wrote, so a lost write fails the snapshot and the task (the job
// fails over and writes it again) instead of a transaction committed short.
//
// Where the protocol hands a task something its contract rules out (an Admit answer it does
// not define, a second snapshot request for one checkpoint, channel state or a seal for a
// snapshot that records none, a restore without the task's snapshot, an error from Receive,
// Step, Finish or a snapshot's outcome where none is promised), the engine traces
// contract.broken (what, detail) and halts the job: every task and the coordinator die,
// nothing restarts, nothing more is traced (contract.go). It does not panic, because a
// panic throws away the trace that shows what went wrong. A panic raised inside the protocol
// (a runtime error there) breaks its promise never to panic and is met the same way: every
// entry into the engine is guarded (guard.go). Any other panic of the engine's own code
// while it serves a task or the coordinator (a nil dereference, an index out of range, a
// standard-library function's panic on a bad argument) fails it, as Flink fails a task or a
// JobManager whose code throws: task.crash or coordinator.crash with the panic and where the
// engine's code raised it as its reason, then the job halts, since the same input would fail
// it again. The rule task.fails-for-a-cause judges such a failure, which nothing caused. The
// engine's explicit checks (*InvariantError) go on as panics.
//
// # Failover
//
// A task that crashes (its host crashed, CrashTask, a failed commit, a lost connection) is
// reported to the coordinator after Config.FailureDetection. The coordinator asks the
// protocol for a failover; the plan names the latest completed checkpoint. The engine then
// cancels every task, waits Config.RestartDelay, and deploys a new attempt in which every
// task restores its state, source offsets, channel counters and channel state from that
// checkpoint (a finished task is restored finished), and a 2PC sink recommits. If a host is
// down the deployment is retried. The failover ends (protocol JobRestarted, so periodic
// checkpoints resume) only when every task of the new attempt reports that it has restored
// and runs, as Flink triggers no checkpoint while a task is not running; a task of the
// attempt that dies first ends it at once, with another failover. Exhausting the tolerable checkpoint failures makes the
// protocol ask for the same failover. A coordinator crash loses nothing durable: the next
// incarnation (StartCoordinator, called by the cluster manager, or by simenv when the
// coordinator's host restarts) reads the counter and the completed store, continues ids
// after the counter, and restarts the job from the latest completed checkpoint. Messages and
// failure reports of a cancelled attempt are recognised by their attempt number and dropped,
// but for acks: the protocol takes them as late, and releases the state they carry.
//
// # Resubmission and rescaling
//
// Resubmit stops the job and submits it again from its latest completed checkpoint in a
// restore mode (claim, no-claim, legacy); Rescale does the same with one operator, and the
// operators forward edges tie to it, at a new parallelism (rescale.go lists what it
// refuses and why). The new plan takes over when the failover that follows has cancelled
// the old tasks; the protocol's coordinator is built with the new topology and told that
// the restored checkpoint is the earlier job's (protocol.Restored.Rescaled). Each new task
// reads the snapshots of the earlier tasks whose state it takes over and combines them
// (restore_rescaled.go): an aggregate's keys of its key groups (protocol.RescaledFrom
// names the snapshots), a source's partitions p, p+n, ... each at its offset, taken from
// the union of every earlier source's offsets (union.go), a 2PC sink's own transactions
// and those of the gone sinks it adopts (sinkadopt.go: it registers as each with the
// store, which fences it, commits its pending transactions and aborts the rest, before it
// runs). Every channel is new, so its counters start at zero; the records
// the checkpoint held in flight (unaligned, or aligned with a timeout) go to the new tasks
// their edges now route them to, which process them on restore, ahead of any input and
// counted on no channel (restore_channels.go). The job.resubmit of a rescale lists the new
// job's tasks; each new task.restore names the snapshots it read (rescaled-from), for keyed
// state its key groups, for a source the union entries it kept (union.<operator>, which
// every source's snapshot.taken lists too) and, where checkpoints may hold channel state,
// the records it replayed from each earlier snapshot (replayed). A job that finished is not
// resubmitted.
//
// # Hooks for fault injection
//
// Runtime.CrashTask and FailTask (a lost connection, say) kill a task's incarnation;
// CrashCoordinator kills the coordinator, and StartCoordinator starts the next incarnation
// (simenv does so when the coordinator's host restarts); SetTxnTimeout, FailStoreCommits,
// SetCommitFaultHook and SetSinkWriteFaultHook (a sink's write refused, or lost on the way)
// act on the external store; SetExtraRestartDelay delays failover
// restarts. Classify names the class of any message the engine sends (records, barrier,
// trigger, ack, notify, ...), so that network faults can pick what to drop or hold. None of
// them steps the engine: they mark state and schedule work, so they may be called from a
// trace watcher in the middle of an engine step, and the hit incarnation does nothing more.
//
// # What it emits
//
// Every event of trace/schema.go, when it happens:
//
//   - coordinator: checkpoint.trigger (savepoint=true for savepoints, stop=true for a
//     stop-with-savepoint, drain=true as well with drain; periodic=true and
//     start, the id's reservation, for the periodic schedule's), checkpoint.persist when
//     the metadata write starts, checkpoint.complete when it is durable, checkpoint.abort with
//     the protocol's reason, coordinator.crash, coordinator.recover with the latest restorable
//     id read back, job.failover with the checkpoint restored from, job.finish once a bounded
//     job has finished (Finished: every task exited after its final checkpoint; a job that
//     finished is over, and a coordinator started after that starts nothing), state.release (task, and
//     the checkpoint the snapshot was taken for) as it deletes released state (at once, or
//     once a store write no longer names it) or drops inline state, and piece.release (task,
//     checkpoint uploaded for, piece) for each shared piece of an incremental snapshot it
//     deletes with it. A delete is retried until it took effect (read back with
//     VerifyWrites): a delete that failed or was lost would leave the state for good.
//   - tasks: barrier.send and barrier.recv per channel; trigger.recv as a trigger from the
//     coordinator goes into the protocol; marker.send and marker.recv per cancel marker and
//     channel; snapshot.taken with state (the digest
//     of the uploaded snapshot, its XXH64 in hex (Digest): operator state, source offsets,
//     counters, channel state, 2PC state; with incremental snapshots the digest is still of
//     the whole state, so that full and incremental snapshots of one state agree), sent.<to>,
//     recv.<from>, chan.<from> and pieces (the shared pieces an incremental snapshot refers
//     to); snapshot.ack (final=true for a
//     final snapshot) and snapshot.decline as the messages leave; state.release as a task
//     deletes an upload that finished after its checkpoint was given up, and piece.release
//     for the pieces that upload added; notify.complete and notify.abort as delivered to the listener;
//     task.crash (reason set for failures other than crashes), task.restore with cp (0 for a
//     fresh start) and state, task.finish when a bounded task exits; record.send and
//     record.recv with Config.TraceRecords.
//   - sinks and the store: sink.write per record a sink writes into a transaction (2PC, or an
//     append's one-batch transaction), or with Config.BatchSinkWrites one sink.writes per
//     buffer written, listing its records (off with Config.TraceSinkWrites false);
//     sink.precommit, sink.commit (records = records made visible, start = when the commit
//     was requested) and sink.abort (reason timeout, fenced, recovery, aborted) traced by the
//     store at the instant it applies them; sink.upsert per upserted record; sink.read by
//     each reader client with the visible record count and the time it asked.
//
// The counters of snapshot.taken count records since the job started, not since the
// incarnation started: a restore sets them back to the restored snapshot's values, and
// replaying restored channel state counts as consuming it. So for every completed
// checkpoint and every channel S->R, recv.S at R + chan.S at R = sent.R at S, across any
// number of failovers. snapshot.taken is emitted when the snapshot's content is final: at the
// synchronous cut, or for an unaligned snapshot when its channel state is sealed. A finished
// task takes part in later checkpoints with its final snapshot, carried over: it emits no
// snapshot.taken for them, and a restore from such a checkpoint emits task.restore with the
// id of the checkpoint its final snapshot was taken for (and that snapshot's digest), so
// that every task.restore matches a snapshot.taken of the same task and id.
//
// A coordinator that crashes after its metadata write reached storage but before it heard
// back leaves a durable checkpoint without checkpoint.complete in the trace; the next
// incarnation finds it, reports it in coordinator.recover and restores from it (as Flink
// does with a checkpoint found in its completed-checkpoint store). Its state is complete:
// every task acknowledged it before the write began. The engine assumes the store checks its
// writer's standing, as Flink's high-availability services do: a write a crashed coordinator
// left in flight lands before its successor starts or not at all (simenv's
// Config.LeaderChecked). Without that, a checkpoint could appear after the successor read
// the store, and a later recovery would restore sinks from it whose transactions the
// successor's restore from an older checkpoint had already aborted.
//
// ComputeReference gives what a failure-free run outputs, computed from the sources' logs
// without running the engine: the value per record id at each sink, the final keyed state and
// the final offsets. Exactly-once runs must commit exactly that, with any failures.
package engine
