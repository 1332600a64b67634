// Package scenarios is where ckptsim's parts meet: the catalogue of named scenarios, the
// scenario file format, and the glue that runs one scenario on one seed with the engine on
// the simulator, the faults package's injector and the checkers, and judges the result.
//
// # Scenarios
//
// A Scenario is plain data: the job (topology, workload, sink), the checkpoint mode and its
// settings, a fault schedule or a swarm, the run's limits, the verdict it must give and the
// seeds a sweep uses by default. Files hold one as JSON, read by Parse: strictly (an unknown
// field, a duplicate key, a wrong type or a setting that does not apply is an error naming
// its path, such as scenario.faults[2].trigger.at_ns), then completed with defaults and
// validated. Builtins returns the catalogue; the negative controls among it are built to
// fail with a named property, so that a checker that stops catching its bug shows up as an
// unexpected pass.
//
// # Running
//
// Runner is the interface simrun and the tests drive: Plan derives what the seed decides
// before a run (the schedule a swarm draws), so that it can be printed first; Run executes
// the plan. Execute adds the judging (Result.Judge against Scenario.Expect) and turns a
// panic inside a run into a failed verdict, so a sweep goes on and the failure is kept.
// Simulation is the real Runner:
//
//  1. the scenario becomes an engine job (engineConfig: dataflow operators, or for mode
//     chandy-lamport the tokens operator of engine/tokens) and a reference model of what a
//     correct run produces (reference); what the job promises (Promises, from its mode, sink
//     and check list) is the fact checker.DefaultProperties chooses the run's properties from
//     (PropertiesToCheck), so that a run and simrun check against its reference judge alike;
//  2. scenarios/simenv places the job on a sim kernel seeded from the run's seed, and a
//     trace.Recorder records it, hashed as it streams;
//  3. the faults package's Injector runs the fault phase, heal and the liveness phase
//     against a Target (target.go): faults/simtarget's World for the kernel (hosts, links,
//     clocks), storage by key prefix, and the engine half (tasks, coordinator, external
//     store);
//  4. the checkers judge the trace against the reference; the verdict is pass, fail,
//     unknown when a property could not be decided (checker's word, with the same meaning),
//     or limit when the run hit a virtual-time or event limit before it could be judged.
//     Two violations come from the run itself rather than the trace: invariant, when the
//     protocol's check of its own state fails (every simulated run turns it on), and quiet,
//     when the coordinator of a finished job still sends (quiet.go: the evidence, sends lost
//     to exited tasks, never reaches the trace).
//
// A fault that never fired is never a silent pass. Validation refuses a time trigger after
// limits.fault_phase, when the injector injects nothing (validate_fault_times.go), naming the
// entry. An event trigger may still never fire; Result.FaultsUnfired lists those entries
// (faults.Injector.Unfired says what fired means) and Result.UnfiredFaults describes them, so
// a test can assert that its faults happened. Expect.EveryFaultFires, the file's
// expect.every_fault_fires, makes a judged run with one unexpected, naming it.
//
// A chandy-lamport scenario runs its processes as the tasks of one tokens operator: p-0,
// p-1, ... on a ring (topology cycle), or on an explicit topology the process nodes
// themselves, called by their names as written (N1, N10, left_2: letters of either case,
// digits, '-' and '_', starting with a letter; never coordinator, extstore or reader-<i>,
// the engine's own processes, which share their namespace) in the script, the initiators,
// the faults and the trace. Every process starts with the workload's initial_tokens, or
// with the tokens its node gives (Node.Tokens: one process with the only token, another
// with none); every global snapshot must conserve their sum (Scenario.TokenTotal). A token
// job has no sink, and so no reader of the external store, and its traces no sink.read.
//
// A chandy-lamport scenario may carry a script instead of random transfers: a hand-written
// exercise whose sends and snapshots the engine makes at their times (tokens.Script),
// and whose crashes and restarts the glue performs on the simulator as outages of the
// processes' hosts. A crash fails the job over to the latest completed global snapshot, which
// rolls every process back and makes the sends since then again; the job comes back with the
// restart. A snapshot starts in the instant the script asks for it (if max_concurrent
// allows), since the coordinator reserves ids ahead in blocks. A wait-snapshots step stops
// the script's clock until every snapshot asked for has completed or aborted, and gives up,
// stopping the run with the verdict limit, when the rest of the script would no longer fit
// in the fault phase. script.go holds the semantics in full, and chandy-lamport-classic is
// the catalogue's worked example.
//
// The network section (network.go) sets how long messages take, for every workload: a
// latency model (fixed, uniform or exponential with a cap) for every link between hosts,
// and per-link models for the host links that carry named channels. Absent, links keep the
// built-in delay (uniform 500us to 700us). Delays are drawn from each sim link's own stream
// and links stay FIFO.
//
// A run is a pure function of its scenario and seed: the trace hash is the same at any
// GOMAXPROCS and under the race detector, which the tests check.
//
// # Generated scenarios
//
// The catalogue is a few dozen points; Generate draws a scenario from a seed anywhere in the
// space a correct protocol must survive (every mode, topology, workload, sink, checkpoint
// setting, limit and in-model fault style), expecting a pass. simrun sweep -generated runs
// the scenario of each seed on that seed. Drawn is the same draw as a rapid generator, whose
// failures shrink by structure, and TestCorrectProtocolPassesGeneratedScenarios runs a few
// dozen through it, so that a false alarm anywhere in the space, not only in
// the catalogue, shows up as an unexpected verdict.
//
// # Artifacts and shrinking
//
// An Artifact records a run completely (the scenario inline, the seed, the fault schedule,
// the build, the trace hash, the verdict and violations), so it replays without the
// catalogue. Shrink searches for a smaller case that fails the same property: delta
// debugging over the schedule, bisection of the input size, then halving of the faults'
// numbers.
package scenarios
