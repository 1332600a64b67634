package scenarios

import "github.com/ckptsim/ckptsim/faults"

// positiveScenarios are the scenarios the correct protocol must pass on every seed.
func positiveScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: StandardName,
			Description: "The standard job (the engine's standard benchmark, bounded): 8 sources of 1,000 " +
				"records at 1,000 records per second, keyed by into 8 sums and 8 two-phase-commit sinks, " +
				"aligned checkpoints every 100ms, under a swarm of in-model faults.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 8},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 1000, Keys: 16, RecordInterval: Millis(1)},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			// As engine.StandardConfig: small state goes into the metadata.
			Checkpoint: Checkpoint{InlineStateBytes: 20 << 10},
			Swarm:      &Swarm{},
			Expect:     expectPass,
			Seeds:      seeds(1, 20),
		},
		{
			Name:        "pipeline-calm",
			Description: "A two-stage pass-through pipeline into an idempotent sink with no faults: the baseline every change must keep green.",
			Mode:        ModeAligned,
			Topology:    Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 2},
			Workload:    Workload{Kind: WorkloadPassThrough, Records: 150},
			Sink:        &Sink{Kind: SinkIdempotent},
			Expect:      expectPass,
			Seeds:       seeds(1, 5),
		},
		{
			Name: "timeout-diamond",
			Description: "Aligned checkpoints that switch to unaligned after 5ms of alignment, on a diamond " +
				"whose branches a swarm of delays, clogs and crashes pulls apart.",
			Mode:       ModeAlignedWithTimeout,
			Topology:   Topology{Kind: TopologyDiamond, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 12},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{AlignmentTimeout: Millis(5)},
			Swarm:      &Swarm{Kinds: []faults.Kind{faults.NetDelay, faults.NetClog, faults.CrashTask}, MaxFaults: 5},
			Expect:     expectPass,
			Seeds:      seeds(1, 10),
		},
		{
			Name:        "at-least-once-fan-in",
			Description: "At-least-once checkpoints on three unioned sources into an at-least-once sink; crashes may duplicate output but must not lose any.",
			Mode:        ModeAtLeastOnce,
			Topology:    Topology{Kind: TopologyFanInUnion, Parallelism: 2, Inputs: 3},
			Workload:    Workload{Kind: WorkloadPassThrough, Records: 150},
			Sink:        &Sink{Kind: SinkAtLeastOnce},
			Faults: []faults.Entry{
				at(Millis(700), faults.Fault{Kind: faults.CrashTask, Task: "union-0"}),
				at(Millis(1500), faults.Fault{Kind: faults.CrashHost, Host: "tm-1", WindowNanos: Millis(200).Nanos()}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name:        "wide-shuffle-32",
			Description: "A keyed shuffle at parallelism 32 (1024 channels into the sums) with exactly-once output under a small swarm.",
			Mode:        ModeAligned,
			Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 32},
			Workload:    Workload{Kind: WorkloadKeyedSum, Records: 40, Keys: 64},
			Sink:        &Sink{Kind: SinkTwoPhaseCommit},
			Swarm:       &Swarm{MaxFaults: 4},
			Expect:      expectPass,
			Seeds:       seeds(1, 3),
		},
		{
			Name: "chandy-lamport-ring",
			Description: "The classic algorithm on a ring of four processes passing tokens: two initiators " +
				"take turns, two snapshots may be in flight at once, and a process crashes right after " +
				"its second snapshot; every global snapshot must conserve the tokens.",
			Mode:       ModeChandyLamport,
			Topology:   Topology{Kind: TopologyCycle, Processes: 4},
			Workload:   Workload{Kind: WorkloadTokens, Transfers: 150, InitialTokens: TokenCount(100), RecordInterval: Millis(5)},
			Checkpoint: Checkpoint{Interval: Millis(40), MaxConcurrent: 2, Initiators: []string{"p-0", "p-2"}},
			Faults: []faults.Entry{
				onNth(2, "snapshot.taken", "p-1", faults.Fault{Kind: faults.CrashTask, Task: "p-1"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "chandy-lamport-mesh",
			Description: "Chandy-Lamport on a complete graph of three processes with up to three snapshots " +
				"in flight, started by every process in turn, under a swarm of delays, partitions and crashes.",
			Mode: ModeChandyLamport,
			Topology: Topology{Kind: TopologyExplicit,
				Nodes: []Node{{Name: "a", Kind: NodeProcess}, {Name: "b", Kind: NodeProcess}, {Name: "c", Kind: NodeProcess}},
				Links: []Link{{From: "a", To: "b"}, {From: "b", To: "a"}, {From: "b", To: "c"},
					{From: "c", To: "b"}, {From: "a", To: "c"}, {From: "c", To: "a"}},
			},
			Workload:   Workload{Kind: WorkloadTokens, Transfers: 200, InitialTokens: TokenCount(150), MaxTransfer: 20},
			Checkpoint: Checkpoint{Interval: Millis(50), MaxConcurrent: 3, Initiators: []string{"a", "b", "c"}},
			Swarm:      &Swarm{Kinds: []faults.Kind{faults.NetDelay, faults.NetPartition, faults.CrashTask}, MaxFaults: 4},
			Expect:     expectPass,
			Seeds:      seeds(1, 10),
		},
		{
			Name: "coordinator-failover",
			Description: "The coordinator crashes right after its second checkpoint completes, before any " +
				"notification; a sink task crashes at its first commit; a partition loses notifications.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []faults.Entry{
				onNth(2, "checkpoint.complete", "coordinator", faults.Fault{Kind: faults.CrashCoordinator}),
				onNth(1, "sink.commit", "sink-1", faults.Fault{Kind: faults.CrashTask, Task: "sink-1"}),
				at(Millis(1000), faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sink-0", OneWay: true, WindowNanos: Millis(150).Nanos()}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "explicit-unaligned",
			Description: "Unaligned checkpoints on an explicit graph: two sources merged, summed at " +
				"parallelism 3 and rebalanced into a sink of parallelism 2, under a swarm.",
			Mode: ModeUnaligned,
			Topology: Topology{Kind: TopologyExplicit,
				Nodes: []Node{
					{Name: "src_a", Kind: NodeSource, Parallelism: 2},
					{Name: "src_b", Kind: NodeSource, Parallelism: 2},
					{Name: "merge", Kind: NodeUnion, Parallelism: 2},
					{Name: "sum", Kind: NodeSum, Parallelism: 3},
					{Name: "out", Kind: NodeSink, Parallelism: 2},
				},
				Links: []Link{
					{From: "src_a", To: "merge", Partition: PartitionForward},
					{From: "src_b", To: "merge", Partition: PartitionForward},
					{From: "merge", To: "sum", Partition: PartitionHash},
					{From: "sum", To: "out", Partition: PartitionRebalance},
				},
			},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 120, Keys: 10},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Swarm:    &Swarm{},
			Expect:   expectPass,
			Seeds:    seeds(1, 10),
		},
		{
			Name:        "storage-faults",
			Description: "In-model storage and external-system faults: failed, corrupted, slow and unavailable writes and a transient commit failure, then a crash that must restore around them.",
			Mode:        ModeAligned,
			Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:    Workload{Kind: WorkloadPassThrough, Records: 150},
			Sink:        &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []faults.Entry{
				at(Millis(500), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Probability: 0.5, WindowNanos: Millis(300).Nanos()}),
				at(Millis(600), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, DelayNanos: Millis(40).Nanos(), WindowNanos: Millis(400).Nanos()}),
				at(Millis(800), faults.Fault{Kind: faults.ExternalCommitFail, Probability: 0.5, WindowNanos: Millis(200).Nanos()}),
				at(Millis(900), faults.Fault{Kind: faults.StorageCorrupt, Store: StoreState, Probability: 0.3, WindowNanos: Millis(200).Nanos()}),
				at(Millis(1000), faults.Fault{Kind: faults.StorageTorn, Store: StoreState, Probability: 0.3, WindowNanos: Millis(200).Nanos()}),
				at(Millis(1200), faults.Fault{Kind: faults.StorageUnavailable, Store: StoreMetadata, WindowNanos: Millis(300).Nanos()}),
				at(Millis(1500), faults.Fault{Kind: faults.CrashTask, Task: "map-1"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name:        "network-faults",
			Description: "Unaligned checkpoints into an idempotent sink while links slow down, drop barriers, partition, break and clog, a host pauses and one host's timers run fast.",
			Mode:        ModeUnaligned,
			Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 4},
			Workload:    Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 16},
			Sink:        &Sink{Kind: SinkIdempotent},
			Faults: []faults.Entry{
				at(0, faults.Fault{Kind: faults.ClockSkew, Host: "tm-2", SkewPPM: 200_000, WindowNanos: Seconds(2).Nanos()}),
				at(Millis(300), faults.Fault{Kind: faults.NetDelay, From: "source-0", To: "sum-1", DelayNanos: Millis(30).Nanos(), WindowNanos: Millis(250).Nanos()}),
				at(Millis(350), faults.Fault{Kind: faults.NetDrop, Message: faults.MessageBarrier, From: "source-2", To: "sum-0", Probability: 1, WindowNanos: Millis(250).Nanos()}),
				at(Millis(600), faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "source-2", WindowNanos: Millis(200).Nanos()}),
				at(Millis(400), faults.Fault{Kind: faults.NetClog, From: "sum-3", To: "sink-3", WindowNanos: Millis(300).Nanos()}),
				at(Millis(800), faults.Fault{Kind: faults.NetPartition, From: "source-1", To: "sum-2", WindowNanos: Millis(500).Nanos()}),
				at(Millis(1200), faults.Fault{Kind: faults.NetBreak, From: "source-0", To: "sum-1"}),
				at(Millis(1400), faults.Fault{Kind: faults.PauseHost, Host: "tm-3", WindowNanos: Millis(150).Nanos()}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
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
		classicExercise(),
	}
}
