// Package sim is ckptsim's deterministic simulation kernel: a virtual clock, one event
// queue, named random streams derived from one seed, hosts that crash and restart, links
// between them, and durable storage that outlives the hosts. It knows nothing about
// checkpoints; the engine runs on it through scenarios' glue, and faults drive the hooks it
// exposes. A run is a pure function of its seed and of what the harness does to it.
//
// # The model
//
// A Kernel is one simulated world. Everything in it happens inside events: a function called
// at an instant of virtual time (Time, in nanoseconds since the start of the run). Nothing
// runs between events and no time passes inside one, so an event sees the world as it was
// when it began, plus its own changes. One kernel runs on one goroutine; parallelism comes
// from running many kernels (seeds) at once, and kernels share nothing.
//
// The things in a world:
//
//   - Host: a simulated process with a name and a boot function. Start calls boot, which
//     builds the incarnation's volatile state in its closures and registers its handlers
//     (SetReceiver, SetWritable, SetLinkBroken) and timers. Crash throws all of that away;
//     the next Start is a new incarnation (Incarnation counts them).
//   - Timer: calls a function at an instant. Host timers belong to one incarnation; kernel
//     timers (Kernel.NewTimer, At, After) belong to the harness and fire regardless of hosts.
//   - Link: a directed channel between two hosts, FIFO, with latency, jitter, a bound on the
//     messages in flight, and fault controls.
//   - Store: durable key-value storage shared by all hosts, with per-operation latency,
//     checksums and fault hooks.
//   - Rand: a named random stream (Kernel.Stream) with the distributions faults need.
//
// # Ordering guarantees
//
// Events fire in the order of (time, sequence number). Every scheduling takes the next
// sequence number, so events due at the same instant fire in the order they were scheduled,
// and the order never depends on maps, pointers or goroutines. The run loop asserts the order
// on every event. Consequences worth relying on:
//
//   - An event scheduled for "now" fires after everything already due now.
//   - A message is delivered in the same place of the order as if it were an event scheduled
//     when it was sent (a link queues only its front message, but with that message's own
//     sequence number).
//   - Messages on one link are delivered in the order they were sent, whatever the jitter,
//     extra latency, clogging or pauses, unless reorder is on (an out-of-model fault).
//   - There is no order between different links, nor between concurrent store operations:
//     each lands at its own instant.
//
// # Hosts: crash, restart and pause
//
// While a host is down nothing is delivered to it and nothing fires on it. Crash, at the
// instant it is called:
//
//   - disarms the incarnation's timers; they stay inert even after a restart;
//   - discards every event queued for the host: timer firings, message deliveries, storage
//     completions, writable and link-broken notifications;
//   - loses the messages in flight towards it (DropReceiverCrashed), so an incarnation only
//     ever receives messages sent after it started;
//   - forgets its handlers;
//   - keeps the messages it sent that are still in flight (the network has them; break the
//     links if the scenario wants lost-connection semantics) and the storage operations it
//     issued (see below).
//
// Start calls boot synchronously. Messages sent to a host while it is down are dropped at
// Send (DropReceiverDown). A host may crash itself from its own event; the rest of that event
// has no effect on the world.
//
// Pause(d) stalls a running host: its events that come due during the pause are moved to the
// instant the pause ends, in their original order, behind whatever is already due then. The
// host's links keep carrying messages towards it; they are delivered when it resumes.
//
// SetTimerSkew makes a host's timers run fast or slow: each duration given to one of its
// timers is scaled by integer parts per million and shifted by an offset. It models a host
// whose clock drifts; the virtual clock itself is the same for everyone.
//
// # Links
//
// Send either fails (ErrHostDown: the sender is down; ErrLinkBroken; ErrLinkFull: Capacity
// messages are in flight) or accepts the message. An accepted message may still be lost, and
// the sender is not told: the receiver was down, the link was partitioned when it was sent or
// when it came due, or the drop filter matched it. Each accepted message arrives Latency plus
// a uniform jitter in [0, Jitter] plus, if ExponentialMean is set, an exponential delay of
// that mean cut at ExponentialCap (both drawn from the link's own stream) plus any extra
// latency later, but never before a message sent before it. A message holds one credit of the link's
// capacity until it is delivered or lost; when a Send was refused for lack of room, the
// sender's writable handler is told, as its own event, once there is room.
//
// The fault controls (link_faults.go) are: SetPartitioned (one direction; cut both links for
// a symmetric partition), SetClogged (hold, do not lose), SetDropFilter (drop what matches,
// for example only barriers), SetDuplicateFilter, SetExtraLatency, SetReorder (breaks FIFO on
// purpose) and Break/Repair (a lost connection: messages in flight lost, both ends told
// through their link-broken handlers). None of them draws randomness: a fault that acts on a
// fraction of messages decides in its filter, with its own stream.
//
// Messages are opaque values; the kernel never copies or inspects them (except through the
// filters the harness installs). A link costs no allocation per message once its buffer has
// grown; a sender that passes pointers avoids boxing allocations of its own.
//
// # Storage
//
// Store operations (Put, Get, Delete, List) are asynchronous. Each takes effect in the store
// at its apply instant, Latency plus a uniform jitter plus any injected extra latency after it
// was issued, and its completion is delivered to the issuing host as its own event at that
// same instant. The rules, in the order that matters for recovery protocols:
//
//   - Once issued, an operation is in the store's hands: it takes effect even if the issuer
//     crashes first. A put that reached the store stays there.
//   - Its completion goes only to the incarnation that issued it: deferred while that host is
//     paused, dropped if it crashed. So "I got no answer" never proves "it did not happen".
//   - Put stores a copy of the value atomically, with its length and CRC-32C. A read that
//     finds them disagreeing with the stored bytes returns ErrCorrupt.
//   - Concurrent operations are unordered beyond their apply instants; wait for a completion
//     before issuing an operation that must come after it.
//
// Faults: SetFaultHook decides per operation, as it is issued, between failing it
// (ErrWriteFailed, ErrReadFailed), tearing a put (only a prefix stored), corrupting a put (one
// bit flipped), losing a put or delete after acknowledging it (out of model, for negative
// controls), and delaying it. SetUnavailable opens an outage window in which every operation
// that comes to apply fails with ErrUnavailable. Peek and Keys read the durable state at once,
// outside the simulation, for harnesses and checkers.
//
// # Randomness
//
// All randomness comes from Rand streams. Kernel.Stream(name) and NewRand(seed, name) seed a
// PCG generator from SHA-256 of the run's seed and the stream's name, so a stream depends on
// nothing but those two: creating streams in another order, or drawing more from one, never
// shifts another. The kernel names its own streams "link/<link>" and "store/<store>"; other
// components pick their own names. The distributions use integer arithmetic or a portable
// logarithm and exponential (detmath.go), so they give identical values on every
// architecture; TestStreamGolden pins them.
//
// # Running, phases and limits
//
// Run fires events until none is left (StopIdle), Stop is called (StopStopped) or a limit is
// hit. RunUntil(t) fires everything due up to t and moves the clock to t (StopReached), so a
// harness runs a fault phase, heals, and runs a liveness phase from a known instant; RunFor is
// the same with a duration. Every run has limits from Config, with defaults when left zero:
// MaxTime (virtual time), MaxEvents (events fired), MaxPending (events queued at once) and
// MaxInstantEvents (events fired at one instant: time that stands still is a loop).
// Hitting one returns a limit verdict (StopLimitTime, StopLimitEvents, StopLimitPending,
// StopLimitInstant; IsLimit reports them) instead of hanging, and the kernel stays stopped: later runs return
// the same verdict. A harness that stops on a predicate checks it in an event or observer and
// calls Stop.
//
// # Observing
//
// SetObserver installs a function that sees every kernel event as an Event value: hosts
// starting, crashing and pausing, messages sent, delivered, dropped (with a DropReason) and
// duplicated, links breaking and being repaired, and store operations taking effect. Without
// an observer no Event is built. Event.TraceEvent renders one as a trace event of kind
// "sim.*", for harnesses that want kernel events in their trace. SetObserverKinds limits the
// observer to some kinds, and the others are not built either.
//
// # Determinism rules
//
// The kernel keeps these, and code running on it must too:
//
//   - one run, one goroutine; no time.Now, no global math/rand, no goroutines in events;
//   - randomness only from named streams of the run's seed;
//   - no iteration over a map where the order can reach the trace, messages or scheduling
//     (the kernel keeps hosts, links and stores in creation order and store keys sorted);
//   - no floating-point arithmetic that may be fused or differ across architectures on any
//     path that decides what happens (integer parts per million for skew; detmath.go).
//
// The tests run a small randomized workload that exercises all of the above (runDemo, in
// demo_workload_test.go) and check that equal seeds give equal trace hashes (from concurrent
// goroutines, under -race), that different seeds give different ones, and that seed 1 gives
// a pinned hash on every machine.
//
// # What the kernel does not do
//
// It has no notion of a network topology, bandwidth or message size, only latency and a
// bound on messages in flight; no clock skew visible to hosts beyond timer skew; no partial
// failure inside a host (a host is up, paused or down); and no store semantics beyond a
// single linearizable key-value map with per-operation faults. Messages sent by a host that
// then crashes are still delivered. Time cannot go backwards and events cannot be scheduled
// in the past (that panics, as do other broken invariants; expected failures are the Err
// values).
package sim
