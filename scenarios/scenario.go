package scenarios

import (
	"slices"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
)

// Scenario is everything a run needs besides its seed: the job (topology, workload, sink),
// the checkpoint mode and configuration, the faults, the run limits and what the run is
// expected to show. It is plain data: a file holds one as JSON (see Parse), a built-in is a Go
// literal, and an artifact carries one inline so that it replays without the catalogue.
//
// Parse fills in defaults, so a parsed or built-in Scenario is complete: marshalling it writes
// every setting the run used, and a change of defaults cannot change how an old artifact
// replays.
type Scenario struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Mode is the checkpoint mode: one of Modes.
	Mode       string     `json:"mode"`
	Topology   Topology   `json:"topology"`
	Workload   Workload   `json:"workload"`
	Sink       *Sink      `json:"sink,omitempty"` // required unless the workload is tokens
	Checkpoint Checkpoint `json:"checkpoint,omitzero"`
	// Faults is a fixed schedule, in the faults package's vocabulary; Swarm draws one per
	// seed instead. At most one is given.
	Faults []faults.Entry `json:"faults,omitempty"`
	Swarm  *Swarm         `json:"swarm,omitempty"`
	// Script drives a chandy-lamport exercise step by step (mode chandy-lamport only),
	// instead of random transfers; script.go says what each step does.
	Script []Step `json:"script,omitempty"`
	// Network sets the message delays between hosts (network.go); absent keeps the built-in.
	Network *Network `json:"network,omitempty"`
	Limits  Limits   `json:"limits,omitzero"`
	// RetiredPlantedBug is the field planted_bug of files written when the engine carried
	// planted bugs behind a switch. They are diffs in the bug zoo now (package zoo, simrun
	// zoo), so a file that names one is refused with a message that says so, rather than
	// run on the correct engine as if the bug were there.
	RetiredPlantedBug string `json:"planted_bug,omitempty"`
	Expect            Expect `json:"expect"`
	// Check names the properties to check; empty means the default set for the mode and
	// sink (PropertiesToCheck). The expected-to-fail property is always checked. The names
	// are checker's (Properties lists those a scenario may name).
	Check []checker.Property `json:"check,omitempty"`
	Seeds *SeedRange         `json:"seeds,omitempty"` // default seeds for a sweep
}

// Topology is the shape of the job graph.
type Topology struct {
	Kind string `json:"kind"` // one of TopologyKinds
	// Parallelism is the number of subtasks of each operator of a built shape.
	Parallelism int `json:"parallelism,omitempty"`
	// Stages is the number of map stages of a pipeline; Inputs the number of sources of a
	// fan-in union; Processes the size of a chandy-lamport ring.
	Stages    int `json:"stages,omitempty"`
	Inputs    int `json:"inputs,omitempty"`
	Processes int `json:"processes,omitempty"`
	// Nodes and Links describe an explicit topology.
	Nodes []Node `json:"nodes,omitempty"`
	Links []Link `json:"links,omitempty"`
	// MaxParallelism is the job's number of key groups (Flink's maximum parallelism): a
	// key's task is the one whose range of groups holds its hash's group. At least every
	// operator's parallelism; 0, as many groups as each keyed operator has tasks.
	MaxParallelism int `json:"max_parallelism,omitempty"`
}

// Node is one operator (or chandy-lamport process) of an explicit topology. A process node's
// name is the process's id, as written (see validateExplicit for the rule): in the script,
// the initiators, the faults and the trace.
type Node struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // one of NodeKinds
	Parallelism int    `json:"parallelism,omitempty"`
	// Tokens is a process node's starting balance in the token workload. Absent (nil), the
	// process starts with the workload's initial_tokens; zero means zero, so it is a
	// pointer, written out whenever it is set.
	Tokens *int64 `json:"tokens,omitempty"`
}

// Link is a directed channel between two nodes of an explicit topology.
type Link struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Partition string `json:"partition,omitempty"` // one of Partitions; default forward
}

// Workload is the input the sources produce.
type Workload struct {
	Kind string `json:"kind"` // one of WorkloadKinds
	// Records is the input size: records per source partition, and a source has one
	// partition per subtask unless Partitions or Splits say otherwise (keyed-sum,
	// pass-through).
	Records int `json:"records,omitempty"`
	// Keys is the number of distinct keys of a keyed sum.
	Keys int `json:"keys,omitempty"`
	// RecordInterval is the virtual time between two records of one source subtask.
	RecordInterval Duration `json:"record_interval,omitzero"`
	// Stagger spreads the source subtasks' starts over this much virtual time: subtask i of
	// n starts Stagger*i/(n-1) after the first and ends as much later, so that a job's
	// tasks finish one after another while checkpoints go on (keyed-sum, pass-through).
	Stagger Duration `json:"stagger,omitzero"`
	// Splits, if set, gives every source this many splits (Records each) in place of one
	// partition per subtask, and leaves them to the coordinator's split enumerator, which
	// hands them to the source's subtasks one at a time as each asks (Flink's FLIP-27
	// sources; keyed-sum, pass-through).
	Splits int `json:"splits,omitempty"`
	// Partitions, if set, gives every source this many partitions in place of one per
	// subtask: subtask i of n reads partitions i, i+n, i+2n, ..., as a Kafka topic with more
	// partitions than the job has subtasks is read. At least every source's parallelism;
	// not with Splits (keyed-sum, pass-through).
	Partitions int `json:"partitions,omitempty"`
	// Transfers is the input size of a token workload: how many transfers each process makes
	// to its neighbours, one every RecordInterval, each of 1 to MaxTransfer tokens (which
	// neighbour and how many are a pure function of the process and the transfer's number).
	Transfers   int   `json:"transfers,omitempty"`
	MaxTransfer int64 `json:"max_transfer,omitempty"`
	// InitialTokens is the starting balance of every process that does not give its own
	// (Node.Tokens): absent (nil) means the default, and zero means zero, so it is a
	// pointer, written out whenever it is set.
	InitialTokens *int64 `json:"initial_tokens,omitempty"`
}

// InitialBalance is the starting balance in a token workload of every process that does not
// give its own: InitialTokens, or 0 when it is not set (Parse and the catalogue always set
// it for a token workload). Scenario.InitialBalances has each process's.
func (w Workload) InitialBalance() int64 {
	if w.InitialTokens == nil {
		return 0
	}
	return *w.InitialTokens
}

// InitialBalances returns the starting balance of each process of a token workload, by
// process id: the node's tokens where an explicit topology gives them, the workload's
// initial_tokens otherwise. Their sum is the total every global snapshot must conserve.
// Call it on a validated scenario.
func (s *Scenario) InitialBalances() map[string]int64 {
	balances := make(map[string]int64)
	for _, n := range s.Graph().Nodes {
		if n.Kind == NodeProcess {
			balances[n.Name] = s.initialBalance(n)
		}
	}
	return balances
}

// initialBalance is the starting balance of process node n.
func (s *Scenario) initialBalance(n Node) int64 {
	if n.Tokens != nil {
		return *n.Tokens
	}
	return s.Workload.InitialBalance()
}

// TokenTotal returns the tokens of a token workload: the sum of the processes' starting
// balances.
func (s *Scenario) TokenTotal() int64 {
	var total int64
	for _, n := range s.Graph().Nodes {
		if n.Kind == NodeProcess {
			total += s.initialBalance(n)
		}
	}
	return total
}

// TokenCount returns a pointer to n, for InitialTokens in Go literals.
func TokenCount(n int64) *int64 { return &n }

// Sink is how the job's output reaches the external store.
type Sink struct {
	Kind string `json:"kind"` // one of SinkKinds
	// TransactionTimeout is how long the external store keeps an uncommitted transaction
	// (two-phase-commit); zero means it never expires. A timeout shorter than the time from
	// pre-commit to commit loses data: the classic exactly-once trap.
	TransactionTimeout Duration `json:"transaction_timeout,omitzero"`
	// TraceEachWrite traces one sink.write per record written instead of one sink.writes
	// per buffer (the records listed in attributes): the same information for the checkers
	// at several times the trace. A fault triggered by the nth sink.write needs it.
	TraceEachWrite bool `json:"trace_each_write,omitempty"`
	// MaxPendingTransactions bounds a two-phase-commit sink's pre-committed transactions
	// whose checkpoint's fate it has not heard; a snapshot past it is declined
	// (too-many-pending), as Flink's Kafka producer declines when its producer pool is used
	// up. Zero keeps the engine's 64.
	MaxPendingTransactions int `json:"max_pending_transactions,omitempty"`
}

// Checkpoint configures the coordinator (protocol.Config).
type Checkpoint struct {
	Interval Duration `json:"interval,omitzero"`
	// Timeout expires a pending checkpoint. A long one lets a lost barrier stall
	// checkpointing for as long.
	Timeout  Duration `json:"timeout,omitzero"`
	MinPause Duration `json:"min_pause,omitzero"`
	// MaxConcurrent must be 1 in modes unaligned and aligned-with-timeout.
	MaxConcurrent int `json:"max_concurrent,omitempty"`
	// TolerableFailures is how many checkpoint failures in a row the job tolerates before it
	// fails over (Flink's tolerable-failed-checkpoints): absent, the protocol's default (3,
	// which Complete writes in); a zero written is kept, and the first failure fails the job
	// over.
	TolerableFailures *int `json:"tolerable_failures,omitempty"`
	// AlignmentTimeout is when aligned-with-timeout switches to unaligned.
	AlignmentTimeout Duration `json:"alignment_timeout,omitzero"`
	// Retained is how many completed checkpoints are kept; zero keeps the default.
	Retained int `json:"retained,omitempty"`
	// Initiators are the processes that take turns starting Chandy-Lamport snapshots, one
	// every Interval, up to MaxConcurrent in flight (mode chandy-lamport; default the first
	// process).
	Initiators []string `json:"initiators,omitempty"`
	// UnverifiedWrites turns off the engine's read-back of every snapshot and metadata
	// write. The read-back catches torn, corrupted and lost writes before a checkpoint
	// relies on them; negative controls turn it off to let a lying store through.
	UnverifiedWrites bool `json:"unverified_writes,omitempty"`
	// InlineStateBytes: a task snapshot this small goes to the coordinator with its
	// acknowledgement and into the checkpoint's metadata instead of a storage write of its
	// own (Flink's state.storage.fs.memory-threshold); zero writes every snapshot.
	InlineStateBytes int `json:"inline_state_bytes,omitempty"`
	// Incremental takes incremental snapshots of keyed state (Flink's incremental RocksDB
	// checkpoints): a task uploads only the runs its state gained since its last completed
	// checkpoint, as shared pieces that later checkpoints refer to, and merges its runs into
	// one once there are more than Compaction (zero: the engine's default, 4). Modes other
	// than chandy-lamport.
	Incremental bool `json:"incremental,omitempty"`
	Compaction  int  `json:"compaction,omitempty"`
	// MaxBufferedRecords bounds the records a task records as one checkpoint's channel state
	// (modes unaligned and aligned-with-timeout; for chandy-lamport, the messages a process
	// records per channel): beyond it the task gives the checkpoint up (channel-state
	// overflow) instead of recording without limit. Zero keeps the protocol's default
	// (100,000); a small bound lets a scenario reach the overflow.
	MaxBufferedRecords int `json:"max_buffered_records,omitempty"`
	// Periodic false turns the periodic trigger off, as Flink's checkpointing interval left
	// unset does: checkpoints come only when asked (a trigger.checkpoint or
	// trigger.savepoint fault, a script's trigger) and at a bounded job's end (the final
	// checkpoint). Interval then paces nothing. Absent or true: a trigger every interval.
	// Modes other than chandy-lamport.
	Periodic *bool `json:"periodic,omitempty"`
}

// IsPeriodic reports whether the coordinator triggers checkpoints every interval.
func (c *Checkpoint) IsPeriodic() bool { return c.Periodic == nil || *c.Periodic }

// Swarm asks for a fault schedule drawn from the seed (faults.Swarm): which kinds are on, how
// often and how hard. Zero fields keep the faults package's default budget.
type Swarm struct {
	// Kinds are the fault kinds the draw may turn on; empty means every in-model kind.
	Kinds []faults.Kind `json:"kinds,omitempty"`
	// MaxFaults bounds the number of faults of one run.
	MaxFaults int `json:"max_faults,omitempty"`
	// MaxWindow bounds every outage, pause, partition and added delay.
	MaxWindow Duration `json:"max_window,omitzero"`
	// MinLiveHosts hosts are never crashed or paused.
	MinLiveHosts int `json:"min_live_hosts,omitempty"`
	// OutOfModel lets the swarm draw out-of-model kinds too (a negative-control swarm).
	OutOfModel bool `json:"out_of_model,omitempty"`
}

// Step is one step of a chandy-lamport script. Steps run in order; all but advance happen at
// the script's current virtual time.
type Step struct {
	Op      string   `json:"op"` // one of StepOps
	From    string   `json:"from,omitempty"`
	To      string   `json:"to,omitempty"`
	Tokens  int64    `json:"tokens,omitempty"`
	Process string   `json:"process,omitempty"`
	By      Duration `json:"by,omitzero"`
}

// Limits bound a run. The fault phase lasts FaultPhase; then faults stop and everything heals,
// HealPhase gives restarts time, and progress must follow within LivenessBound. MaxVirtualTime
// and MaxEvents end a run that goes on regardless, with the verdict limit.
type Limits struct {
	FaultPhase     Duration `json:"fault_phase,omitzero"`
	HealPhase      Duration `json:"heal_phase,omitzero"`
	LivenessBound  Duration `json:"liveness_bound,omitzero"`
	MaxVirtualTime Duration `json:"max_virtual_time,omitzero"`
	MaxEvents      int64    `json:"max_events,omitempty"`
}

// Expect is the verdict a scenario should give on every seed. A negative control expects
// fail and names the property that must be among the violations. A chandy-lamport script may
// also expect global snapshots (expect_snapshots.go), judged by property expected-snapshot.
type Expect struct {
	Verdict   string             `json:"verdict"` // pass or fail
	Property  checker.Property   `json:"property,omitempty"`
	Snapshots []ExpectedSnapshot `json:"snapshots,omitempty"`
	// EveryFaultFires requires every entry of the run's schedule to fire at least once
	// (Result.FaultsUnfired empty): a run in which one never fired is unexpected, whatever
	// its verdict, since it did not test what the scenario was written to test. Without
	// faults it holds trivially, and is allowed: shrinking a case may remove them all.
	EveryFaultFires bool `json:"every_fault_fires,omitempty"`
}

// IsNegativeControl reports whether the scenario is built to fail.
func (s *Scenario) IsNegativeControl() bool { return s.Expect.Verdict == VerdictFail }

// Clone returns a deep copy, so that shrinking or defaulting one never changes another.
func (s *Scenario) Clone() *Scenario {
	c := *s
	c.Sink = clonePointer(s.Sink)
	c.Workload.InitialTokens = clonePointer(s.Workload.InitialTokens)
	c.Swarm = clonePointer(s.Swarm)
	if s.Swarm != nil {
		c.Swarm.Kinds = slices.Clone(s.Swarm.Kinds)
	}
	c.Seeds = clonePointer(s.Seeds)
	c.Network = clonePointer(s.Network)
	if s.Network != nil {
		c.Network.Latency = clonePointer(s.Network.Latency)
		c.Network.Links = slices.Clone(s.Network.Links)
	}
	c.Topology.Nodes = append([]Node(nil), s.Topology.Nodes...)
	for i := range c.Topology.Nodes {
		c.Topology.Nodes[i].Tokens = clonePointer(s.Topology.Nodes[i].Tokens)
	}
	c.Topology.Links = append([]Link(nil), s.Topology.Links...)
	c.Checkpoint.Initiators = append([]string(nil), s.Checkpoint.Initiators...)
	if s.Checkpoint.TolerableFailures != nil {
		c.Checkpoint.TolerableFailures = Tolerating(*s.Checkpoint.TolerableFailures)
	}
	c.Faults = slices.Clone(s.Faults)
	c.Script = append([]Step(nil), s.Script...)
	c.Check = slices.Clone(s.Check)
	c.Expect.Snapshots = cloneExpectedSnapshots(s.Expect.Snapshots)
	return &c
}

func clonePointer[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// Tolerating returns a Checkpoint.TolerableFailures of n.
func Tolerating(n int) *int { return &n }
