package scenarios

// negativeControls are scenarios built to fail: each breaks one assumption the protocol
// relies on, or misconfigures the job the way real deployments do, and names the property
// whose checker must catch it. Together they make six different properties fail.
func negativeControls() []*Scenario {
	return []*Scenario{
		{
			Name: "control-at-least-once-sink",
			Description: "Exactly-once is checked against an at-least-once sink: a sum task crashes 50ms after " +
				"its third notification, the job restores and replays output the sink already wrote.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:     &Sink{Kind: SinkAtLeastOnce},
			Faults: []Fault{
				{Kind: FaultCrashTask, Target: "sum-0", Trigger: onAfter("notify.complete", "sum-0", 3, Millis(50)), RestartAfter: Millis(20)},
			},
			Expect: expectFail(PropertyExactlyOnce),
			Seeds:  seeds(1, 10),
		},
		{
			Name:        "control-reorder-aligned",
			Description: "Records and barriers on one channel are reordered (out of model: aligned checkpoints rely on FIFO channels), so snapshots cut the stream inconsistently.",
			Mode:        ModeAligned,
			Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:    Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(2)},
			Sink:        &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []Fault{
				{Kind: FaultReorder, From: "source-0", To: "sum-0", Duration: Seconds(2), Trigger: at(Millis(50))},
			},
			Expect: expectFail(PropertyConsistentCut),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-short-txn-timeout",
			Description: "The external store expires transactions after 50ms, shorter than a checkpoint interval " +
				"plus a coordinator outage: pre-committed output is aborted before its commit and lost.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit, TransactionTimeout: Millis(50)},
			Checkpoint: Checkpoint{Interval: Millis(200)},
			Faults: []Fault{
				{Kind: FaultCrashCoordinator, Trigger: on("checkpoint.complete", "coordinator", 2), RestartAfter: Millis(300)},
			},
			Expect: expectFail(PropertyAtLeastOnce),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-lost-metadata",
			Description: "The completed-checkpoint store acknowledges the third checkpoint's metadata and then " +
				"loses it (out of model); the coordinator crashes after that checkpoint was made visible and recovers behind it.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []Fault{
				{Kind: FaultStorageLostAck, Store: "metadata", Trigger: on("checkpoint.persist", "coordinator", 3)},
				{Kind: FaultCrashCoordinator, Trigger: onAfter("notify.complete", "", 1, Millis(1)), RestartAfter: Millis(50)},
			},
			Expect: expectFail(PropertyDurableBeforeVisible),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-lost-state",
			Description: "The state store acknowledges a snapshot upload and then loses it (out of model); " +
				"the task crashes and restores something other than what its checkpoint holds.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []Fault{
				{Kind: FaultStorageLostAck, Store: "state", Trigger: on("snapshot.taken", "sum-1", 3)},
				{Kind: FaultCrashTask, Target: "sum-1", Trigger: onAfter("notify.complete", "sum-1", 3, Millis(10)), RestartAfter: Millis(20)},
			},
			Expect: expectFail(PropertyRestoreFidelity),
			Seeds:  seeds(1, 10),
		},
		{
			Name: "control-no-checkpoint-timeout",
			Description: "Checkpoint timeout disabled with one checkpoint at a time: a single dropped barrier " +
				"leaves a checkpoint pending forever, and nothing completes after the faults heal.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload:   Workload{Kind: WorkloadPassThrough, Records: 150},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Timeout: timeout(0), MaxConcurrent: 1},
			Faults: []Fault{
				{Kind: FaultDropBarrier, From: "source-0", To: "map-1-0", Trigger: on("barrier.send", "source-0", 2)},
			},
			Expect: expectFail(PropertyLiveness),
			Seeds:  seeds(1, 10),
		},
	}
}
