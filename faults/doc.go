// Package faults says what goes wrong in a run, when, and for how long: fault specs as data,
// triggers, schedules, the Injector that applies them, phases, and swarm generation.
//
// # The fault model
//
// A Fault is plain data: a Kind and the few parameters that kind takes (see the Kind
// constants). Kinds cover processes (crash a task, a host or the coordinator; pause a host;
// delay restarts), the network (drop barriers or control messages, break a channel, delay,
// partition, clog), data records (drop, duplicate, reorder), durable storage (failed, slow,
// torn, corrupted writes; failed reads; unavailability; lost acknowledged writes; each of
// the probabilistic ones narrowed to keys by a prefix if need be, such as one of two copies
// of a value), the external store sinks write to (transaction timeout, transient commit
// failure, a write refused or lost on its way) and time (timer skew).
// Instant kinds (crash.task, crash.coordinator, net.break) happen once; every other kind lasts
// for its window_ns and is then undone.
//
// Spans of virtual time (a fault's Window, Delay and Timeout, a trigger's At and After, the
// phases, the budget's MaxWindow, the system's FaultPhase) are Durations, the one duration
// type of the fault and scenario APIs (package scenarios names it too); in files they are
// integer nanoseconds, as every file written so far holds them (nanos.go).
//
// Every value has one JSON form, read back strictly by ParseSchedule (an unknown field, an
// unknown kind or a value out of range is an error naming the field, such as
// entries[2].fault.window_ns), and one stable line of text from String, in the style of
// pebble's metamorphic operations:
//
//	crash.task task=sum-2 when nth=3 on=snapshot.ack task=sum-2
//	net.partition from=src-0 to=sum-2 oneway window=250ms when t=1.5s
//
// # In model and out of model
//
// The protocol is entitled to some assumptions: data channels are FIFO and lose nothing
// silently (a lost connection is visible, and fails both ends), a durable write that was
// acknowledged stays written, and the external system of a two-phase-commit sink keeps a
// pre-committed transaction until it is told to commit or abort it. Every fault that keeps
// these assumptions is in model: however many of them hit a run, a correct protocol must stay
// safe, and once they stop it must make progress. Dropped barriers and control messages are in
// model (timeouts and newer barriers recover); so are crashes, partitions (a data channel
// stalls, it does not skip), torn and corrupted writes (detected on restore) and transient
// commit failures (retried), failed reads (retried, never taken for a missing value) and
// sink writes refused or lost (the sink checks its counts, fails, and the job replays).
//
// Five kinds break the assumptions on purpose: data.drop, data.duplicate, data.reorder,
// storage.lost and external.timeout. The last is the classic exactly-once trap: a store that
// aborts a prepared transaction before the sink commits it loses that output, whatever the
// protocol does, which is why Flink asks for a transaction timeout longer than the checkpoint
// interval plus the longest recovery. Kind.OutOfModel, Fault.OutOfModel and
// Schedule.OutOfModel mark them. A scenario that uses one is a negative control: it expects
// the checkers to report a violation, which shows that the checkers can see the consequence.
//
// An out-of-model fault breaks a run only where its effect reaches the output or a restore,
// and two of them often cannot, so that the generator (scenarios/generate) draws them where they cannot
// (storage.lost beside verified writes; external.timeout above the time a transaction may
// stay open):
//
//   - storage.lost: ckptsim's engine reads every snapshot and metadata write back before it
//     relies on it, so a lost write is found at once and handled as a failed one (in model:
//     the checkpoint fails). Only with checkpoint.unverified_writes does a lost write go
//     unnoticed, and then only a later restore or coordinator recovery that reads it shows a
//     violation. A snapshot small enough to travel with its acknowledgement
//     (checkpoint.inline_state_bytes) is never written to the state store at all.
//   - external.timeout: a transaction times out timeout_ns after it began, and only those
//     begun while the fault is in force get the short timeout. One that times out before its
//     pre-commit fails the sink's next write: the task fails, the job restores and replays,
//     and nothing is lost. Output is lost only when the timeout falls between the
//     transaction's pre-commit and its commit, that is when timeout_ns is shorter than the
//     interval plus the checkpoint's completion and notification.
//
// data.drop, data.duplicate and data.reorder act on records in flight, which every job has.
//
// # Triggers
//
// Each Entry of a Schedule pairs a Fault with a Trigger:
//
//   - At(t): at virtual time t.
//   - Nth(n, m): at the nth trace event that Match m accepts (kind, task, checkpoint; zero
//     fields match anything). Nth(3, Match{Kind: "snapshot.ack", Task: "sum-2"}) crashes at
//     sum-2's third acknowledgement, not the second or the fourth and not another task's.
//   - Chance(p, max, m): at each event m accepts, with probability p, at most max times.
//
// Event triggers are exact. The Injector is a trace.Recorder watcher: when the triggering
// event is recorded, the watcher runs inside Emit, emits the fault event (so it is the very
// next line of the trace) and calls the Target before Emit returns. So "crash the coordinator
// after checkpoint.complete and before any notification" is Nth(1, Match{Kind:
// "checkpoint.complete"}) with crash.coordinator: the crash holds before the engine code that
// emitted checkpoint.complete goes on to send notifications, and that code must find its
// incarnation dead and send nothing (Target obligation 1). Scheduling the crash "at the same
// virtual time" instead would not do: the rest of the step, notifications included, would run
// first.
//
// Event triggers count only in the fault phase, and the injector's own fault and phase events
// never match, so a fault cannot trigger on its own announcement.
//
// # Faults that never fire
//
// Nothing is injected outside the fault phase: not a fault, not an operator action. A time
// trigger after it would never fire, so System.CheckSchedule refuses one (CheckTimes: at_ns
// must be at most the fault phase's length, its last instant included). An event trigger may
// still never fire: its nth event may not happen in the phase, or its chance may never come
// up. Injector.Fired counts, per entry, the times its fault was injected, and
// Injector.Unfired lists the entries that never were, so that a run that passed without its
// faults says so instead of passing vacuously. An entry fired when its fault was injected
// (announced by a fault event with its entry index, and handed to the Target): a windowed
// fault when its window opened, even if heal closed it early; a chance trigger at its first
// injection of up to max. A trigger that came due once MaxFaults faults had been injected
// (Skipped) did not fire. A swarm's schedule is judged the same way, entry by entry.
//
// # Phases
//
// A run has a fault (safety) phase, then heal, then a bounded liveness phase (Phases).
// Injector.Start begins the fault phase; after Phases.Fault the injector heals: it ends
// every active effect through the Target (partitions heal, clogs clear, paused hosts resume,
// crashed hosts come back, storage and timers return to normal), calls Target.Heal so that
// whatever is still down restarts, and injects nothing more. Phases.Heal later the
// liveness phase begins, in which progress is required; it ends Phases.Liveness later.
// Each start is a trace event of kind phase with attribute phase=fault, heal, liveness or end,
// which is how checkers find the liveness window.
//
// # Trace events
//
// Every injected fault is announced by an event of kind fault: Fault is the kind's name, Task
// the task it hits (coordinator for crash.coordinator), From and To its link, and the other
// parameters are attributes under their JSON names in key order, with entry (the schedule
// index) and id (the EffectID). When a windowed effect ends, the same event is repeated with
// end=true.
//
// # Implementing Target
//
// faults never imports the engine or the scenarios: it acts through Target, which the scenario
// glue implements on top of the simulator and the engine, one method per effect. Windowed
// effects start under an EffectID and end with End(id); effects may overlap. Target's
// documentation lists the obligations: synchronous effect, no re-entry into the engine's step,
// per-id undo, probabilities drawn from the glue's own random sub-stream, and Heal restarting
// everything. The glue also implements Scheduler (Now and At on the simulator's queue, FIFO for
// equal times) and builds a System from its job graph to check schedules (CheckSchedule) and
// to draw swarms.
//
// # Swarm
//
// Swarm draws a Plan from a seed and a System: which kinds are on (each with probability 1/2),
// how often each hits, and how hard; then a Schedule from the plan. It keeps a Budget that
// leaves the system able to recover: at most MaxFaults faults, every window and delay at most
// MaxWindow and over before the fault phase ends, MinLiveHosts hosts never crashed or
// paused, and no out-of-model kind unless asked for. The schedule, not the seed, is what an
// artifact stores, so a replay does not depend on the swarm's draws staying the same.
// Operator actions and the operation faults added since the swarm's draws were fixed
// (storage.read-fail, external.write-fail, external.write-lost) are never drawn
// (Kind.Swarmable): one more kind in the plan would shift every later draw of every swarm.
// Schedules take them like any other kind.
//
// # Shrinking
//
// Schedule.Shrinks lists every one-step simplification: each entry removed, then each number
// of each entry halved (Without, Halve). Every candidate is valid and smaller in a well-founded
// order, so a shrinker that keeps any candidate that still fails always stops.
//
// # Determinism
//
// Nothing here reads the wall clock or a global random source, and nothing ranges over a map
// where the order could reach a schedule, a call or the trace. The injector's decisions depend
// only on the schedule, the order of trace events and of Scheduler callbacks, and its own
// random stream: a chance trigger draws exactly one number per matching event (entries in
// schedule order) while it may still fire. Entries due at the same moment fire in schedule
// order. Swarm draws in a fixed order from the *rand.Rand it is given; SwarmSeed seeds a PCG
// from the seed alone.
package faults
