// Package chandylamport is the classic Chandy-Lamport snapshot algorithm (K. M. Chandy and
// L. Lamport, "Distributed Snapshots: Determining Global States of Distributed Systems", ACM
// TOCS 3(1), 1985) as a library a host embeds: no I/O, no clock, no goroutines. A Process is a
// value the host steps with inputs; it answers with outputs (markers to send, a request to
// record the application's state, a report for the collector) that the host carries out, in
// the manner of etcd raft's RawNode. A Collector assembles the processes' reports into a
// GlobalSnapshot. A Graph holds the topology for the host and the collector.
//
// # The algorithm
//
// Processes are connected by directed channels: any directed graph, cycles included, with
// processes that have no inputs or no outputs; only self-loops are rejected. Channels are FIFO
// and lose nothing. A snapshot records each process's state and each channel's state (the
// messages in flight) such that the whole is a state the system could have been in.
//
// Marker sending rule. When a process records its state for snapshot s (because it initiates
// s, or because a marker of s arrives for the first time), it sends a marker of s on every
// outgoing channel before it sends anything else on them.
//
// Marker receiving rule. When a marker of s arrives on channel c: if the process has not
// recorded s yet, it records its state now, records c's state as empty, and starts recording
// every other incoming channel; otherwise c's state for s is the sequence of messages that
// arrived on c after the process recorded s and before this marker. Once every incoming
// channel has delivered its marker, the process's part of s is done: it emits a Report (its
// state and one ChannelState per incoming channel) for the collector.
//
// The cut is consistent because of FIFO: on each channel the marker separates the messages
// the sender sent before recording (which the receiver either consumed before recording, and
// so holds in its state, or records as channel state) from those sent after (which appear
// nowhere in s). The collector's snapshot therefore conserves whatever the application
// conserves, as the runnable example shows for tokens.
//
// Any process may initiate, at any time, and several snapshots may be in flight at once; each
// has its own id and its own recordings, and a message can be channel state of one snapshot
// and not of another. Ids are (origin, sequence number), the sequence number drawn from the
// origin's own counter by Initiate, so they are unique without coordination. As the paper
// allows, several processes may record the same snapshot spontaneously: Join does that.
//
// # Reachability
//
// Markers reach only the processes the origin can reach, and a snapshot completes only when
// every process has recorded it. On a strongly connected graph (the paper's setting) that is
// all of them. On any other graph, the host Joins the processes in Graph.Joiners(origin) to
// the snapshot in the same step as the Initiate; for example a process without inputs is
// reached by no one and is always a joiner (unless it is the origin).
//
// # The host's obligations
//
// The algorithm is only as correct as the host that carries it. The host must:
//
//  1. Give each channel FIFO order, without loss or duplication, with markers in the same
//     order as the application's messages. Why: the marker is what separates "sent before the
//     sender recorded" from "sent after"; a marker that overtakes a message or is overtaken
//     by one moves the message to the wrong side of the cut. The package cannot see the
//     network; a duplicated marker is refused with ErrDuplicateMarker when it can be told
//     apart, and reordering cannot be detected at all.
//  2. Call Receive for every application message a process consumes, at the moment the
//     application applies it, and HandleMarker for every marker, in the channel's order.
//     Why: a channel's state is exactly the messages consumed between the process's recording
//     and the channel's marker, and the process knows only what it is told. A host that
//     forgets Receive records every channel as empty (the property test's first negative
//     control catches exactly this).
//  3. After every Initiate, Join, HandleMarker and StateRecorded, take Ready and carry out the
//     outputs, in order, before the application consumes or sends anything more (Receive
//     never has outputs). Answering RecordState can produce more outputs: take Ready again
//     until it is empty. Items 4 to 6 say what each output asks.
//  4. RecordState: capture the application's state now and give it back with StateRecorded;
//     the process refuses every other input (ErrStatePending) until then. Why: the recorded
//     state must sit exactly at the marker, after every message consumed before it and
//     before every message consumed or sent after it, so record before the application moves
//     on, and pass a value that does not change when the application's state does.
//  5. Marker: put it on its channel now, before any message the application sends after the
//     recording. Why: a message sent after recording is not in the sender's recorded state;
//     if it reached the receiver before the marker it would be in the receiver's recorded
//     state too, and the snapshot would hold it twice (the property test's second negative
//     control holds markers back and is caught by token conservation).
//  6. Report and Abort: deliver to the Collector, exactly once. Timing and the order among
//     processes do not matter.
//  7. Initiate only between two steps of the application, when its state is well defined.
//     Start the snapshot at the Collector in the same step (ask Collector.Full first, since
//     the id is known only once Initiate returns), and Join Graph.Joiners(origin).
//  8. Join processes to one origin's snapshots in increasing Seq order, before any marker of
//     the snapshot can have reached them (joining in the same step as the Initiate does
//     both). Why: every process then first records one origin's snapshots in increasing Seq
//     order, which lets it tell a duplicate marker of a finished snapshot from the first
//     marker of a new one with a single counter per origin.
//  9. Keep each process's sequence numbers unique across restarts (Config.FirstSeq), and call
//     a Process or Collector from one goroutine at a time.
//
// # Limits
//
// Every queue is bounded. Config.MaxConcurrent bounds the snapshots a process tracks at once
// (from recording until its last incoming marker); beyond it Initiate, Join and the first
// marker of a new snapshot fail with ErrTooManySnapshots and change nothing. A process stops
// tracking a snapshot before it answers for it, so a host that lets at most N snapshots be in
// flight (the Collector's maxPending) and sets MaxConcurrent >= N never meets that error;
// when a marker meets it anyway, the process cannot follow the algorithm for that snapshot
// and the host must treat it as failed. Config.MaxRecordedPerChannel bounds the messages
// recorded on one channel for one snapshot; the message that would exceed it aborts the
// snapshot at that process: the recording is dropped at once, the process keeps following the
// snapshot's markers, and it answers with an Abort instead of a Report when the last one
// arrives. The collector then reports the snapshot as aborted (Status) and forgets it when
// every process has answered. Other processes keep recording an aborted snapshot until their
// own markers arrive; their recordings are bounded by the same limit.
//
// # Errors
//
// Inputs a correct host never produces (a duplicate marker, an unknown channel, an input
// while a state is pending, a report the collector does not expect) return errors that wrap
// the package's Err values and change nothing. Broken internal invariants panic.
//
// # Text forms
//
// Every output and snapshot has a stable String form, used in traces and in the golden
// scripts under testdata: "marker a#1 a->b", "record-state a#1 at b", "report a#1 by b:
// state=7 a->b=[] c->b=[m1]", "abort a#1 by b: c->b recorded over 3 messages". States and
// messages are rendered with fmt's %v, so they are as stable as their types' formatting.
//
// # What is not here
//
// The algorithm assumes reliable processes and channels. Crashes, lost or duplicated
// messages, and restoring from a snapshot are outside it; the checkpointing protocol in
// package protocol deals with those. Nothing here cancels a snapshot at other processes when
// one aborts it.
package chandylamport
