// Package simtarget makes the faults of package faults happen on a sim.Kernel. It holds the
// kernel-level half of a faults.Target, World, and the faults.Scheduler of a simulated run,
// Scheduler, so that scenario glue only has to write the engine-level half: crashing a task
// or the coordinator and failing the external store's transactions.
//
// # Assembling a target
//
// The glue builds its kernel (hosts, links, stores), then a World that maps the fault
// model's names onto it, then a Target that puts the World and its engine half together:
//
//	world, err := simtarget.NewWorld(k, simtarget.Config{
//		Hosts:    hosts,    // crash.host, pause.host, clock.skew name these, by sim name
//		Routes:   routes,   // fault link (task or coordinator ends) -> sim link
//		Stores:   stores,   // storage.* name these, by sim name
//		Classify: classify, // payload -> record, barrier, trigger, ack, notify or other
//	})
//	err = world.CheckSystem(system) // every host, store and channel of the system is known
//	target := simtarget.Target{World: world, Engine: glueEngine}
//	injector, err := faults.NewInjector(faults.Config{
//		Target: target, Scheduler: simtarget.Scheduler{Kernel: k}, ...})
//
// Names: host and store names in a schedule are the sim objects' names. Links are routed
// explicitly, because a sim link joins hosts while a fault link joins tasks (or the
// coordinator), and a host may run several tasks. A route with the coordinator at either end
// is a control link; any other is a data channel. Several routes may share a sim link, and
// then a link-wide fault on one of them hits all, since the kernel's controls are per link;
// one sim link per directed endpoint pair keeps faults precise.
//
// Classification: the kernel carries opaque payloads, so Config.Classify tells the World
// what a message is. It is asked only while a class-specific fault (net.drop, data.drop,
// data.duplicate) is active on the link. A batch of records counts as a record: data.drop
// loses the whole batch.
//
// # The engine half
//
// Target embeds *World, so the World's methods are the Target's, and forwards CrashTask,
// CrashCoordinator, TimeOutTransactions and FailCommits to Target.Engine. End goes to both
// halves (each ignores ids it did not start) and Heal to the World first, so that every host
// is up when the engine half restarts its processes. What the engine half owes:
//
//   - CrashTask and CrashCoordinator act at once (faults.Target obligation 1), emit
//     task.crash or coordinator.crash, and leave the restart to the system's failover,
//     delayed by World.RestartDelay, which is the sum of the restart.delay effects in force.
//   - After net.break, the broken sim links stay broken: both end hosts were told through
//     their link-broken handlers, and the glue repairs a link (sim.Link.Repair) when the
//     restarted tasks reconnect. Heal repairs every routed link in any case.
//   - A host crashed by crash.host comes back empty, by its boot function; restarting the
//     tasks that lived on it is the glue's failover, as after any host crash.
//
// # What each kind does to the kernel
//
//	net.drop           drop filter on the matching routes: messages of the class, with the
//	                   probability, at Send (an empty end matches any endpoint)
//	net.break          sim.Link.Break on the routes from -> to
//	net.delay          extra latency on the routes (delays in force add up; FIFO kept)
//	net.partition      control routes: cut (messages lost); data routes: clogged (held,
//	                   delivered in order afterwards); the reverse too unless oneway
//	net.clog           clogged
//	data.drop          drop filter on data routes, class record
//	data.duplicate     duplicate filter on data routes, class record
//	data.reorder       reorder window (Config.ReorderWindow) on data routes
//	storage.fail       fault hook: puts and deletes fail (sim.ErrWriteFailed)
//	storage.read-fail  fault hook: gets and lists fail (sim.ErrReadFailed)
//	storage.slow       fault hook: puts and deletes take delay_ns longer (slows add up)
//	storage.torn       fault hook: puts store a prefix; reads give sim.ErrCorrupt
//	storage.corrupt    fault hook: puts store a flipped bit; reads give sim.ErrCorrupt
//	storage.lost       fault hook: puts and deletes acknowledged and dropped
//	storage.unavailable  sim.Store.SetUnavailable: every operation, reads too
//	clock.skew         sim.Host.SetTimerSkew (skews in force add up, clamped)
//	crash.host         sim.Host.Crash now; Start when the last crash on it ends
//	pause.host         sim.Host.Pause, renewed every quantum while in force
//	restart.delay      restarts at the end of a crash wait longer; RestartDelay for the rest
//
// Reads are never slowed, and fail only by storage.read-fail and unavailability. A
// storage fault with a key hits only the operations on keys that start with it (a list by
// its prefix). external.write-fail and external.write-lost are the engine half's, like the
// other external-store kinds.
//
// # Overlapping effects
//
// Every link, store and host keeps the effects active on it in id order and recomputes its
// settings from that list when one starts or ends. So a link stays cut while any partition
// on it is active, held while any clog or data-channel partition is, a host stays down while
// any crash on it is, delays and skews add up, and End(id) undoes exactly effect id. When
// several probabilistic effects could hit the same message or write, they are asked in id
// order and the first that hits decides.
//
// # Pauses
//
// The kernel pauses a host for a given duration and cannot cut a pause short, but a
// pause.host effect lasts until End, whose time the World is not told. So a pause is
// renewed every Config.PauseQuantum (1ms by default) from a kernel timer, each renewal
// reaching 1ns past the next so that no event of the host slips through at a boundary. The
// host resumes when the current quantum runs out: at most a quantum plus 1ns after the
// effect ends, and 1ns after it when the window is a whole number of quanta. A paused host's
// pending events are moved once per quantum, so a long pause of a busy host costs events in
// proportion to its length over the quantum.
//
// # Determinism
//
// The World draws only from two kernel streams of its own, Config.StreamPrefix + "/net" (one
// draw per matching drop or duplicate rule per message, at Send) and + "/store" (one draw
// per matching rule per write, as it is issued), so its draws never shift the links' or the
// stores' own streams, and network and storage faults do not shift each other. Reorder
// delays come from the link's stream, as the kernel does it. The World keeps links, hosts and
// stores in the order of its Config and never ranges over a map.
//
// # Ownership
//
// A World owns the fault controls of what it was given: the partition, clog, filter,
// extra-latency and reorder settings of routed links, the fault hooks and outage flags of its
// stores, and the timer skew of its hosts. It sets them from its rule lists whenever they
// change, overwriting whatever else set them. Heal resets all of them, repairs every routed
// link and starts every host that is down, whoever crashed it.
package simtarget
