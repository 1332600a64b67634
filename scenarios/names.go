package scenarios

import (
	"github.com/ckptsim/ckptsim/checker"
)

// The words a scenario file may use. Each list is in the order documentation shows it.

// Checkpoint modes (package protocol, Mode).
const (
	ModeAligned            = "aligned"
	ModeUnaligned          = "unaligned"
	ModeAlignedWithTimeout = "aligned-with-timeout"
	ModeAtLeastOnce        = "at-least-once"
	ModeChandyLamport      = "chandy-lamport"
)

// Modes lists every checkpoint mode.
var Modes = []string{ModeAligned, ModeUnaligned, ModeAlignedWithTimeout, ModeAtLeastOnce, ModeChandyLamport}

// Topology kinds. All but explicit are shapes the glue builds from a parallelism and a size;
// explicit lists nodes and directed links (cycles allowed).
const (
	TopologyPipeline     = "pipeline"      // source -> map stages -> sink, forward links
	TopologyKeyedShuffle = "keyed-shuffle" // source -> (hash by key) -> sum -> sink
	TopologyFanInUnion   = "fan-in-union"  // several sources -> union -> sink
	TopologyDiamond      = "diamond"       // source -> two branches -> union -> sink
	TopologyCycle        = "cycle"         // a feedback loop; for chandy-lamport a ring of processes
	TopologyExplicit     = "explicit"      // nodes and links as given
)

// TopologyKinds lists every topology kind.
var TopologyKinds = []string{TopologyPipeline, TopologyKeyedShuffle, TopologyFanInUnion, TopologyDiamond, TopologyCycle, TopologyExplicit}

// Node kinds of an explicit topology.
const (
	NodeSource  = "source"
	NodeMap     = "map"
	NodeSum     = "sum"     // keyed sum
	NodeUnion   = "union"   // merges its inputs
	NodeSink    = "sink"    // writes to the external store
	NodeProcess = "process" // a chandy-lamport process
)

// NodeKinds lists every node kind.
var NodeKinds = []string{NodeSource, NodeMap, NodeSum, NodeUnion, NodeSink, NodeProcess}

// Link partitioners of an explicit topology.
const (
	PartitionForward   = "forward"   // subtask i to subtask i
	PartitionHash      = "hash"      // by key
	PartitionRebalance = "rebalance" // round robin
	PartitionBroadcast = "broadcast" // to every subtask
)

// Partitions lists every partitioner.
var Partitions = []string{PartitionForward, PartitionHash, PartitionRebalance, PartitionBroadcast}

// Workload kinds.
const (
	WorkloadKeyedSum    = "keyed-sum"    // records carry a key and a value; sums per key
	WorkloadPassThrough = "pass-through" // records with ids flow to the sink unchanged
	WorkloadTokens      = "tokens"       // processes transfer tokens; the total is conserved
)

// WorkloadKinds lists every workload kind.
var WorkloadKinds = []string{WorkloadKeyedSum, WorkloadPassThrough, WorkloadTokens}

// Sink kinds.
const (
	SinkTwoPhaseCommit = "two-phase-commit" // transactions committed on checkpoint completion
	SinkIdempotent     = "idempotent"       // upserts by record id
	SinkAtLeastOnce    = "at-least-once"    // appends at once; duplicates after recovery
)

// SinkKinds lists every sink kind.
var SinkKinds = []string{SinkTwoPhaseCommit, SinkIdempotent, SinkAtLeastOnce}

// Properties lists every property a scenario may name (in check and expect.property), in
// checker.AllProperties order. The names are checker's own (checker.Property), so a scenario
// file, a report and an artifact spell a property one way; determinism is left out, since it
// is judged by replaying a run, not inside one.
var Properties = scenarioProperties()

func scenarioProperties() []checker.Property {
	var props []checker.Property
	for _, p := range checker.AllProperties {
		if p != checker.PropDeterminism {
			props = append(props, p)
		}
	}
	return props
}

// propertyNames is Properties as strings, for messages about a scenario file.
func propertyNames() []string { return propertyStrings(Properties) }

// Verdicts of one run. Pass, fail and unknown are checker's words (checker.Verdict) for the
// run's report; limit is the run's own, for a run that never reached the point where it
// could be judged. Neither unknown nor limit is ever a pass, and both are unexpected whatever
// the scenario expects.
const (
	VerdictPass = string(checker.VerdictPass)
	VerdictFail = string(checker.VerdictFail) // a property was violated
	// VerdictUnknown: the run ended as planned, but a property it checks could not be
	// decided (the trace lacks evidence it needs, porcupine ran out of its budget, ...), or
	// no property had anything to judge. Result.Undecided says which and why.
	VerdictUnknown = string(checker.VerdictUnknown)
	// VerdictLimit: the run hit a virtual-time or event limit before its liveness phase
	// ended, so it was not judged. Result.LimitReason says which.
	VerdictLimit = "limit"
)

// Script operations of a chandy-lamport exercise.
const (
	StepSend     = "send"     // from, to, tokens
	StepSnapshot = "snapshot" // process starts a snapshot
	StepAdvance  = "advance"  // by: let virtual time pass
	StepCrash    = "crash"    // process: its host goes down, the job fails over
	StepRestart  = "restart"  // process: its host is back, the job resumes from the latest global snapshot
	// StepWaitSnapshots: the script's clock stops until every snapshot asked for has
	// completed or aborted (at the latest until the rest of the script would no longer fit in
	// the fault phase: the verdict is then limit).
	StepWaitSnapshots = "wait-snapshots"
)

// StepOps lists every script operation.
var StepOps = []string{StepSend, StepSnapshot, StepAdvance, StepCrash, StepRestart, StepWaitSnapshots}
