package generate

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// Name is the name of every scenario Generate draws; its description says what was
// drawn, and the seed that drew it is the seed it runs with in a generated sweep.
const Name = "generated"

// generatorStream keys the generator's PCG stream ("generate"), so that a seed's scenario
// shares no draws with the run of that seed, whose streams are keyed by their own names.
const generatorStream = 0x67656e6572617465

// Generate draws a scenario from seed over every knob of the scenario file that a correct
// protocol must survive: the mode; the topology (every built shape the engine can judge and
// explicit graphs, up to 12 stages, 10 inputs or 16 cycle processes now and then); the
// parallelism; the workload and its size and pace (1 to 100,000 keys; for chandy-lamport,
// random transfers of up to a million tokens or a script of sends, snapshots, crashes and
// restarts); the sink; every checkpoint setting (intervals from 5ms to 20s, mostly 20ms to
// 2s; timeouts from 50ms to a minute; min pause up to twice the interval; 1 to 16
// concurrent checkpoints where the mode allows more than one; 0 to 1000 tolerable failures;
// 1 to 100 retained checkpoints; alignment timeouts from a nanosecond to twice the
// checkpoint timeout; inline state; unverified writes); the phases and limits; and the
// faults: none, a schedule of in-model entries on times and on trace events, or a swarm.
// TestGenerateSpansTheSpace checks that every field and fault kind is drawn or listed as
// left out with its reason.
//
// Event triggers count either a step of a checkpoint's path or a moment where a fault hurts
// most (an abort, a decline, a coordinator recovery, a failover, a restore, a task
// finishing, a pre-commit, a release). Six regimes are drawn on purpose, since faults at
// random almost never reach them:
//   - long runs (one draw in five): intervals of 20 to 40ms and a fault phase long enough
//     for k checkpoints to complete, k from 1 to 300 or at 9, 10, 11, 99, 100 and 101, and
//     faults after the k-th completion, or at the completion of checkpoint 9, 10, 99 or 100:
//     mostly coordinator crashes, beside several retained checkpoints, so that recovery
//     chooses among ids on both sides of a digit edge; and a read failure or corruption of
//     one copy of the completed-checkpoint store right before one;
//   - savepoints followed by a coordinator or task crash at the next completion, or a few
//     later, so that a recovery meets a store whose newest entry is a savepoint (which a
//     correct job does not restore: savepoints commit nothing) or the checkpoints after it;
//   - failed reads and writes of single keys or copies of every durable store
//     (storage.read-fail, storage.fail, torn, corrupted and lost writes with a key prefix),
//     and refused or lost writes of every sink kind (external.write-fail, -lost);
//   - transaction timeouts of a two-phase-commit sink, configured or injected as
//     external.timeout, above the bound on how long a transaction may stay open
//     (scenarios.Scenario.OpenTransactionBound documents the formula).
//   - the end of a bounded job (one dataflow draw in four): savepoints and checkpoints
//     asked for, notifications lost and tasks crashed at the k-th task.finish, while some
//     tasks have finished and others run;
//   - congestion (one draw in four with data channels): two to six clogs and delays of
//     data channels, into one task or anywhere, each half to twice a checkpoint timeout
//     long, so that checkpoints time out while barriers, cancel markers and data queue
//     together on the held channels (see congestion).
//
// Two regimes of who owns the state are drawn last (generate_state.go): incremental
// snapshots for a third of the dataflow jobs, and, for one dataflow job in eight, a
// resubmission from the latest checkpoint in a restore mode (claim, no-claim, legacy).
//
// Its expectation is pass with the default properties, so any other verdict on any seed is
// a bug: in the protocol, the engine, a checker, or this generator.
//
// What it leaves out, and why:
//   - faults no protocol survives: data.* always; storage.lost beside unverified writes,
//     which cannot see it; external.timeout below the bound above;
//   - unverified writes beside torn, corrupted or lost ones, which only the read-back
//     catches: the misconfiguration negative controls show;
//   - dataflow cycles, whose output depends on timing (this build refuses to judge them),
//     and graphs that feed a sum a key's records from several channels, for the same reason;
//   - a bound on channel state (see checkpoint), network delays above 3ms and
//     parallelism above 8: regimes that cost far more to run
//     than they reach;
//   - unbounded input, which a scenario file cannot ask for: every source is bounded. The
//     input is either short, ending inside the fault phase (faults then hit a finishing
//     job), or long enough to outlast the fault and heal phases.
//
// The draw is a pure function of seed (math/rand/v2 from the seed alone, no map order), and
// the scenario it returns is complete: defaults applied and validated. A draw that validation
// refuses is a bug of this generator, and panics.
func Seed(seed uint64) *scenarios.Scenario {
	s := generateWith(rand.NewPCG(seed, generatorStream), fmt.Sprintf("Seed(%d)", seed))
	s.Seeds = &scenarios.SeedRange{First: seed, Last: seed}
	s.Description = fmt.Sprintf("Drawn by generate.Seed from seed %d: %s.", seed, Summary(s))
	return s
}

// GenerateFrom draws a scenario as Generate does, with every choice taken from src instead
// of a seed's stream. A fuzzer's bytes read as a source (see the scenarios' fuzz test) steer
// each choice of the draw directly, which a seed, hashed into a stream, cannot. The
// scenario's seeds are left unset: the caller runs it on whatever seed it likes.
func From(src rand.Source) *scenarios.Scenario {
	s := generateWith(src, "GenerateFrom")
	s.Description = "Drawn by generate.From: " + Summary(s) + "."
	return s
}

func generateWith(src rand.Source, who string) *scenarios.Scenario {
	g := &generator{r: rand.New(src)}
	s := g.scenario()
	if err := s.Complete("generated"); err != nil {
		panic(fmt.Sprintf("scenarios: %s drew an invalid scenario: %v\n%s", who, err, scenarios.Marshal(s)))
	}
	return s
}

// generator holds one draw.
type generator struct {
	r *rand.Rand
	// copies is how many times the sinks receive each source record: a broadcast
	// multiplies it by the receivers, a diamond doubles it. sourceTasks counts the source
	// subtasks. Together they bound the input, so that a drawn job can keep up with its
	// own input (see input).
	copies      int
	sourceTasks int
	// late is the completion count a long run's late faults wait for (0: an ordinary run;
	// see lateRun).
	late int
}

// maxCopies bounds how many times a broadcast or a diamond may multiply each record, and
// maxOutputRecords the records all sinks receive in a failure-free run: a job that writes
// more than that cannot keep up with its input on the simulator, its checkpoints take
// ever longer after a failover, and a correct run fails liveness for its size alone.
const (
	maxCopies        = 8
	maxOutputRecords = 60_000
	// maxKeySpace bounds the keys all source partitions may name together.
	maxKeySpace = 200_000
)

func (g *generator) scenario() *scenarios.Scenario {
	s := &scenarios.Scenario{Name: Name, Mode: pick(g, scenarios.Modes), Expect: scenarios.Expect{Verdict: scenarios.VerdictPass}}
	// The phases first: the input's length and the faults' times are drawn against them.
	s.Limits.FaultPhase = scenarios.Millis(100 * g.between(5, 30))
	s.Limits.HealPhase = scenarios.Millis(100 * g.between(2, 10))
	s.Checkpoint.Interval = g.interval()
	g.late = g.lateRun(s)
	if s.Mode == scenarios.ModeChandyLamport {
		g.chandyLamport(s)
	} else {
		g.dataflow(s)
	}
	g.checkpoint(s)
	if s.Mode == scenarios.ModeChandyLamport {
		raiseBalances(s)
	}
	g.limits(s)
	g.faults(s)
	// Drawn last, so that adding it moved no other draw of a seed.
	if len(s.Faults) > 0 && g.r.IntN(2) == 0 {
		s.Faults = append(s.Faults, g.crashAfterCheckpoint(s))
	}
	if s.Swarm == nil && g.late > 0 {
		s.Faults = append(s.Faults, g.lateFaults(s, g.late)...)
	}
	if s.Swarm == nil && g.r.IntN(6) == 0 {
		s.Faults = append(s.Faults, g.savepointRestore(s)...)
	}
	// Drawn on the last value rather than the first, so that a draw rapid shrinks (towards
	// zeros) leaves it out.
	if s.Swarm == nil && s.Mode != scenarios.ModeChandyLamport && g.r.IntN(4) == 3 {
		s.Faults = append(s.Faults, g.jobEnd(s, s.System())...)
	}
	// Drawn after that, for the same reason.
	if sys := s.System(); s.Swarm == nil && len(sys.Channels) > 0 && g.r.IntN(4) == 3 {
		s.Faults = append(s.Faults, g.congestion(s, sys)...)
	}
	// Drawn after that, for the same reason.
	if s.Mode == scenarios.ModeChandyLamport && s.Topology.Kind == scenarios.TopologyExplicit {
		g.processTokens(s)
	}
	// Faults drawn after the choice of unverified writes may damage writes, which only
	// verified writes find (see faults): they turn it off again.
	if mayDamageWrites(s) {
		s.Checkpoint.UnverifiedWrites = false
	}
	// Drawn after that, for the same reason.
	g.network(s)
	// Drawn after that, for the same reason; before the transaction timeouts, whose bound
	// it lifts.
	g.manualCheckpoints(s)
	// After every fault, which the bound on open transactions counts.
	g.transactionTimeouts(s)
	// Drawn after that, for the same reason.
	g.pendingTransactions(s)
	// A wait for snapshots in a run with injected faults may outlast the fault phase (a
	// partition or an unavailable store can hold its snapshots until after), which ends the
	// run at a limit without any bug: waits stay only in fault-free draws. Removing them
	// draws nothing, so no other draw moves.
	if len(s.Faults) > 0 || s.Swarm != nil {
		s.Script = slices.DeleteFunc(s.Script, func(st scenarios.Step) bool { return st.Op == scenarios.StepWaitSnapshots })
	}
	g.latest(s)
	return s
}

// latest makes the draws added last, each after the one added before it, so that adding
// one moved no earlier draw of a seed.
func (g *generator) latest(s *scenarios.Scenario) {
	g.incremental(&s.Checkpoint, s.Mode)
	g.resubmission(s)
	g.stopWithSavepoint(s)
	g.keyGroups(s)
	g.splitSources(s)
	g.partitions(s)
	g.rescale(s)
}

// interval draws the checkpoint interval. Short intervals make many checkpoints (ids past
// 9 and 99); long ones leave a job to run for seconds between two, as production jobs do.
func (g *generator) interval() scenarios.Duration {
	interval := g.spread(scenarios.Millis(20), scenarios.Seconds(2))
	switch g.r.IntN(32) {
	case 0:
		interval = g.spread(scenarios.Millis(5), scenarios.Millis(20)) // a checkpoint every few records
	case 1:
		interval = g.spread(scenarios.Seconds(2), scenarios.Seconds(20)) // longer than the fault phase
	}
	return interval
}

// limits draws the liveness bound and the run's limits, once the input and the checkpoint
// settings are known. Progress after heal needs a checkpoint to time out (a trigger lost
// to a fault leaves one pending until then), the pause and the interval to pass and the
// next to complete: the bound leaves twice that and a second for the job's own recovery.
// A bounded job must also finish in it, so input that runs on past heal adds its tail.
func (g *generator) limits(s *scenarios.Scenario) {
	c := s.Checkpoint
	l := &s.Limits
	tail := max(0, scenarios.Duration(s.Workload.InputEndNanos())-l.FaultPhase-l.HealPhase)
	need := tail + 2*(c.Timeout+c.MinPause+c.Interval) + scenarios.Seconds(1)
	if g.late > 0 {
		// A long run's faults may each rewind the job to an old checkpoint, and the
		// rewound input is made again at its pace: progress lost in the fault phase, up to
		// all of it, still has to be made after heal.
		need += l.FaultPhase
	}
	l.LivenessBound = max(scenarios.Seconds(3), need) + scenarios.Millis(100*g.between(0, 20))
	if g.r.IntN(2) == 0 {
		// The phases (the liveness phase runs a quarter past its bound) and up to 5s more.
		l.MaxVirtualTime = l.FaultPhase + l.HealPhase + l.LivenessBound*5/4 + scenarios.Millis(100*g.between(0, 50))
	}
	if g.r.IntN(2) == 0 {
		// Far above what the largest draw needs, so that no run ends at the limit.
		l.MaxEvents = g.between(scenarios.DefaultMaxEvents, 5*scenarios.DefaultMaxEvents)
	}
	// A wide job checkpointing often for a long run traces a few events a task for every
	// checkpoint and record (seed 94397 of an earlier draw: 84 tasks, 25ms, 56s, some 28 a
	// task and checkpoint): room for 32.
	run := l.FaultPhase + l.HealPhase + l.LivenessBound*5/4
	events := int64(run/max(c.Interval, scenarios.Millis(1))) * int64(len(s.Graph().Tasks())) * 32
	if events > max(l.MaxEvents, scenarios.DefaultMaxEvents) {
		l.MaxEvents = min(events, 5*scenarios.DefaultMaxEvents) // the most the draw above gives: memory
	}
}

// processTokens gives, half the time, some processes of an explicit topology balances of
// their own (node tokens) instead of the workload's initial_tokens: for a script, whose
// sends wait for the tokens they need, none a third of the time and else up to twice
// initial_tokens; for random transfers, which would otherwise crawl (see chandyLamport), no
// fewer than ten of the largest transfer. While the transfers can then not all be made,
// the drawn balances below initial_tokens are raised to it, one process at a time in node
// order: more tokens never keep a transfer from being made, so the draw ends valid.
func (g *generator) processTokens(s *scenarios.Scenario) {
	if g.r.IntN(2) == 0 {
		return
	}
	initial := s.Workload.InitialBalance()
	scripted := len(s.Script) > 0
	least := min(10*s.Workload.MaxTransfer, initial)
	if scripted {
		least = 0
	}
	nodes := s.Topology.Nodes
	for i := range nodes {
		switch {
		case g.r.IntN(2) == 0:
		case scripted && g.r.IntN(3) == 0:
			nodes[i].Tokens = scenarios.TokenCount(0)
		default:
			nodes[i].Tokens = scenarios.TokenCount(g.between(least, 2*initial))
		}
	}
	valid := func() bool {
		c := s.Clone()
		if c.Complete("generated") != nil {
			return false
		}
		return c.EngineAccepts() == nil
	}
	for i := 0; i < len(nodes) && !valid(); i++ {
		if nodes[i].Tokens != nil && *nodes[i].Tokens < initial {
			nodes[i].Tokens = scenarios.TokenCount(initial)
		}
	}
}

// crashAfterCheckpoint crashes a task right after one of the first checkpoints completes, so
// that the job restores from a checkpoint and restore-fidelity has something to judge: of
// the drawn faults alone, most runs restore nothing (a sweep found restore-fidelity
// unexercised in three runs of five).
func (g *generator) crashAfterCheckpoint(s *scenarios.Scenario) faults.Entry {
	m := faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}
	return faults.Entry{Trigger: faults.Nth(int(g.between(1, 3)), m), Fault: faults.Fault{Kind: faults.CrashTask, Task: pick(g, s.Graph().Tasks())}}
}

// dataflowTopologies are the shapes the generator draws for the dataflow modes: every kind
// but cycle, whose output depends on timing.
var dataflowTopologies = []string{scenarios.TopologyPipeline, scenarios.TopologyKeyedShuffle, scenarios.TopologyFanInUnion, scenarios.TopologyDiamond, scenarios.TopologyExplicit}

func (g *generator) dataflow(s *scenarios.Scenario) {
	s.Workload.Kind = pick(g, []string{scenarios.WorkloadKeyedSum, scenarios.WorkloadPassThrough})
	if s.Workload.Kind == scenarios.WorkloadKeyedSum {
		s.Workload.Keys = int(g.between(1, 32))
		if g.r.IntN(8) == 0 {
			s.Workload.Keys = int(g.spread(1, scenarios.MaxKeys)) // more keys than records, now and then
		}
	}
	t := &s.Topology
	t.Kind = pick(g, dataflowTopologies)
	if t.Kind == scenarios.TopologyExplicit {
		g.explicitDataflow(s)
	} else {
		t.Parallelism = g.parallelism()
		g.copies, g.sourceTasks = 1, t.Parallelism
	}
	switch t.Kind {
	case scenarios.TopologyPipeline:
		t.Stages = int(g.between(1, 3))
		if g.r.IntN(8) == 0 {
			t.Stages = int(g.between(4, 12))
		}
	case scenarios.TopologyFanInUnion:
		t.Inputs = int(g.between(2, 4))
		if g.r.IntN(8) == 0 {
			t.Inputs = int(g.between(5, 10))
		}
		g.sourceTasks *= t.Inputs
	case scenarios.TopologyDiamond:
		g.copies = 2
	}
	s.Workload.Records, s.Workload.RecordInterval = g.input(s)
	if s.Workload.Keys*g.sourceTasks > maxKeySpace {
		// Keyed state is kept per key the partitions may name: forty partitions of 84,000
		// keys each, restored again and again, took gigabytes (seed 146745 of an earlier
		// draw). Drawn after every other choice, so no draw moves.
		s.Workload.Keys = max(1, maxKeySpace/g.sourceTasks)
	}
	if g.sourceTasks > 1 && g.r.IntN(2) == 1 {
		// Source subtasks that end apart, by half an interval to a few: some tasks finish
		// while others run and checkpoints go on (Flink's checkpoints after tasks finished).
		hi := min(4*s.Checkpoint.Interval, scenarios.Seconds(4))
		s.Workload.Stagger = g.spread(min(max(scenarios.Millis(1), s.Checkpoint.Interval/2), hi), hi)
	}
	s.Sink = &scenarios.Sink{Kind: pick(g, scenarios.SinkKinds), TraceEachWrite: g.r.IntN(4) == 0}
	if s.Sink.Kind == scenarios.SinkTwoPhaseCommit && g.r.IntN(2) == 0 {
		// Long enough that no run outlives it: a timeout a transaction can outlast is the
		// exactly-once trap control-short-txn-timeout shows.
		s.Sink.TransactionTimeout = scenarios.Seconds(3600)
	}
}

// parallelism is mostly small, now and then wide.
func (g *generator) parallelism() int {
	if g.r.IntN(8) == 0 {
		return int(g.between(5, 8))
	}
	return int(g.between(1, 4))
}

// explicitDataflow draws an acyclic graph: one or two sources (two merged by a union), a
// chain of maps with drawn partitioners, at most one sum, optionally a split into two
// branches joined again, and a sink. A sum sits only where a key's records still arrive in
// the log's order on one channel (no rebalance or broadcast to several tasks before it, and
// no split, since both copies of a record would meet in it), so the output never depends on
// timing.
func (g *generator) explicitDataflow(s *scenarios.Scenario) {
	t := &s.Topology
	ordered := true // a key's records still come in log order on one channel
	last := ""
	parallelismOf := func(name string) int {
		return t.Nodes[slices.IndexFunc(t.Nodes, func(n scenarios.Node) bool { return n.Name == name })].Parallelism
	}
	add := func(name, kind string, parallelism int) {
		if last != "" {
			t.Links = append(t.Links, scenarios.Link{From: last, To: name, Partition: g.partition(parallelismOf(last), parallelism, kind == scenarios.NodeSum, &ordered, &g.copies)})
		}
		t.Nodes = append(t.Nodes, scenarios.Node{Name: name, Kind: kind, Parallelism: parallelism})
		last = name
	}
	g.copies = 1
	add("src_a", scenarios.NodeSource, g.parallelism())
	g.sourceTasks = t.Nodes[0].Parallelism
	if g.r.IntN(2) == 0 {
		merge := g.parallelism()
		add("merge", scenarios.NodeUnion, merge)
		p := g.parallelism()
		g.sourceTasks += p
		t.Nodes = append(t.Nodes, scenarios.Node{Name: "src_b", Kind: scenarios.NodeSource, Parallelism: p})
		// Both sources' records meet in merge, each once per copy its link makes; one
		// count of copies serves both, the larger.
		copiesB := 1
		t.Links = append(t.Links, scenarios.Link{From: "src_b", To: "merge", Partition: g.partition(p, merge, false, &ordered, &copiesB)})
		g.copies = max(g.copies, copiesB)
	}
	for i := range g.between(0, 2) {
		add("map"+strconv.FormatInt(i+1, 10), scenarios.NodeMap, g.parallelism())
	}
	if ordered && g.r.IntN(2) == 0 {
		add("sum", scenarios.NodeSum, g.parallelism())
	}
	if 2*g.copies <= maxCopies && g.r.IntN(3) == 0 {
		// A diamond: both branches carry every record to the join, so the copies of the
		// two branches add up; each branch gets half of what is left for broadcasts.
		split := last
		p := g.parallelism()
		join := g.parallelism()
		branch := func() (string, string, int) {
			copies := 2 * g.copies // counted as if the other branch made as many
			in := g.partition(parallelismOf(split), p, false, &ordered, &copies)
			out := g.partition(p, join, false, &ordered, &copies)
			return in, out, copies / 2
		}
		leftIn, leftOut, leftCopies := branch()
		rightIn, rightOut, rightCopies := branch()
		g.copies = leftCopies + rightCopies
		t.Nodes = append(t.Nodes, scenarios.Node{Name: "left", Kind: scenarios.NodeMap, Parallelism: p}, scenarios.Node{Name: "right", Kind: scenarios.NodeMap, Parallelism: p},
			scenarios.Node{Name: "join", Kind: scenarios.NodeUnion, Parallelism: join})
		t.Links = append(t.Links, scenarios.Link{From: split, To: "left", Partition: leftIn}, scenarios.Link{From: split, To: "right", Partition: rightIn},
			scenarios.Link{From: "left", To: "join", Partition: leftOut}, scenarios.Link{From: "right", To: "join", Partition: rightOut})
		last = "join"
	}
	add("out", scenarios.NodeSink, g.parallelism())
}

// partition draws how records go from an operator of parallelism from to one of
// parallelism to: forward only between equal parallelism, hash into a sum of more than one
// task, broadcast only while *copies stays within maxCopies. It clears *ordered when the
// link interleaves a key's records from several channels, and multiplies *copies by what
// a broadcast sends.
func (g *generator) partition(from, to int, intoSum bool, ordered *bool, copies *int) string {
	if intoSum && to > 1 {
		return scenarios.PartitionHash
	}
	choices := []string{scenarios.PartitionHash, scenarios.PartitionRebalance}
	if *copies*to <= maxCopies {
		choices = append(choices, scenarios.PartitionBroadcast)
	}
	if from == to {
		choices = append(choices, scenarios.PartitionForward)
	}
	p := pick(g, choices)
	if (p == scenarios.PartitionRebalance || p == scenarios.PartitionBroadcast) && to > 1 {
		*ordered = false
	}
	if p == scenarios.PartitionBroadcast {
		*copies *= to
	}
	return p
}

// input draws the input size and pace of a source partition (or of a process's transfers):
// a third of the time short, ending after three to ten checkpoint intervals (inside the
// fault phase, as a rule), else long enough to outlast the fault and heal phases by a few
// intervals, so that checkpoints complete after heal with the job still running.
func (g *generator) input(s *scenarios.Scenario) (int, scenarios.Duration) {
	interval := s.Checkpoint.Interval
	span := interval * scenarios.Duration(g.between(3, 10))
	if g.r.IntN(3) != 0 {
		span = s.Limits.FaultPhase + s.Limits.HealPhase + interval*scenarios.Duration(g.between(3, 6))
	}
	pace := scenarios.Millis(g.between(1, 10))
	maxRecords := int64(3000)
	if g.sourceTasks > 0 {
		maxRecords = min(maxRecords, max(20, maxOutputRecords/int64(g.sourceTasks*g.copies)))
	}
	if int64(span/pace) >= maxRecords {
		pace = span/scenarios.Duration(maxRecords-1) + 1
	}
	return int(span/pace) + 1, pace
}

// generatedProcessNames name the processes of a drawn explicit topology: names as a course
// writes them, of either case, with digits, '-' and '_', which the processes keep.
var generatedProcessNames = []string{"a", "N1", "b_2", "P-3", "n10", "Z"}

func (g *generator) chandyLamport(s *scenarios.Scenario) {
	t := &s.Topology
	n := int(g.between(2, 6))
	if g.r.IntN(2) == 0 {
		if g.r.IntN(8) == 0 {
			n = int(g.between(7, 16)) // a cycle's processes need no names drawn
		}
		t.Kind, t.Processes = scenarios.TopologyCycle, n
	} else {
		// A ring in a drawn order, so every process reaches every other, plus drawn chords.
		t.Kind = scenarios.TopologyExplicit
		order := g.r.Perm(n)
		for i := range n {
			t.Nodes = append(t.Nodes, scenarios.Node{Name: generatedProcessNames[i], Kind: scenarios.NodeProcess})
		}
		linked := map[[2]int]bool{}
		link := func(a, b int) {
			if a != b && !linked[[2]int{a, b}] {
				linked[[2]int{a, b}] = true
				t.Links = append(t.Links, scenarios.Link{From: t.Nodes[a].Name, To: t.Nodes[b].Name})
			}
		}
		for i := range n {
			link(order[i], order[(i+1)%n])
		}
		for a := range n {
			for b := range n {
				if g.r.IntN(3) == 0 {
					link(a, b)
				}
			}
		}
	}
	w := &s.Workload
	w.Kind = scenarios.WorkloadTokens
	w.MaxTransfer = g.between(1, 20)
	if g.r.IntN(8) == 0 {
		// Up to the largest transfer a file may ask for; the balances grow with it.
		w.MaxTransfer = int64(g.spread(21, 1_000_000))
	}
	// Ten of the largest transfer at least: with less, the processes take turns holding the
	// few tokens there are, each transfer waits for one to arrive, and a job of a thousand
	// transfers outlasts the run for its slowness alone.
	w.InitialTokens = scenarios.TokenCount(g.between(10*w.MaxTransfer, 10*w.MaxTransfer+200))
	if g.r.IntN(4) == 0 {
		g.script(s)
		return
	}
	transfers, pace := g.input(s)
	w.Transfers, w.RecordInterval = transfers, pace
}

// script draws a chandy-lamport exercise in place of random transfers: sends along links of
// tokens the sender holds, snapshots (now and then followed by a wait for them, while no
// process is down), advances of the clock, and crashes each followed, as a rule, by a
// restart of the same process, all inside the first half of the fault phase.
func (g *generator) script(s *scenarios.Scenario) {
	graph := s.Graph()
	processes := graph.Tasks()
	balance := s.InitialBalances()
	budget := s.Limits.FaultPhase / 2
	var used scenarios.Duration
	down := ""
	for range g.between(5, 40) {
		switch n := g.r.IntN(20); {
		case n < 9:
			l := pick(g, graph.Links)
			if balance[l.From] == 0 {
				continue
			}
			tokens := g.between(1, balance[l.From])
			balance[l.From] -= tokens
			balance[l.To] += tokens
			s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepSend, From: l.From, To: l.To, Tokens: tokens})
		case n < 12:
			s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepSnapshot, Process: pick(g, processes)})
			if down == "" && g.r.IntN(4) == 0 {
				s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepWaitSnapshots})
			}
		case n < 18:
			by := scenarios.Millis(g.between(1, 50))
			if used+by > budget {
				continue
			}
			used += by
			s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepAdvance, By: by})
		case down == "":
			down = pick(g, processes)
			s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepCrash, Process: down})
		default:
			s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepRestart, Process: down})
			down = ""
		}
	}
	if down != "" && g.r.IntN(4) != 0 {
		s.Script = append(s.Script, scenarios.Step{Op: scenarios.StepRestart, Process: down})
	}
	// The script's sends replace the transfers; its clock paces nothing else.
	s.Workload.RecordInterval = scenarios.Millis(g.between(1, 10))
}

// raiseBalances doubles the processes' initial balance until every drawn transfer can be
// made: the engine refuses a token job in which a process would wait forever for tokens it
// cannot get. A balance of every transfer at its largest always suffices.
func raiseBalances(s *scenarios.Scenario) {
	w := &s.Workload
	enough := int64(w.Transfers) * w.MaxTransfer
	for w.InitialBalance() < enough {
		c := s.WithDefaults()
		if c.EngineAccepts() == nil {
			return
		}
		w.InitialTokens = scenarios.TokenCount(min(2*w.InitialBalance(), enough))
	}
}

func (g *generator) checkpoint(s *scenarios.Scenario) {
	c := &s.Checkpoint
	// Mostly no shorter than a second and four intervals: a checkpoint of a job catching up
	// after a failover takes longer than one in calm, and a timeout below that can abort
	// every attempt, fail over to the same old checkpoint and start the catch-up again.
	c.Timeout = max(scenarios.Seconds(1), 4*c.Interval) + scenarios.Millis(100*g.between(0, 15))
	if g.r.IntN(3) == 0 && g.late == 0 {
		// A third of the draws go far below the interval, or far beyond the run: users
		// write both, and a timeout is a rule of the protocol like any other. A long run
		// keeps the one above, which lets its many checkpoints complete.
		c.Timeout = g.spread(scenarios.Millis(50), scenarios.Seconds(60))
	}
	if g.r.IntN(2) == 0 {
		// Up to twice the interval: then the pause, not the interval, paces the checkpoints.
		// A long run, paced for its count of completions, pauses at most half of one.
		c.MinPause = g.spread(scenarios.Millis(1), 2*c.Interval)
		if g.late > 0 {
			c.MinPause = g.spread(scenarios.Millis(1), c.Interval/2)
		}
	}
	if s.Mode != scenarios.ModeUnaligned && s.Mode != scenarios.ModeAlignedWithTimeout {
		c.MaxConcurrent = int(g.between(1, 5))
		if g.r.IntN(8) == 0 {
			c.MaxConcurrent = int(g.between(6, scenarios.MaxConcurrent))
		}
	}
	g.failuresAndRetention(c)
	if s.Mode == scenarios.ModeAlignedWithTimeout {
		c.AlignmentTimeout = scenarios.Millis(g.between(1, 50))
		if g.r.IntN(4) == 0 {
			// From a nanosecond (every barrier goes unaligned at once) to beyond the
			// checkpoint timeout (none does).
			c.AlignmentTimeout = g.spread(1, 2*c.Timeout)
		}
	}
	// No bound on channel state (max_buffered_records) is drawn: one small enough to make a
	// checkpoint overflow also overflows every checkpoint of a catch-up after a failover,
	// whose backlog fills the channels, and the failures fail the job over again, for ever
	// (seeds 4061 and 4969 of an earlier generator, which drew bounds of 1 to 3). That is the
	// misconfiguration it is; the regime channel-state-overflow reaches the path on a calm job.
	if s.Mode == scenarios.ModeChandyLamport {
		tasks := s.Graph().Tasks()
		for _, i := range g.r.Perm(len(tasks))[:g.between(0, int64(min(3, len(tasks))))] {
			c.Initiators = append(c.Initiators, tasks[i])
		}
		return
	}
	switch g.r.IntN(3) {
	case 0:
		c.InlineStateBytes = 20 << 10
	case 1:
		c.InlineStateBytes = int(g.between(1, int64(engine.MaxInlineStateBytes)))
	}
	if c.InlineStateBytes > 0 {
		// Every write of the completed-checkpoint store carries every retained checkpoint,
		// inline state and all: a hundred of them make each write megabytes.
		c.Retained = min(c.Retained, 4)
	}
}

// failuresAndRetention draws, half the time each, the failures tolerated in a row and the
// checkpoints retained: mostly a few, now and then up to a thousand failures and a
// hundred checkpoints.
func (g *generator) failuresAndRetention(c *scenarios.Checkpoint) {
	if g.r.IntN(2) == 0 {
		c.TolerableFailures = scenarios.Tolerating(int(g.between(0, 5)))
		if g.r.IntN(8) == 0 {
			c.TolerableFailures = scenarios.Tolerating(int(g.spread(6, 1000)))
		}
	}
	if g.r.IntN(2) == 0 {
		c.Retained = int(g.between(1, 4))
		if g.r.IntN(8) == 0 {
			c.Retained = int(g.spread(5, 100))
		}
	}
	if g.late > 0 && c.Retained < 2 && g.r.IntN(3) != 0 {
		// A store of several checkpoints, so that a recovery chooses among ids on both
		// sides of a digit edge.
		c.Retained = int(g.between(2, 12))
	}
}

// faults draws none, a schedule, or a swarm. Unverified writes go only with faults that
// cannot tear or corrupt a write, which only the read-back catches.
func (g *generator) faults(s *scenarios.Scenario) {
	sys := s.System()
	kinds := inModelKinds(sys)
	choices := 6
	if g.late > 0 {
		choices = 4 // a schedule, which the late faults join; never a swarm
	}
	switch g.r.IntN(choices) {
	case 0:
	case 1, 2, 3:
		for range g.between(1, 8) {
			s.Faults = append(s.Faults, g.entry(s, sys, pick(g, kinds)))
		}
	default:
		w := &scenarios.Swarm{}
		if g.r.IntN(2) == 0 {
			drawable := slices.DeleteFunc(slices.Clone(kinds), func(k faults.Kind) bool { return !k.Swarmable() || k.OutOfModel() })
			for _, i := range g.r.Perm(len(drawable))[:g.between(1, 5)] {
				w.Kinds = append(w.Kinds, drawable[i])
			}
			slices.Sort(w.Kinds)
		}
		w.MaxFaults = int(g.between(1, 12))
		if g.r.IntN(8) == 0 {
			w.MaxFaults = int(g.spread(13, 200)) // the fault phase, not the count, bounds them
		}
		if g.r.IntN(2) == 0 {
			w.MaxWindow = scenarios.Millis(g.between(10, s.Limits.FaultPhase.Nanos()/2/int64(time.Millisecond)))
		}
		if g.r.IntN(2) == 0 {
			w.MinLiveHosts = int(g.between(1, int64(len(sys.Hosts))))
		}
		s.Swarm = w
	}
	if s.Mode != scenarios.ModeChandyLamport && g.r.IntN(8) == 0 && !mayDamageWrites(s) {
		s.Checkpoint.UnverifiedWrites = true
	}
}

// inModelKinds are the fault kinds the protocol must survive that sys has something for.
// storage.lost is among them: the generator draws verified writes beside it (see faults),
// which find every lost write (faults.StorageLost). external.timeout is not: it is in model
// only with a timeout above what the run's transactions need, which transactionTimeouts
// draws once every other fault is known.
func inModelKinds(sys faults.System) []faults.Kind {
	var out []faults.Kind
	for _, k := range faults.Kinds() {
		switch {
		case k.OutOfModel() && k != faults.StorageLost,
			k == faults.ExternalCommitFail && !sys.ExternalStore,
			(k == faults.ExternalWriteFail || k == faults.ExternalWriteLost) && !sys.SinkWrites,
			k == faults.NetBreak && len(sys.Channels) == 0,
			slices.Contains(resubmissions, k), k == faults.StopWithSavepoint, k == faults.StopWithSavepointDrain,
			k == faults.Rescale:
			continue
		}
		out = append(out, k)
	}
	return out
}

// mayDamageWrites reports whether s's faults may tear or corrupt a durable write.
func mayDamageWrites(s *scenarios.Scenario) bool {
	damaging := []faults.Kind{faults.StorageTorn, faults.StorageCorrupt, faults.StorageLost}
	if s.Swarm != nil {
		return len(s.Swarm.Kinds) == 0 || slices.ContainsFunc(s.Swarm.Kinds, func(k faults.Kind) bool { return slices.Contains(damaging, k) })
	}
	return slices.ContainsFunc(s.Faults, func(e faults.Entry) bool { return slices.Contains(damaging, e.Fault.Kind) })
}

// entry draws one scheduled fault of kind k with its trigger (see trigger), a window no
// longer than the trigger allows, and the parameters of its kind.
func (g *generator) entry(s *scenarios.Scenario, sys faults.System, k faults.Kind) faults.Entry {
	trigger, windowMax := g.trigger(s, sys)
	window := func() int64 { return g.between(max(1, windowMax/10), windowMax) }
	probability := func() float64 { return float64(g.between(1, 10)) / 10 }
	store := func() string { return pick(g, []string{"", scenarios.StoreState, scenarios.StoreMetadata}) }
	links := append(slices.Clone(sys.Channels), sys.ControlLinks()...)
	f := faults.Fault{Kind: k}
	switch k {
	case faults.CrashTask:
		f.Task = pick(g, sys.Tasks)
	case faults.CrashCoordinator, faults.TriggerSavepoint, faults.TriggerCheckpoint:
	case faults.CrashHost, faults.PauseHost:
		f.Host, f.Window = pick(g, sys.Hosts), faults.Duration(window())
	case faults.RestartDelay:
		f.Delay, f.Window = faults.Duration(window()), faults.Duration(window())
	case faults.NetDrop:
		f.Message = pick(g, []faults.Message{faults.MessageBarrier, faults.MessageTrigger, faults.MessageAck, faults.MessageNotify})
		if g.r.IntN(2) == 0 {
			switch {
			case f.Message == faults.MessageBarrier && len(sys.Channels) > 0:
				c := pick(g, sys.Channels)
				f.From, f.To = c.From, c.To
			case f.Message == faults.MessageAck:
				f.From, f.To = pick(g, sys.Tasks), faults.Coordinator
			case f.Message != faults.MessageBarrier:
				f.From, f.To = faults.Coordinator, pick(g, sys.Tasks)
			}
		}
		f.Probability, f.Window = probability(), faults.Duration(window())
	case faults.NetBreak:
		c := pick(g, sys.Channels)
		f.From, f.To = c.From, c.To
	case faults.NetDelay:
		l := pick(g, links)
		f.From, f.To, f.Delay, f.Window = l.From, l.To, faults.Duration(max(1, window()/10)), faults.Duration(window())
	case faults.NetPartition:
		l := pick(g, links)
		f.From, f.To, f.OneWay, f.Window = l.From, l.To, g.r.IntN(2) == 0, faults.Duration(window())
	case faults.NetClog:
		l := pick(g, links)
		f.From, f.To, f.Window = l.From, l.To, faults.Duration(window())
	case faults.StorageFail, faults.StorageTorn, faults.StorageCorrupt, faults.StorageReadFail, faults.StorageLost:
		f.Store, f.Probability, f.Window = store(), probability(), faults.Duration(window())
		f.Key = g.storeKey(f.Store)
	case faults.StorageSlow:
		f.Store, f.Delay, f.Window = store(), faults.Duration(max(1, window()/10)), faults.Duration(window())
		if g.r.IntN(2) == 0 {
			f.Probability = probability()
			f.Key = g.storeKey(f.Store)
		}
	case faults.StorageUnavailable:
		f.Store, f.Window = store(), faults.Duration(window())
	case faults.ExternalCommitFail, faults.ExternalWriteFail, faults.ExternalWriteLost:
		f.Probability, f.Window = probability(), faults.Duration(window())
	case faults.ClockSkew:
		// Timers that run fast or slow by up to 20%, as the swarm draws them, and now and
		// then by up to the most a file may ask for.
		f.Host, f.SkewPPM, f.Window = pick(g, sys.Hosts), g.between(1, 200_000), faults.Duration(window())
		if g.r.IntN(4) == 0 {
			f.SkewPPM = int64(g.spread(200_001, scenarios.Duration(faults.MaxSkewPPM)))
		}
		if g.r.IntN(2) == 0 {
			f.SkewPPM = -f.SkewPPM
		}
	default:
		panic("scenarios: the generator draws no fault of kind " + string(k))
	}
	return faults.Entry{Trigger: trigger, Fault: f}
}

// trigger draws when a scheduled fault fires, and the longest window it may then have: a
// time in the fault phase, ending inside it; or, with at most a quarter of the phase, the
// nth of a kind of trace event (in a long run, up to its count of completions), or a chance
// at each such event.
func (g *generator) trigger(s *scenarios.Scenario, sys faults.System) (faults.Trigger, int64) {
	phase := s.Limits.FaultPhase.Nanos()
	switch g.r.IntN(4) {
	case 0, 1:
		at := g.between(0, phase-1)
		return faults.At(faults.Duration(at)), min(phase/2, phase-at)
	case 2:
		n := g.between(1, 8)
		if g.late > 0 && g.r.IntN(2) == 0 {
			n = g.between(1, int64(g.late)) // a long run has events to count far
		}
		return faults.Nth(int(n), g.match(s, sys)), max(1, phase/4)
	}
	return faults.Chance(float64(g.between(1, 20))/100, int(g.between(1, 3)), g.match(s, sys)), max(1, phase/4)
}

// match draws the trace events an event trigger counts: a kind the run emits, of one task or
// of any (a kind of the coordinator's, of it or of any). Half the time a step of a
// checkpoint's path, else one of the moments where a fault hurts most: an abort, a decline,
// a recovery, a failover, a restore, a task finishing, a pre-commit, a release.
func (g *generator) match(s *scenarios.Scenario, sys faults.System) faults.Match {
	kinds := []string{trace.KindBarrierRecv, trace.KindSnapshotTaken, trace.KindSnapshotAck,
		trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindNotifyComplete}
	if s.Sink != nil {
		write := trace.KindSinkWrites
		if s.Sink.TraceEachWrite {
			write = trace.KindSinkWrite
		}
		kinds = append(kinds, write, trace.KindSinkCommit)
	}
	if g.r.IntN(2) == 0 {
		kinds = momentKinds
		if s.Sink != nil {
			kinds = append(slices.Clone(kinds), trace.KindSinkPrecommit, trace.KindSinkAbort)
		}
	}
	m := faults.Match{Kind: pick(g, kinds)}
	switch {
	case slices.Contains(coordinatorKinds, m.Kind):
		if g.r.IntN(2) == 0 {
			m.Task = faults.Coordinator
		}
	case g.r.IntN(2) == 0:
		m.Task = pick(g, sys.Tasks)
	}
	return m
}

// momentKinds are the trace kinds of the moments match draws besides a checkpoint's path.
var momentKinds = []string{trace.KindCheckpointAbort, trace.KindCheckpointPersist, trace.KindCoordinatorRecover,
	trace.KindJobFailover, trace.KindStateRelease, trace.KindSnapshotDecline, trace.KindSnapshotCarried,
	trace.KindNotifyAbort, trace.KindMarkerSend, trace.KindTriggerRecv, trace.KindTaskRestore, trace.KindTaskFinish}

// coordinatorKinds are the kinds only the coordinator traces (state.release names the task
// whose state went).
var coordinatorKinds = []string{trace.KindCheckpointTrigger, trace.KindCheckpointComplete, trace.KindCheckpointAbort,
	trace.KindCheckpointPersist, trace.KindCoordinatorRecover, trace.KindJobFailover}

func (g *generator) between(lo, hi int64) int64 {
	if lo > hi {
		panic(fmt.Sprintf("scenarios: generator: empty range [%d, %d]", lo, hi))
	}
	return lo + g.r.Int64N(hi-lo+1)
}

// spread draws a duration from lo to hi, each power of two in the range as likely as any
// other, so that a range of several orders of magnitude is drawn at every scale. Integers
// only: a float's logarithm may round differently on another platform.
func (g *generator) spread(lo, hi scenarios.Duration) scenarios.Duration {
	lowBits, highBits := bits.Len64(uint64(lo)), bits.Len64(uint64(hi))
	n := int(g.between(int64(lowBits), int64(highBits)))
	from := max(lo, scenarios.Duration(1)<<(n-1))
	to := min(hi, scenarios.Duration(1)<<n-1)
	return scenarios.Duration(g.between(int64(from), int64(max(from, to))))
}

func pick[T any](g *generator, list []T) T { return list[g.r.IntN(len(list))] }

// Summary describes a scenario on one line: mode, shape, workload, sink, checkpoint settings
// and faults. A generated sweep prints it beside each run, to say what the seed drew.
func Summary(s *scenarios.Scenario) string {
	var parts []string
	t := s.Topology
	shape := t.Kind
	switch {
	case t.Kind == scenarios.TopologyExplicit:
		shape += fmt.Sprintf(" %d nodes %d links", len(t.Nodes), len(t.Links))
	case t.Processes > 0:
		shape += fmt.Sprintf(" %d processes", t.Processes)
	default:
		shape += " p" + strconv.Itoa(t.Parallelism)
	}
	parts = append(parts, s.Mode, shape)
	w := s.Workload
	switch w.Kind {
	case scenarios.WorkloadTokens:
		parts = append(parts, fmt.Sprintf("tokens %d transfers every %s", w.Transfers, w.RecordInterval))
	default:
		parts = append(parts, fmt.Sprintf("%s %d records every %s", w.Kind, w.Records, w.RecordInterval))
	}
	if s.Sink != nil {
		parts = append(parts, s.Sink.Kind+" sink")
	}
	c := s.Checkpoint
	if c.IsPeriodic() {
		parts = append(parts, fmt.Sprintf("checkpoints every %s, %d at a time", c.Interval, c.MaxConcurrent))
	} else {
		parts = append(parts, fmt.Sprintf("checkpoints only when asked, %d at a time", c.MaxConcurrent))
	}
	if c.Incremental {
		parts = append(parts, "incremental snapshots")
	}
	switch {
	case s.Swarm != nil:
		parts = append(parts, fmt.Sprintf("a swarm of up to %d faults", s.Swarm.MaxFaults))
	case len(s.Faults) > 0:
		kinds := make([]string, len(s.Faults))
		for i, e := range s.Faults {
			kinds[i] = string(e.Fault.Kind)
		}
		parts = append(parts, "faults "+strings.Join(kinds, ","))
	default:
		parts = append(parts, "no faults")
	}
	if n := s.Network; n != nil && n.Latency != nil {
		parts = append(parts, "network "+n.Latency.String())
	}
	if n := s.Network; n != nil && len(n.Links) > 0 {
		parts = append(parts, fmt.Sprintf("%d links with their own latency", len(n.Links)))
	}
	return strings.Join(parts, ", ")
}
