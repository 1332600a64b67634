package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
)

// Bounds on what a scenario may ask for. Each keeps one run's memory and time in reach; none
// is a limit of the model.
const (
	maxParallelism = 1024
	maxStages      = 64
	maxInputs      = 64
	maxProcesses   = 256
	maxNodes       = 256
	maxLinks       = 1024
	maxRecords     = 1_000_000
	maxTransfers   = 1_000_000
	maxSteps       = 10_000
	maxMaxEvents   = 1_000_000_000
	maxSeedCount   = 1_000_000
	// maxTokens bounds a process's starting balance, so that the total of maxProcesses
	// processes cannot overflow.
	maxTokens = 1_000_000_000_000_000
)

// Limits of a scenario that its validation keeps and the generator draws within.
const (
	// MaxKeys bounds a workload's keys.
	MaxKeys = 100_000
	// MaxSplits bounds a workload's splits per source.
	MaxSplits = 1024
	// MaxKeyGroups bounds topology.max_parallelism, as Flink bounds its maximum parallelism.
	MaxKeyGroups = protocol.MaxKeyGroups
	// MaxSpan bounds every duration of a scenario: a day of virtual time.
	MaxSpan = Duration(24 * 3600 * 1_000_000_000)
	// MaxConcurrent bounds checkpoint.max_concurrent: the protocol's default
	// MaxPendingCheckpoints, which the engine keeps; more would be refused by the engine.
	MaxConcurrent = 16
)

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// nodeNamePattern is what the engine accepts as an operator name; task ids append "-<i>".
var nodeNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// reservedNodeNames are process names of the engine's own.
var reservedNodeNames = []string{"coordinator", "extstore", "reader"}

// processNamePattern is what a chandy-lamport process node may be called. Its name is the
// process's id as written (N1, node_2, left-a): the engine names the task after it
// (engine.ValidTaskName, which also keeps the names of the engine's own processes for
// them), and the script, the faults and the trace use it. Case matters: N1 and n1 are two
// processes.
var processNamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,31}$`)

// Validate checks s, which must already have its defaults, and returns the first problem with
// its field path under root (e.g. "scenario.faults[2].trigger.at: must be >= 0").
func (s *Scenario) Validate(root string) error {
	var p problems
	s.validate(&p, root)
	return p.err()
}

func (s *Scenario) validate(p *problems, root string) {
	if !namePattern.MatchString(s.Name) {
		p.add(root+".name", "%q must be 1 to 64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit", s.Name)
	}
	modeOK := p.oneOf(root+".mode", s.Mode, Modes)
	workloadOK := p.oneOf(root+".workload.kind", s.Workload.Kind, WorkloadKinds)
	topologyOK := s.validateTopology(p, root+".topology")
	if workloadOK {
		s.validateWorkload(p, root+".workload")
	}
	s.validateSink(p, root+".sink")
	s.validateCheckpoint(p, root+".checkpoint")
	s.validateLimits(p, root+".limits")
	s.validateLivenessBound(p, root+".limits")
	s.validateNetwork(p, root+".network")
	s.validatePlantedBug(p, root+".planted_bug")
	s.validateExpect(p, root)
	if s.Seeds != nil && s.Seeds.Count() > maxSeedCount {
		p.add(root+".seeds", "%s holds more than %d seeds", s.Seeds, maxSeedCount)
	}
	if !modeOK || !workloadOK || !topologyOK || len(p.list) > 0 {
		// Names below are checked against the graph, which needs the parts above to be sound.
		return
	}
	g := s.Graph()
	names := s.newNameSet(g)
	s.validateInitiators(p, root+".checkpoint.initiators", names)
	s.validateFaults(p, root, names)
	s.validateNetworkLinks(p, root+".network", names)
	s.validateScript(p, root+".script", g, names)
	s.validateExpectedSnapshots(p, root+".expect.snapshots", g, names)
	s.validateCost(p, root)
}

func (s *Scenario) validateTopology(p *problems, path string) bool {
	t := s.Topology
	if !p.oneOf(path+".kind", t.Kind, TopologyKinds) {
		return false
	}
	before := len(p.list)
	cl := s.Mode == ModeChandyLamport
	if cl && t.Kind != TopologyCycle && t.Kind != TopologyExplicit {
		p.add(path+".kind", "mode chandy-lamport runs on a cycle (ring) or an explicit graph, not %s", t.Kind)
	}
	builtDataflow := t.Kind != TopologyExplicit && !(cl && t.Kind == TopologyCycle)
	if builtDataflow {
		p.intIn(path+".parallelism", t.Parallelism, 1, maxParallelism)
	} else {
		p.unused(path+".parallelism", t.Parallelism != 0, "by this topology (set it per node, or use processes for a ring)")
	}
	if t.Kind == TopologyPipeline {
		p.intIn(path+".stages", t.Stages, 1, maxStages)
	} else {
		p.unused(path+".stages", t.Stages != 0, "by topology "+t.Kind)
	}
	if t.Kind == TopologyFanInUnion {
		p.intIn(path+".inputs", t.Inputs, 2, maxInputs)
	} else {
		p.unused(path+".inputs", t.Inputs != 0, "by topology "+t.Kind)
	}
	if cl && t.Kind == TopologyCycle {
		p.intIn(path+".processes", t.Processes, 2, maxProcesses)
	} else {
		p.unused(path+".processes", t.Processes != 0, "except by a chandy-lamport cycle")
	}
	if t.Kind != TopologyExplicit {
		p.unused(path+".nodes", len(t.Nodes) > 0, "except by an explicit topology")
		p.unused(path+".links", len(t.Links) > 0, "except by an explicit topology")
	} else {
		s.validateExplicit(p, path)
	}
	if len(p.list) == before {
		s.validateKeyGroups(p, path)
	}
	return len(p.list) == before
}

// validateKeyGroups checks max_parallelism, the job's key groups: every operator's
// parallelism fits in it, as Flink requires of its maximum parallelism.
func (s *Scenario) validateKeyGroups(p *problems, path string) {
	maxP := s.Topology.MaxParallelism
	if s.Mode == ModeChandyLamport || maxP == 0 {
		p.unused(path+".max_parallelism", maxP != 0, "by mode chandy-lamport, which has no keys")
		return
	}
	if maxP < 1 || maxP > MaxKeyGroups {
		p.intIn(path+".max_parallelism", maxP, 1, MaxKeyGroups)
		return
	}
	for _, n := range s.Graph().Nodes {
		if n.Parallelism > maxP {
			p.add(path+".max_parallelism", "%d is below the parallelism %d of %s: each task needs a key group", maxP, n.Parallelism, n.Name)
			return
		}
	}
}

func (s *Scenario) validateExplicit(p *problems, path string) {
	t := s.Topology
	cl := s.Mode == ModeChandyLamport
	if len(t.Nodes) == 0 || len(t.Nodes) > maxNodes {
		p.add(path+".nodes", "an explicit topology needs 1 to %d nodes, not %d", maxNodes, len(t.Nodes))
	}
	if len(t.Links) > maxLinks {
		p.add(path+".links", "at most %d links, not %d", maxLinks, len(t.Links))
	}
	kinds := map[string]string{}
	parallelism := map[string]int{}
	for i, n := range t.Nodes {
		at := fmt.Sprintf("%s.nodes[%d]", path, i)
		switch {
		case cl && !processNamePattern.MatchString(n.Name):
			p.add(at+".name", "%q must be 1 to 32 of letters (either case), digits, '-' and '_', starting with a letter", n.Name)
		case cl && engine.ValidTaskName(n.Name) != nil:
			p.add(at+".name", "%q is the name of one of the engine's own processes (coordinator, extstore, reader-<i>), which share one namespace with the processes", n.Name)
		case !cl && !nodeNamePattern.MatchString(n.Name):
			p.add(at+".name", "%q must be 1 to 32 of a-z, 0-9 and '_', starting with a letter (a process node of mode chandy-lamport may also use A-Z and '-')", n.Name)
		case !cl && slices.Contains(reservedNodeNames, n.Name):
			p.add(at+".name", "%q is reserved for the engine (its tasks %s-<i> would take the names of the engine's own processes)", n.Name, n.Name)
		default:
			if _, dup := kinds[n.Name]; dup {
				p.add(at+".name", "%q names two nodes", n.Name)
			}
		}
		if n.Tokens != nil {
			switch {
			case !cl:
				p.add(at+".tokens", "not used except by the process nodes of mode chandy-lamport")
			case *n.Tokens < 0:
				p.add(at+".tokens", "must be >= 0, not %d", *n.Tokens)
			case *n.Tokens > maxTokens:
				p.add(at+".tokens", "must be at most %d, not %d", int64(maxTokens), *n.Tokens)
			}
		}
		if p.oneOf(at+".kind", n.Kind, NodeKinds) {
			switch {
			case cl && n.Kind != NodeProcess:
				p.add(at+".kind", "mode chandy-lamport needs process nodes, not %s", n.Kind)
			case !cl && n.Kind == NodeProcess:
				p.add(at+".kind", "process nodes are for mode chandy-lamport")
			}
		}
		if cl {
			p.intIn(at+".parallelism", n.Parallelism, 1, 1)
		} else {
			p.intIn(at+".parallelism", n.Parallelism, 1, maxParallelism)
		}
		kinds[n.Name] = n.Kind
		parallelism[n.Name] = n.Parallelism
	}
	seen := map[[2]string]bool{}
	inputs, outputs := map[string]int{}, map[string]int{}
	for i, l := range t.Links {
		at := fmt.Sprintf("%s.links[%d]", path, i)
		fromKind, fromOK := kinds[l.From]
		toKind, toOK := kinds[l.To]
		if !fromOK {
			p.add(at+".from", "%q is not a node", l.From)
		}
		if !toOK {
			p.add(at+".to", "%q is not a node", l.To)
		}
		if l.From == l.To && fromOK {
			p.add(at, "a link from %q to itself", l.From)
		}
		if seen[[2]string{l.From, l.To}] {
			p.add(at, "a second link from %q to %q", l.From, l.To)
		}
		seen[[2]string{l.From, l.To}] = true
		if p.oneOf(at+".partition", l.Partition, Partitions) && l.Partition == PartitionForward &&
			fromOK && toOK && parallelism[l.From] != parallelism[l.To] {
			p.add(at+".partition", "forward needs equal parallelism at both ends (%d and %d)", parallelism[l.From], parallelism[l.To])
		}
		if toKind == NodeSource {
			p.add(at+".to", "%q is a source, which has no inputs", l.To)
		}
		if fromKind == NodeSink {
			p.add(at+".from", "%q is a sink, which has no outputs", l.From)
		}
		outputs[l.From]++
		inputs[l.To]++
	}
	if cl || len(p.list) > 0 {
		return
	}
	for i, l := range t.Links {
		if kinds[l.To] == NodeSum && parallelism[l.To] > 1 && l.Partition != PartitionHash {
			p.add(fmt.Sprintf("%s.links[%d].partition", path, i), "the input of sum %q must be hash-partitioned so that each key meets one task", l.To)
		}
	}
	var sources, sinks int
	for i, n := range t.Nodes {
		at := fmt.Sprintf("%s.nodes[%d]", path, i)
		if want := wantInputs(n.Kind); want > 0 && inputs[n.Name] != want {
			p.add(at, "%s %q has %d input links, want %d", n.Kind, n.Name, inputs[n.Name], want)
		}
		switch n.Kind {
		case NodeSource:
			sources++
		case NodeSink:
			sinks++
		}
	}
	if sources == 0 {
		p.add(path+".nodes", "a dataflow topology needs at least one source node")
	}
	if sinks == 0 && s.Workload.Kind != WorkloadTokens {
		p.add(path+".nodes", "a dataflow topology needs a sink node for workload %s", s.Workload.Kind)
	}
}

func (s *Scenario) validateWorkload(p *problems, path string) {
	w := s.Workload
	counted := w.Kind == WorkloadKeyedSum || w.Kind == WorkloadPassThrough
	if counted {
		p.intIn(path+".records", w.Records, 1, maxRecords)
		p.span(path+".record_interval", w.RecordInterval, true)
		p.span(path+".stagger", w.Stagger, false)
		p.intIn(path+".splits", w.Splits, 0, MaxSplits)
		s.validatePartitions(p, path+".partitions")
	} else {
		p.unused(path+".splits", w.Splits != 0, "by workload tokens")
		p.unused(path+".partitions", w.Partitions != 0, "by workload tokens")
		p.unused(path+".records", w.Records != 0, "by workload tokens (use transfers)")
		p.unused(path+".stagger", w.Stagger != 0, "by workload tokens")
	}
	if w.Kind == WorkloadKeyedSum {
		p.intIn(path+".keys", w.Keys, 1, MaxKeys)
	} else {
		p.unused(path+".keys", w.Keys != 0, "except by workload keyed-sum")
	}
	if w.Kind == WorkloadTokens {
		p.intIn(path+".transfers", w.Transfers, 0, maxTransfers)
		p.unused(path+".transfers", len(s.Script) > 0 && w.Transfers != 0, "with a script (its sends are the transfers)")
		if w.InitialBalance() < 0 {
			p.add(path+".initial_tokens", "must be >= 0")
		} else if w.InitialBalance() > maxTokens {
			p.add(path+".initial_tokens", "must be at most %d, not %d", int64(maxTokens), w.InitialBalance())
		}
		if w.MaxTransfer < 1 || w.MaxTransfer > 1_000_000 {
			p.add(path+".max_transfer", "must be between 1 and 1000000, not %d", w.MaxTransfer)
		}
		p.span(path+".record_interval", w.RecordInterval, true)
	} else {
		p.unused(path+".transfers", w.Transfers != 0, "except by workload tokens")
		p.unused(path+".initial_tokens", w.InitialTokens != nil, "except by workload tokens")
		p.unused(path+".max_transfer", w.MaxTransfer != 0, "except by workload tokens")
	}
	if (s.Mode == ModeChandyLamport) != (w.Kind == WorkloadTokens) {
		p.add(path+".kind", "the tokens workload runs in mode chandy-lamport, and only it")
	}
}

func (s *Scenario) validateSink(p *problems, path string) {
	needed := s.Workload.Kind == WorkloadKeyedSum || s.Workload.Kind == WorkloadPassThrough
	if s.Sink == nil {
		if needed {
			p.add(path, "is required for workload %s (kind: one of %s)", s.Workload.Kind, strings.Join(SinkKinds, ", "))
		}
		return
	}
	if s.Mode == ModeChandyLamport {
		p.add(path, "not used by mode chandy-lamport")
		return
	}
	if !needed && s.Workload.Kind != "" {
		p.add(path, "not used by workload %s", s.Workload.Kind)
		return
	}
	p.oneOf(path+".kind", s.Sink.Kind, SinkKinds)
	if s.Sink.Kind == SinkTwoPhaseCommit {
		p.span(path+".transaction_timeout", s.Sink.TransactionTimeout, false)
		p.intIn(path+".max_pending_transactions", s.Sink.MaxPendingTransactions, 0, engine.MaxPendingTransactionsLimit)
	} else {
		p.unused(path+".transaction_timeout", s.Sink.TransactionTimeout != 0, "except by a two-phase-commit sink")
		p.unused(path+".max_pending_transactions", s.Sink.MaxPendingTransactions != 0, "except by a two-phase-commit sink")
	}
}

func (s *Scenario) validateCheckpoint(p *problems, path string) {
	c := s.Checkpoint
	p.span(path+".interval", c.Interval, true)
	p.span(path+".timeout", c.Timeout, true)
	p.span(path+".min_pause", c.MinPause, false)
	if s.Mode == ModeUnaligned || s.Mode == ModeAlignedWithTimeout {
		p.intIn(path+".max_concurrent", c.MaxConcurrent, 1, 1)
	} else {
		p.intIn(path+".max_concurrent", c.MaxConcurrent, 1, MaxConcurrent)
	}
	if c.TolerableFailures != nil {
		p.intIn(path+".tolerable_failures", *c.TolerableFailures, 0, 1000)
	}
	p.intIn(path+".retained", c.Retained, 0, 1000)
	p.intIn(path+".inline_state_bytes", c.InlineStateBytes, 0, engine.MaxInlineStateBytes)
	p.intIn(path+".compaction", c.Compaction, 0, engine.MaxCompactAfter)
	p.unused(path+".compaction", c.Compaction != 0 && !c.Incremental, "without incremental")
	if s.Mode == ModeAligned || s.Mode == ModeAtLeastOnce {
		p.unused(path+".max_buffered_records", c.MaxBufferedRecords != 0, "by mode "+s.Mode+", which records no channel state")
	} else {
		p.intIn(path+".max_buffered_records", c.MaxBufferedRecords, 0, maxRecords)
	}
	if s.Mode != ModeChandyLamport {
		p.unused(path+".initiators", len(c.Initiators) > 0, "except by mode chandy-lamport")
	} else {
		p.unused(path+".inline_state_bytes", c.InlineStateBytes != 0, "by mode chandy-lamport")
		p.unused(path+".incremental", c.Incremental, "by mode chandy-lamport")
		p.unused(path+".periodic", c.Periodic != nil, "by mode chandy-lamport, whose initiators start a snapshot every interval")
	}
	if s.Mode == ModeAlignedWithTimeout {
		p.span(path+".alignment_timeout", c.AlignmentTimeout, true)
	} else {
		p.unused(path+".alignment_timeout", c.AlignmentTimeout != 0, "except by mode aligned-with-timeout")
	}
}

// validatePlantedBug refuses a file that plants a bug: planted bugs left the engine for the
// bug zoo, and running the file on the correct engine would look like a checker that missed
// the bug.
func (s *Scenario) validatePlantedBug(p *problems, path string) {
	if s.RetiredPlantedBug != "" {
		p.add(path, "planted bugs are no longer a scenario field: %s is a diff in the bug zoo now; hunt it with simrun zoo -bug %s", s.RetiredPlantedBug, s.RetiredPlantedBug)
	}
}

func (s *Scenario) validateLimits(p *problems, path string) {
	l := s.Limits
	p.span(path+".fault_phase", l.FaultPhase, true)
	p.span(path+".heal_phase", l.HealPhase, true)
	p.span(path+".liveness_bound", l.LivenessBound, true)
	p.span(path+".max_virtual_time", l.MaxVirtualTime, true)
	if l.MaxEvents < 1 || l.MaxEvents > maxMaxEvents {
		p.add(path+".max_events", "must be between 1 and %d, not %d", maxMaxEvents, l.MaxEvents)
	}
	// The liveness phase runs a quarter longer than its bound (see phases).
	if need := l.FaultPhase + l.HealPhase + l.LivenessBound*5/4; l.MaxVirtualTime > 0 && l.FaultPhase > 0 && l.LivenessBound > 0 && l.MaxVirtualTime < need {
		p.add(path+".max_virtual_time", "%s is shorter than the phases (%s)", l.MaxVirtualTime, need)
	}
}

func (s *Scenario) validateExpect(p *problems, root string) {
	e := s.Expect
	path := root + ".expect"
	if p.oneOf(path+".verdict", e.Verdict, []string{VerdictPass, VerdictFail}) {
		if e.Verdict == VerdictFail {
			p.oneOf(path+".property", string(e.Property), propertyNames())
		} else {
			p.unused(path+".property", e.Property != "", "when the expected verdict is pass")
		}
	}
	seen := map[checker.Property]bool{}
	for i, name := range s.Check {
		at := fmt.Sprintf("%s.check[%d]", root, i)
		if p.oneOf(at, string(name), propertyNames()) && seen[name] {
			p.add(at, "%q is listed twice", name)
		}
		seen[name] = true
	}
}

// wantInputs is how many input links a dataflow node takes: a union merges exactly two, maps,
// sums and sinks read one.
func wantInputs(kind string) int {
	switch kind {
	case NodeUnion:
		return 2
	case NodeMap, NodeSum, NodeSink:
		return 1
	}
	return 0
}

// validatePartitions checks workload.partitions: every source subtask needs a partition,
// and split sources have splits instead.
func (s *Scenario) validatePartitions(p *problems, path string) {
	w := s.Workload
	if w.Partitions == 0 {
		return
	}
	p.intIn(path, w.Partitions, 1, MaxSplits)
	if w.Splits != 0 {
		p.add(path, "give either partitions or splits, not both")
		return
	}
	for _, n := range s.Graph().Nodes {
		if n.Kind == NodeSource && n.Parallelism > w.Partitions {
			p.add(path, "%d partitions for source %q of parallelism %d: every subtask needs one", w.Partitions, n.Name, n.Parallelism)
			return
		}
	}
}
