package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// rareScenarios are regimes too (regimeScenarios lists them last): each is built to put the
// engine, by its own behaviour under faults and settings, on a protocol path that the default
// sweep otherwise never took (issue 15), and names the path in its description. What each
// reaches is measured, not assumed: `simrun cover -func -- sweep -scenario NAME -seeds 1-20`.
func rareScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "uneven-end-aligning",
			Description: "Three sources into two sums, at-least-once, src-2 alone on its host and paused " +
				"as the input runs out, so that src-0 and src-1 are carried finished while src-2 still " +
				"runs; their channels into the other host's sum are delayed: a sum aligning a checkpoint " +
				"that only src-2 was asked for sees src-0's end of partition arrive mid-alignment (the " +
				"closed input stops counting and completes it), and a sum whose final checkpoint " +
				"completes while it aligns a newer one exits with that alignment pending.",
			Mode:       ModeAtLeastOnce,
			Topology:   srcSumOut(3, 2, 2, PartitionForward),
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(2)},
			Sink:       &Sink{Kind: SinkAtLeastOnce},
			Checkpoint: Checkpoint{Interval: Millis(20), Timeout: Seconds(2), MaxConcurrent: 3},
			Faults: []faults.Entry{
				// The input runs out at about 400ms: the pause spans it, and checkpoints
				// triggered during it find src-0 and src-1 finished and src-2 not.
				at(Millis(390), faults.Fault{Kind: faults.PauseHost, Host: "tm-2", Window: Millis(200)}),
				at(0, faults.Fault{Kind: faults.NetDelay, From: "src-0", To: "sum-1", Delay: Millis(30), Window: Millis(2500)}),
				at(0, faults.Fault{Kind: faults.NetDelay, From: "src-1", To: "sum-0", Delay: Millis(80), Window: Millis(2500)}),
			},
			Limits: Limits{FaultPhase: Seconds(3), HealPhase: Millis(500), LivenessBound: Seconds(5)},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "end-trigger-ends-alignment",
			Description: "A bounded keyed shuffle with three aligned checkpoints in flight and one channel " +
				"into sum-1 delayed: once the sources are carried finished, the coordinator triggers the " +
				"sums directly, and a trigger that reaches a sum still aligning an older checkpoint on " +
				"the delayed channel ends that alignment (no barrier of it can follow).",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(2)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(20), Timeout: Seconds(2), MaxConcurrent: 3},
			Faults: []faults.Entry{
				at(0, faults.Fault{Kind: faults.NetDelay, From: "source-0", To: "sum-1", Delay: Millis(30), Window: Millis(2500)}),
			},
			Limits: Limits{FaultPhase: Seconds(3), HealPhase: Millis(500), LivenessBound: Seconds(5)},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "too-many-pending",
			Description: "Sixteen at-least-once checkpoints in flight (the protocol's MaxPendingCheckpoints), " +
				"one every 5ms with a 100ms timeout, while a channel into sum-1 is clogged and the " +
				"notifications to sum-1, then to source-0, are lost, and snapshot uploads slow down: " +
				"tasks that never heard of the aborts pile up alignments and snapshots until they must " +
				"refuse barriers, triggers and finished alignments; and a burst of seventeen savepoints " +
				"asked for at once meets the coordinator's own bound.",
			Mode:     ModeAtLeastOnce,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8, RecordInterval: Millis(5)},
			Sink:     &Sink{Kind: SinkAtLeastOnce},
			// Every expiry counts as a failure; the job must go on through them.
			Checkpoint: Checkpoint{Interval: Millis(5), Timeout: Millis(100), MaxConcurrent: 16, TolerableFailures: Tolerating(1000)},
			Faults: append([]faults.Entry{
				at(Millis(200), faults.Fault{Kind: faults.NetClog, From: "source-0", To: "sum-1", Window: Millis(300)}),
				at(Millis(200), faults.Fault{Kind: faults.NetDrop, From: faults.Coordinator, To: "sum-1", Message: faults.MessageNotify, Probability: 1, Window: Millis(400)}),
				at(Millis(600), faults.Fault{Kind: faults.NetDrop, From: faults.Coordinator, To: "source-0", Message: faults.MessageNotify, Probability: 1, Window: Millis(300)}),
				at(Millis(600), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(150), Window: Millis(200)}),
			}, savepointBurst(Millis(700), 17)...),
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "failover-while-persisting",
			Description: "Metadata writes slowed to some 60ms, and two tasks crashing as the second " +
				"checkpoint's metadata write begins, a third as the fourth's does: the failover the first " +
				"crash asks for must wait for the write in flight (it may be durable already), the second " +
				"crash asks again meanwhile, and the plan follows the write's answer.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(50)},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.StorageSlow, Store: StoreMetadata, Delay: Millis(60), Window: Millis(1500)}),
				onNth(2, trace.KindCheckpointPersist, "", faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
				onNth(2, trace.KindCheckpointPersist, "", faults.Fault{Kind: faults.CrashTask, Task: "source-0"}),
				onNth(4, trace.KindCheckpointPersist, "", faults.Fault{Kind: faults.CrashTask, Task: "sink-0"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "channel-state-overflow",
			Description: "Unaligned checkpoints with max_buffered_records 1 while the channel source-0 -> " +
				"sum-1 is delayed 150ms: sum-1 records the buffers that its barrier overtook, more than " +
				"one per checkpoint, and gives the checkpoint up (channel-state overflow) rather than " +
				"record without limit; checkpoints complete again once the delay ends.",
			Mode:       ModeUnaligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 8, RecordInterval: Millis(1)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(30), TolerableFailures: Tolerating(1000), MaxBufferedRecords: 1},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.NetDelay, From: "source-0", To: "sum-1", Delay: Millis(150), Window: Millis(400)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "failover-ended-by-final",
			Description: "No periodic checkpoint (a 5s interval and pause), the final checkpoint's metadata " +
				"write slowed to some 40ms, and a manual checkpoint asked for while it is written, whose " +
				"uploads all fail: with no failure tolerated the coordinator asks for a failover, which " +
				"waits for the write in flight; the write completes the final checkpoint, and a job that " +
				"has finished is not restarted.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 100, Keys: 8, RecordInterval: Millis(2)},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			// Two slots: the manual checkpoint starts beside the final one being written.
			Checkpoint: Checkpoint{Interval: Seconds(5), MinPause: Seconds(5), Timeout: Seconds(1), MaxConcurrent: 2, TolerableFailures: Tolerating(0)},
			Faults: []faults.Entry{
				// The final checkpoint's metadata write begins at about 254ms and ends
				// at about 298ms; the manual one's counter write, after 256ms, is fast.
				at(0, faults.Fault{Kind: faults.StorageSlow, Store: StoreMetadata, Delay: Millis(40), Window: Millis(256)}),
				at(Millis(257), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Probability: 1, Window: Millis(40)}),
				at(Millis(257), faults.Fault{Kind: faults.TriggerCheckpoint}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "savepoint-outlived",
			Description: "A savepoint and a manual checkpoint in flight together, no periodic ones, the " +
				"savepoint's uploads slowed beyond its 40ms timeout while the checkpoint's are not: the " +
				"newer checkpoint completes first (it does not subsume a savepoint), and the savepoint's " +
				"expiry is then announced without being kept for re-sending.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8, RecordInterval: Millis(2)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Seconds(5), MinPause: Seconds(5), Timeout: Millis(40), MaxConcurrent: 2},
			Faults: []faults.Entry{
				// The savepoint is triggered at about 65ms, the checkpoint at about 73ms.
				at(Millis(60), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(64), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(100), Window: Millis(6)}),
				at(Millis(68), faults.Fault{Kind: faults.TriggerCheckpoint}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "unaligned-too-many-uploads",
			Description: "Unaligned checkpoints every 5ms with a 25ms timeout while state uploads take " +
				"400ms and every notification to sum-1's host is lost: sum-1, alone with out-1 on its " +
				"host, never hears of the expiries and keeps every upload in flight until it holds " +
				"MaxPendingCheckpoints of them and must refuse its next unaligned snapshot.",
			Mode:       ModeUnaligned,
			Topology:   srcSumOut(1, 2, 2, PartitionForward),
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(5), Timeout: Millis(25), TolerableFailures: Tolerating(1000)},
			Faults: []faults.Entry{
				at(Millis(100), faults.Fault{Kind: faults.NetDrop, From: faults.Coordinator, To: "sum-1", Message: faults.MessageNotify, Probability: 1, Window: Millis(800)}),
				at(Millis(100), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(400), Window: Millis(700)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "sink-pending-full",
			Description: "Unaligned checkpoints into one two-phase-commit sink with two inputs, fast links " +
				"and inline state, while every notification to the sink's host is lost for 800ms: the " +
				"sink pre-commits a transaction per checkpoint and commits none, until its 64th pending " +
				"transaction makes the next pre-commit fail while that checkpoint's channel state is " +
				"still being recorded.",
			Mode:       ModeUnaligned,
			Topology:   srcSumOut(2, 2, 1, PartitionHash),
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 86, Keys: 8, RecordInterval: Millis(20)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(2), Timeout: Millis(100), TolerableFailures: Tolerating(1000), InlineStateBytes: 20 << 10},
			// 100us links: some 11ms a checkpoint, so the 64 fit in the input's 860ms.
			Network: &Network{Latency: &Latency{Kind: LatencyFixed, Value: Millis(1) / 10}},
			Faults: []faults.Entry{
				at(Millis(20), faults.Fault{Kind: faults.NetDrop, From: faults.Coordinator, To: "out-0", Message: faults.MessageNotify, Probability: 1, Window: Millis(800)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "timeout-mixed-barriers",
			Description: "Aligned checkpoints with a 20ms alignment timeout, three sources into two sums " +
				"into one sink, and src-2's channel to sum-0 delayed 50ms: sum-0 times out and sends an " +
				"unaligned barrier, which reaches the sink while it still aligns the same checkpoint on " +
				"sum-1's aligned barrier, well before its own timeout: the sink switches to unaligned.",
			Mode:       ModeAlignedWithTimeout,
			Topology:   srcSumOut(3, 2, 1, PartitionHash),
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 8, RecordInterval: Millis(2)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(50), AlignmentTimeout: Millis(20)},
			Faults: []faults.Entry{
				// tm-2 -> tm-0 carries src-2 -> sum-0 alone; sum-1 -> out-0 is not slowed.
				at(0, faults.Fault{Kind: faults.NetDelay, From: "src-2", To: "sum-0", Delay: Millis(50), Window: Millis(2500)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "savepoint-before-final",
			Description: "A savepoint whose upload at the map is slowed past the final checkpoint: the " +
				"final checkpoint completes first and makes the map fully finished, and the older " +
				"savepoint must not take the map's final snapshot (its state after the savepoint's cut) " +
				"but be aborted, since the map exits without sending its own.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyPipeline, Parallelism: 1, Stages: 1},
			Workload:   Workload{Kind: WorkloadPassThrough, Records: 100, RecordInterval: Millis(2)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Seconds(5), MinPause: Seconds(5), Timeout: Seconds(1), MaxConcurrent: 2},
			// The savepoint's barrier reaches the map after 76 of the 100 records.
			Network: &Network{Links: []LinkLatency{{From: "source-0", To: "map1-0", Latency: Latency{Kind: LatencyFixed, Value: Millis(20)}}}},
			Faults: []faults.Entry{
				at(Millis(150), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(165), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(300), Window: Millis(45)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "savepoint-queued-at-end",
			Description: "Savepoints asked for while the final checkpoint holds the only slot and its " +
				"metadata write is slowed: once it completes the job has finished, and a savepoint still " +
				"queued must be aborted, never triggered. Unaligned: only a job with unaligned " +
				"checkpoints queues savepoints for a slot (as in Flink; an aligned one forces them).",
			Mode:       ModeUnaligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 100, Keys: 8, RecordInterval: Millis(2)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Seconds(5), MinPause: Seconds(5), Timeout: Seconds(1), MaxConcurrent: 1},
			Faults: []faults.Entry{
				at(0, faults.Fault{Kind: faults.StorageSlow, Store: StoreMetadata, Delay: Millis(40), Window: Seconds(2)}),
				at(Millis(214), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(228), faults.Fault{Kind: faults.TriggerSavepoint}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
	}
}

// savepointBurst asks for n savepoints in the same instant d.
func savepointBurst(d Duration, n int) []faults.Entry {
	burst := make([]faults.Entry, n)
	for i := range burst {
		burst[i] = at(d, faults.Fault{Kind: faults.TriggerSavepoint})
	}
	return burst
}
