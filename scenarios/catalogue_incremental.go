package scenarios

import (
	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// incrementalScenarios are the positive scenarios of incremental snapshots: shared pieces
// that later checkpoints reuse, under concurrency and under storage faults.
func incrementalScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "incremental-concurrent",
			Description: "Incremental snapshots on a keyed shuffle with three aligned checkpoints in flight " +
				"every 10ms, one retained, runs merged after two: tasks often build on a checkpoint that " +
				"one they snapshotted earlier subsumes before their ack arrives, and the coordinator must " +
				"refuse the acks that reuse what it released. Links are delayed and clogged and tasks crash.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 400, Keys: 40, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(10), MaxConcurrent: 3, Retained: 1, Incremental: true, Compaction: 2},
			Swarm:      &Swarm{Kinds: []faults.Kind{faults.NetDelay, faults.NetClog, faults.CrashTask}, MaxFaults: 6},
			Expect:     expectPass,
			Seeds:      seeds(1, 10),
		},
		{
			Name: "incremental-storage-faults",
			Description: "Incremental snapshots under in-model storage faults: failed, slow and corrupted " +
				"writes of state, so that some of a snapshot's pieces upload and others do not, then a " +
				"crash that must restore from the pieces that did.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 30, RecordInterval: Millis(3)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(30), Incremental: true, Compaction: 3},
			Faults: []faults.Entry{
				at(Millis(200), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Probability: 0.3, Window: Millis(400)}),
				at(Millis(400), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(20), Window: Millis(300)}),
				at(Millis(700), faults.Fault{Kind: faults.StorageCorrupt, Store: StoreState, Probability: 0.2, Window: Millis(200)}),
				at(Millis(1000), faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
	}
}

// stateOwnershipScenarios are the scenarios of who deletes shared pieces: deletes that fail
// or are lost, restore modes, and the control that loses deletes for good.
func stateOwnershipScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "incremental-delete-faults",
			Description: "Incremental snapshots whose deletes fail or are lost: the storage refuses half the " +
				"writes and deletes of pieces for a while, then acknowledges some and does nothing. A delete is " +
				"retried until it took effect (read back, like every write), so that when the run ends the " +
				"storage holds no piece the trace says was deleted. A task crashes first, so that the " +
				"deletes come from tasks and a coordinator that live to the end.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 400, Keys: 40, RecordInterval: Millis(4)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(20), MaxConcurrent: 2, Retained: 1, Incremental: true, Compaction: 2},
			Faults: []faults.Entry{
				at(Millis(200), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Key: "piece/", Probability: 0.5, Window: Millis(500)}),
				at(Millis(800), faults.Fault{Kind: faults.StorageLost, Store: StoreState, Key: "piece/", Probability: 0.3, Window: Millis(500)}),
				at(Millis(150), faults.Fault{Kind: faults.CrashTask, Task: "sum-2"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "resubmit-restore-modes",
			Description: "Incremental snapshots of a job that its user stops and submits again three times, " +
				"each from its latest completed checkpoint: claiming it, then in legacy mode, then without " +
				"claiming it, with task crashes between. The stopped job's checkpoints stay the user's, and " +
				"a checkpoint not claimed is never deleted and, under no-claim, never built on.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 400, Keys: 40, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(20), Retained: 2, Incremental: true, Compaction: 3},
			Faults: []faults.Entry{
				onNth(4, trace.KindCheckpointComplete, faults.Coordinator, faults.Fault{Kind: faults.ResubmitClaim}),
				at(Millis(400), faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
				onNth(12, trace.KindCheckpointComplete, faults.Coordinator, faults.Fault{Kind: faults.ResubmitLegacy}),
				at(Millis(900), faults.Fault{Kind: faults.CrashTask, Task: "sum-2"}),
				onNth(20, trace.KindCheckpointComplete, faults.Coordinator, faults.Fault{Kind: faults.ResubmitNoClaim}),
				at(Millis(1500), faults.Fault{Kind: faults.CrashTask, Task: "sum-0"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-lost-deletes",
			Description: "Incremental snapshots on a store that acknowledges half the writes and deletes of " +
				"pieces for a second and does nothing (out of model, with the engine's read-back turned off): " +
				"pieces released stay in the storage for good and pieces checkpoints need are missing, which " +
				"its listing at the end shows.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 16, RecordInterval: Millis(4)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(50), UnverifiedWrites: true, Retained: 1, Incremental: true, Compaction: 2},
			Faults: []faults.Entry{
				onNth(3, trace.KindCheckpointComplete, faults.Coordinator, faults.Fault{Kind: faults.StorageLost, Store: StoreState, Key: "piece/", Probability: 0.5, Window: Seconds(1)}),
			},
			Expect: expectFail(checker.PropStateRelease),
			Seeds:  seeds(1, 10),
		},
	}
}
