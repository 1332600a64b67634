package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"

	"github.com/ckptsim/ckptsim/checker"
)

// negativeControls are scenarios built to fail: each breaks one assumption the protocol
// relies on, or misconfigures the job the way real deployments do, and names the property
// whose checker must catch it. Together they make six different properties fail.
func negativeControls() []*Scenario {
	return []*Scenario{
		{
			Name: "control-at-least-once-sink",
			Description: "Exactly-once is checked against an at-least-once sink: a sink task crashes at its " +
				"40th, 75th and 110th writes, and each time the job restores from the last checkpoint and " +
				"writes again what came after it.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			// Per-record sink.write events, which the crashes are counted in.
			Sink: &Sink{Kind: SinkAtLeastOnce, TraceEachWrite: true},
			Faults: []faults.Entry{
				// Three crashes, because one can land just after a barrier, before the sink
				// wrote anything the restore would replay.
				onNth(40, "sink.write", "sink-0", faults.Fault{Kind: faults.CrashTask, Task: "sink-0"}),
				onNth(75, "sink.write", "sink-0", faults.Fault{Kind: faults.CrashTask, Task: "sink-0"}),
				onNth(110, "sink.write", "sink-0", faults.Fault{Kind: faults.CrashTask, Task: "sink-0"}),
			},
			Expect: expectFail(checker.PropExactlyOnce),
			Seeds:  seeds(1, 10),
		},
		{
			Name:        "control-reorder-aligned",
			Description: "Records and barriers on every shuffle channel are reordered (out of model: aligned checkpoints rely on FIFO channels), so snapshots cut the stream inconsistently.",
			Mode:        ModeAligned,
			Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:    Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(2)},
			Sink:        &Sink{Kind: SinkTwoPhaseCommit},
			// Every channel, not two: with two, about one seed in 600 (found by a sweep of 2,500
			// seeds) reordered nothing across a barrier and showed no inconsistent cut; with
			// four, none of 25,000 did.
			Faults: onShuffleLinks(Millis(50), faults.Fault{Kind: faults.DataReorder, Window: Seconds(2)}),
			Expect: expectFail(checker.PropConsistentCut),
			Seeds:  seeds(1, 10),
		},
		{
			Name:        "control-duplicated-records",
			Description: "Network buffers on every shuffle channel are delivered twice, each with probability 0.3 (out of model: the protocol assumes no channel invents records), so the sums count records twice and the sinks commit them twice.",
			Mode:        ModeAligned,
			Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:    Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(2)},
			Sink:        &Sink{Kind: SinkTwoPhaseCommit},
			Faults:      onShuffleLinks(Millis(50), faults.Fault{Kind: faults.DataDuplicate, Probability: 0.3, Window: Seconds(2)}),
			Expect:      expectFail(checker.PropExactlyOnce),
			Seeds:       seeds(1, 10),
		},
		{
			Name: "control-short-txn-timeout",
			Description: "The external store expires transactions after 120ms: long enough to pre-commit at " +
				"every checkpoint, too short to survive a coordinator outage between a checkpoint's completion " +
				"and the commits it triggers. The pre-committed output is aborted before its commit and lost.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit, TransactionTimeout: Millis(120)},
			Checkpoint: Checkpoint{Interval: Millis(50)},
			Faults: []faults.Entry{
				at(0, faults.Fault{Kind: faults.RestartDelay, Delay: Millis(300), Window: Seconds(2)}),
				onNth(3, "checkpoint.complete", "coordinator", faults.Fault{Kind: faults.CrashCoordinator}),
			},
			Expect: expectFail(checker.PropAtLeastOnce),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-lost-metadata",
			Description: "The completed-checkpoint store acknowledges metadata writes and loses them (out of " +
				"model, with the engine's read-back turned off); the coordinator crashes after a checkpoint " +
				"was made visible and recovers behind it.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{UnverifiedWrites: true},
			Faults: []faults.Entry{
				at(0, faults.Fault{Kind: faults.StorageLost, Store: StoreMetadata, Probability: 1, Window: Seconds(2)}),
				onNth(6, "notify.complete", "", faults.Fault{Kind: faults.CrashCoordinator}),
			},
			Expect: expectFail(checker.PropDurableVisible),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-lost-state",
			Description: "The store acknowledges writes and loses them (out of model, with the engine's read-back " +
				"turned off): first metadata, so that a recovered coordinator reuses checkpoint ids, then state, so " +
				"that a task restores the state of an older checkpoint with the same id.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{UnverifiedWrites: true, Retained: 100},
			Faults: []faults.Entry{
				// Metadata writes are lost for a while, so a coordinator crash recovers an
				// older checkpoint and the new incarnation reuses the ids that were lost...
				at(Millis(600), faults.Fault{Kind: faults.StorageLost, Store: StoreMetadata, Probability: 1, Window: Millis(400)}),
				at(Millis(1000), faults.Fault{Kind: faults.CrashCoordinator}),
				// ...then state writes are lost, so a reused id's state key still holds the
				// state of the first checkpoint with that id, and a task restores it.
				at(Millis(1000), faults.Fault{Kind: faults.StorageLost, Store: StoreState, Probability: 1, Window: Millis(500)}),
				at(Millis(1400), faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
			},
			Expect: expectFail(checker.PropRestoreFidelity),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-long-checkpoint-timeout",
			Description: "A checkpoint timeout of an hour with one checkpoint at a time: a trigger lost to a " +
				"short partition leaves a checkpoint pending past the end of the run, and nothing completes after the faults heal.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload:   Workload{Kind: WorkloadPassThrough, Records: 150},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Timeout: Seconds(3600), MaxConcurrent: 1},
			Faults: []faults.Entry{
				at(Millis(150), faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "source-0", OneWay: true, Window: Millis(150)}),
			},
			Expect: expectFail(checker.PropLiveness),
			Seeds:  seeds(1, 10),
		},
		classicReordered(),
	}
}

// onShuffleLinks schedules f at d on each of the four source -> sum channels of a keyed
// shuffle at parallelism 2, in a fixed order.
func onShuffleLinks(d Duration, f faults.Fault) []faults.Entry {
	var out []faults.Entry
	for _, from := range []string{"source-0", "source-1"} {
		for _, to := range []string{"sum-0", "sum-1"} {
			f.From, f.To = from, to
			out = append(out, at(d, f))
		}
	}
	return out
}
