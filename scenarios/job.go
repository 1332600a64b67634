package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/engine/tokens"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
)

// dataSeed chooses the keys and values of every source's log. It is part of the data, not of
// the run, so the same scenario reads the same input on every seed and the reference model
// does not depend on the seed.
const dataSeed = 1

// engineConfig translates a dataflow scenario into the engine's job configuration, on top of
// the engine's defaults for what the scenario does not say.
func engineConfig(s *Scenario) (engine.Config, error) {
	eg, err := engineGraph(s)
	if err != nil {
		return engine.Config{}, err
	}
	cfg := engine.DefaultConfig(eg)
	// One reader polling every 100ms: enough reads to check what readers see, few enough that
	// porcupine's search over reads overlapping many concurrent commits (32 sinks committing
	// at each completion) stays well within its budget of model steps. A job without a sink
	// (chandy-lamport's) writes nothing to read, and has no reader.
	cfg.Store.Readers = 0
	if s.Sink != nil {
		cfg.Store.Readers = 1
		cfg.Store.ReadInterval = 100 * time.Millisecond
	}
	mode := protocol.ModeAligned
	if s.Mode != ModeChandyLamport {
		if mode, err = protocol.ParseMode(s.Mode); err != nil {
			return engine.Config{}, fmt.Errorf("scenarios: %s: %w", s.Name, err)
		}
	}
	c := s.Checkpoint
	cp := &cfg.Checkpoint
	cp.Mode = mode
	if s.Mode == ModeChandyLamport {
		// The tokens operator takes Chandy-Lamport snapshots whatever the mode says, with its
		// own bound on snapshots in flight; the protocol's policy must still validate.
		mode, c.MaxConcurrent = protocol.ModeAligned, 1
		cp.Mode = mode
	}
	cp.Interval = time.Duration(c.Interval)
	if !c.IsPeriodic() {
		cp.Interval = 0
	}
	cp.Timeout = time.Duration(c.Timeout)
	cp.MinPause = time.Duration(c.MinPause)
	cp.MaxConcurrent = c.MaxConcurrent
	cp.AlignmentTimeout = time.Duration(c.AlignmentTimeout)
	if c.TolerableFailures != nil {
		cp.TolerableFailures = *c.TolerableFailures
	}
	if c.Retained != 0 {
		cp.RetainedCheckpoints = c.Retained
	}
	if c.MaxBufferedRecords != 0 {
		cp.MaxBufferedRecords = c.MaxBufferedRecords
	}
	// Every simulated run checks the protocol's invariants after each call: a broken one is
	// the run's invariant violation, with its artifact (Execute).
	cp.CheckInvariants = true
	cfg.VerifyWrites = !c.UnverifiedWrites
	cfg.InlineStateBytes = c.InlineStateBytes
	cfg.Incremental, cfg.CompactAfter = c.Incremental, c.Compaction
	if s.Sink != nil {
		cfg.Store.TxnTimeout = time.Duration(s.Sink.TransactionTimeout)
		cfg.BatchSinkWrites = !s.Sink.TraceEachWrite
		cfg.MaxPendingTransactions = s.Sink.MaxPendingTransactions
	}
	if err := cfg.Validate(); err != nil {
		return engine.Config{}, fmt.Errorf("scenarios: %s: the engine refuses the job: %w", s.Name, err)
	}
	return cfg, nil
}

// EngineAccepts reports why this build's engine refuses the job of s, a scenario with its
// defaults (WithDefaults or Complete), or nil: the generator draws only jobs it accepts.
func (s *Scenario) EngineAccepts() error {
	_, err := engineConfig(s)
	return err
}

// RescaleAccepts reports why this build's engine would refuse to rescale the job of s, its
// defaults filled in, giving operator op parallelism p, or nil (engine.CheckRescale).
func (s *Scenario) RescaleAccepts(op string, p int) error {
	cfg, err := engineConfig(s.WithDefaults())
	if err != nil {
		return err
	}
	return engine.CheckRescale(&cfg, op, p)
}

// engineGraph is the engine's graph of s: its nodes as operators and its links as edges,
// or, for chandy-lamport, one tokens operator whose tasks are the processes.
func engineGraph(s *Scenario) (engine.Graph, error) {
	g := s.Graph()
	eg := engine.Graph{MaxParallelism: s.Topology.MaxParallelism}
	if s.Mode == ModeChandyLamport {
		eg = tokensGraph(s, g)
	}
	for _, n := range g.Nodes {
		if n.Kind == NodeProcess {
			continue
		}
		logic, err := nodeLogic(s, n)
		if err != nil {
			return eg, err
		}
		eg.Operators = append(eg.Operators, engine.Operator{Name: n.Name, Parallelism: n.Parallelism, Logic: logic})
	}
	for _, l := range g.Links {
		if s.Mode == ModeChandyLamport {
			break
		}
		p, err := engine.ParsePartitioning(l.Partition)
		if err != nil {
			return eg, fmt.Errorf("scenarios: %s: %w", s.Name, err)
		}
		eg.Edges = append(eg.Edges, engine.Edge{From: l.From, To: l.To, Partitioning: p})
	}
	return eg, nil
}

// tokensGraph is the engine job of a chandy-lamport scenario: one tokens operator whose tasks
// are the processes (p-0, p-1, ... of a ring; an explicit topology's nodes, named as
// written), with the graph's links as its channels, each starting with its balance.
func tokensGraph(s *Scenario, g Graph) engine.Graph {
	index := map[string]int{}
	var names []string
	var balances []int64
	ownBalance := false
	for i, n := range g.Nodes {
		index[n.Name] = i
		names = append(names, n.Name)
		balances = append(balances, s.initialBalance(n))
		ownBalance = ownBalance || n.Tokens != nil
	}
	w, c := s.Workload, s.Checkpoint
	workload := tokens.Workload{
		Transfers:        int64(w.Transfers),
		Interval:         time.Duration(w.RecordInterval),
		Initial:          w.InitialBalance(),
		MaxAmount:        w.MaxTransfer,
		Seed:             dataSeed,
		SnapshotInterval: time.Duration(c.Interval),
		MaxConcurrent:    c.MaxConcurrent,
	}
	for _, l := range g.Links {
		workload.Links = append(workload.Links, [2]int{index[l.From], index[l.To]})
	}
	for _, name := range c.Initiators {
		workload.Initiators = append(workload.Initiators, index[name])
	}
	if ownBalance {
		workload.Balances = balances
	}
	if len(s.Script) > 0 {
		workload.Script = tokenScript(s, index)
	}
	op := engine.Operator{Name: ProcessOperator, Parallelism: len(g.Nodes), Logic: workload}
	if s.Topology.Kind == TopologyExplicit {
		op.TaskNames = names
	}
	return engine.Graph{Operators: []engine.Operator{op}}
}

// partitions is how many partitions source node n reads: its splits, or one per subtask.
func (w Workload) partitions(n Node) int {
	switch {
	case w.Splits > 0:
		return w.Splits
	case w.Partitions > 0:
		return w.Partitions
	}
	return n.Parallelism
}

func nodeLogic(s *Scenario, n Node) (engine.Logic, error) {
	w := s.Workload
	switch n.Kind {
	case NodeSource:
		keys := w.Keys
		if keys == 0 {
			keys = 16
		}
		return engine.Source{
			Partitions:    w.partitions(n),
			Enumerated:    w.Splits > 0,
			Records:       int64(w.Records),
			RatePerSecond: sourceRatePerSecond(w),
			Keys:          keys,
			Seed:          dataSeed,
			StaggerNanos:  w.Stagger.Nanos(),
		}, nil
	case NodeMap:
		return engine.Map{Fn: engine.MapFn{Op: "identity"}}, nil
	case NodeSum:
		return engine.Aggregate{Fn: engine.Sum}, nil
	case NodeUnion:
		return engine.Union{}, nil
	case NodeSink:
		return engine.Sink{Type: sinkType(s.Sink.Kind)}, nil
	}
	return nil, fmt.Errorf("scenarios: %s: node %q of kind %s has no engine operator", s.Name, n.Name, n.Kind)
}

func sinkType(kind string) engine.SinkType {
	switch kind {
	case SinkTwoPhaseCommit:
		return engine.TwoPhaseCommit
	case SinkIdempotent:
		return engine.Upsert
	case SinkAtLeastOnce:
		return engine.Append
	}
	panic(fmt.Sprintf("scenarios: unvalidated sink kind %q", kind))
}

// envConfig places job g of s on the simulator: one task host per subtask index (tm-i; a
// chandy-lamport process i on tm-i, whatever its name), the coordinator on jm, the external
// store on ext, as Graph.Hosts names them.
func envConfig(s *Scenario, g *engine.Graph) simenv.Config {
	cfg := simenv.DefaultConfig(s.Graph().TaskHosts())
	cfg.Placement = simenv.GraphPlacement(g, s.Graph().TaskHosts())
	s.applyNetwork(&cfg)
	return cfg
}

// notifyDeliveryNanos bounds how long a notification the coordinator re-sends takes to be
// delivered once faults stopped: network latency, with room to spare (ten times the largest
// delay of the scenario's network, when that is more).
const notifyDeliveryNanos = int64(100 * time.Millisecond)

func notifyDelivery(s *Scenario) int64 {
	return max(notifyDeliveryNanos, 10*s.MaxNetworkDelay().Nanos())
}

// notifyMaxNanos is how long after a completion every live task must have heard of it. The
// coordinator re-sends the latest completion when it has not gone out for the checkpoint
// Timeout, so a notification lost just before heal arrives at most Timeout plus its
// delivery later; a bound below that would fail correct runs of a long timeout.
func notifyMaxNanos(s *Scenario) int64 {
	return max(s.Limits.LivenessBound.Nanos()/2, s.Checkpoint.Timeout.Nanos()+notifyDelivery(s))
}

// recoveryMaxNanos is how long after a failover some checkpoint must have completed when no
// fault holds the restart up: the restart delay, the wait for the first trigger (its jitter
// is at most Interval, and MinPause may add to it), and a checkpoint that expires (Timeout)
// before the next one (another Interval) completes, with room for restores and delivery.
// Without periodic checkpoints none is owed, so the bound is zero and nothing judged. It is
// never above the liveness bound.
func recoveryMaxNanos(s *Scenario, cfg *engine.Config) int64 {
	c := cfg.Checkpoint
	if c.Interval <= 0 {
		return 0
	}
	bound := cfg.RestartDelay + 2*(c.Interval+c.MinPause) + c.Timeout + 2*time.Duration(notifyDelivery(s))
	return min(bound.Nanoseconds(), s.Limits.LivenessBound.Nanos())
}

// checkpointAfterHealNanos is how soon after heal some checkpoint must complete: within the
// liveness bound, unless no periodic trigger owes one (zero: not judged).
func checkpointAfterHealNanos(s *Scenario) int64 {
	if !s.Checkpoint.IsPeriodic() {
		return 0
	}
	return s.Limits.LivenessBound.Nanos()
}

// reactionMaxNanos is how long the coordinator may take to act on what has fallen due, when
// no fault holds it up: a decline is one message from a task, which the network delivers
// within its largest delay, and the coordinator acts on it, and on a timeout, in the
// instant it learns of it. Twice the delay, and a millisecond, leave room to spare and stay
// far below any timeout, so a checkpoint left to expire instead still shows.
func reactionMaxNanos(s *Scenario) int64 {
	return 2*s.MaxNetworkDelay().Nanos() + int64(time.Millisecond)
}

// pacing states the coordinator's policy in ref: the settings the trigger-pacing and
// checkpoint-timing properties judge the coordinator's decisions by.
func pacing(ref *checker.Reference, s *Scenario, cfg *engine.Config) {
	c := cfg.Checkpoint
	ref.Policy.IntervalNanos = checker.Nanos(c.Interval.Nanoseconds())
	ref.Policy.MinPauseNanos = checker.Nanos(c.MinPause.Nanoseconds())
	ref.Policy.TimeoutNanos = c.Timeout.Nanoseconds()
	ref.Policy.MaxConcurrent = c.MaxConcurrent
	ref.Policy.Mode = c.Mode.String()
	ref.Liveness.ReactionMaxNanos = reactionMaxNanos(s)
}

// reference computes what a correct run of the job must produce and the bounds its
// liveness is judged by, as the checkers want it.
func reference(s *Scenario, cfg *engine.Config) (checker.Reference, error) {
	ref := checker.Reference{
		Liveness: checker.LivenessBounds{
			CheckpointAfterHealNanos: checkpointAfterHealNanos(s),
			AlignmentMaxNanos:        s.Limits.LivenessBound.Nanos() / 2,
			NotifyMaxNanos:           notifyMaxNanos(s),
			RecoveryMaxNanos:         recoveryMaxNanos(s, cfg),
			// An abort goes out at once, and is re-sent like a completion.
			AbortReachMaxNanos: notifyMaxNanos(s),
			// Every source is bounded, so every task must finish, and the engine says when
			// the job has (job.finish).
			FinishTasks:     cfg.Graph.Tasks(),
			JobFinishTraced: true,
		},
	}
	ref.Policy.TolerableFailures = checker.Tolerating(cfg.Checkpoint.TolerableFailures)
	ref.Policy.RetainedCheckpoints = cfg.Checkpoint.RetainedCheckpoints
	if s.Mode != ModeChandyLamport {
		// A token workload's snapshots follow its own initiators, not the coordinator's
		// policy, so only a barrier job's reference states it. The engine admits input a
		// buffer at a time, so the protocol's bound counts buffers.
		pacing(&ref, s, cfg)
		ref.Policy.ChannelStateMaxRecords = int64(cfg.Checkpoint.MaxBufferedRecords) * int64(cfg.Network.BufferRecords)
		if s.Sink != nil && s.Sink.Kind == SinkTwoPhaseCommit {
			ref.Policy.MaxPendingTransactions = int64(cfg.PendingTransactionsBound())
		}
	}
	if cfg.Checkpoint.Mode == protocol.ModeAlignedWithTimeout {
		ref.Policy.AlignmentTimeoutNanos = cfg.Checkpoint.AlignmentTimeout.Nanoseconds()
		// The switch is a timer at the task: once it fires the barrier goes out at once, so
		// the timeout again is room enough for a task busy with a buffer meanwhile.
		ref.Liveness.SwitchMaxNanos = cfg.Checkpoint.AlignmentTimeout.Nanoseconds()
	}
	if s.Mode == ModeChandyLamport {
		// A token workload conserves its total even when that is zero tokens.
		ref.TokenWorkload = true
		ref.TokenTotal = s.TokenTotal()
		ref.Snapshots = expectedSnapshots(s)
		return ref, nil
	}
	if s.Sink == nil {
		return ref, nil
	}
	model, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
	if err != nil {
		return ref, fmt.Errorf("scenarios: %s: the output of this job depends on timing, so no reference can judge it: %w", s.Name, err)
	}
	ref.Guarantee = checker.GuaranteeExactlyOnce
	if !slices.Contains(PropertiesToCheck(s), checker.PropExactlyOnce) {
		ref.Guarantee = checker.GuaranteeAtLeastOnce
	}
	if ref.Output, err = expectedOutput(s, model); err != nil {
		return ref, err
	}
	return ref, nil
}
