package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// regimeScenarios reach the protocol paths that the other scenarios visit rarely or never:
// concurrent checkpoints, savepoints with one retained checkpoint, ambiguous metadata writes
// meeting a coordinator crash, notifications lost around the end of bounded input, inputs held
// back against the alignment timeout, and declines and cancel markers under concurrency.
// Concurrent checkpoints are aligned (and at-least-once): the protocol refuses more than one
// in the unaligned modes, as Flink does. The rare regimes (rareScenarios) come last.
func regimeScenarios() []*Scenario {
	return append([]*Scenario{
		{
			Name: "concurrent-aligned",
			Description: "Three aligned checkpoints in flight at once, every 30ms, on a keyed shuffle whose " +
				"links a swarm delays, clogs and partitions, so that alignments of several checkpoints overlap.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 12, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(30), MaxConcurrent: 3},
			Swarm:      &Swarm{Kinds: []faults.Kind{faults.NetDelay, faults.NetClog, faults.NetPartition, faults.NetDrop, faults.CrashTask}, MaxFaults: 6},
			Expect:     expectPass,
			Seeds:      seeds(1, 10),
		},
		{
			Name: "concurrent-declines",
			Description: "Two aligned checkpoints at once while barriers are dropped, so that newer barriers " +
				"overtake older alignments, tasks decline and cancel markers run downstream.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 12, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(40), MaxConcurrent: 2, Timeout: Millis(300)},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.NetDrop, Message: faults.MessageBarrier, Probability: 0.3, Window: Millis(700)}),
				at(Millis(400), faults.Fault{Kind: faults.NetDelay, From: "source-1", To: "sum-2", Delay: Millis(60), Window: Millis(300)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "unaligned-aborts",
			Description: "Unaligned checkpoints aborted by a short timeout while a few barriers are dropped and " +
				"the links into the sinks are clogged, so that a cancel marker, the next barrier and the data " +
				"behind it queue up together: the barrier then waits its turn instead of overtaking.",
			Mode:       ModeUnaligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 12, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(40), Timeout: Millis(120)},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.NetDrop, Message: faults.MessageBarrier, Probability: 0.05, Window: Millis(800)}),
				at(Millis(100), faults.Fault{Kind: faults.NetClog, From: "sum-0", To: "sink-0", Window: Millis(130)}),
				at(Millis(300), faults.Fault{Kind: faults.NetClog, From: "sum-1", To: "sink-1", Window: Millis(130)}),
				at(Millis(600), faults.Fault{Kind: faults.NetClog, From: "sum-2", To: "sink-2", Window: Millis(130)}),
				at(Millis(200), faults.Fault{Kind: faults.NetClog, From: "source-1", To: "sum-0", Window: Millis(130)}),
				at(Millis(500), faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "concurrent-lost-barriers",
			Description: "Up to four aligned checkpoints in flight with a timeout far beyond the run, while a " +
				"few barriers on one channel are lost: only a newer barrier can end an alignment that " +
				"waits for a lost one, so checkpointing stalls if it does not.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 12, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(40), Timeout: Seconds(20), MaxConcurrent: 4},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.NetDrop, Message: faults.MessageBarrier, From: "source-0", To: "sum-1", Probability: 0.1, Window: Millis(600)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "savepoints-retained-1",
			Description: "Savepoints asked for at a time and on a completion, with one retained checkpoint, " +
				"then a task crash: recovery must use the retained checkpoint, never the savepoint.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Retained: 1},
			Faults: []faults.Entry{
				at(Millis(250), faults.Fault{Kind: faults.TriggerSavepoint}),
				onNth(3, trace.KindCheckpointComplete, "", faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(700), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(720), faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
				at(Millis(1100), faults.Fault{Kind: faults.TriggerCheckpoint}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "savepoints-unaligned",
			Description: "Savepoints (always aligned) in an unaligned job whose links are delayed and clogged, " +
				"the links into two sinks around two of the savepoints, so that the sums are backpressured " +
				"and the savepoint's barriers queue behind data an unaligned barrier would overtake.",
			Mode:     ModeUnaligned,
			Topology: Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 12, RecordInterval: Millis(5)},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []faults.Entry{
				at(Millis(100), faults.Fault{Kind: faults.NetClog, From: "source-0", To: "sum-1", Window: Millis(80)}),
				at(Millis(150), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(400), faults.Fault{Kind: faults.NetDelay, From: "sum-2", To: "sink-2", Delay: Millis(40), Window: Millis(400)}),
				onNth(4, trace.KindCheckpointComplete, "", faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(900), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(600), faults.Fault{Kind: faults.CrashTask, Task: "sum-0"}),
				at(Millis(130), faults.Fault{Kind: faults.NetClog, From: "sum-1", To: "sink-1", Window: Millis(100)}),
				at(Millis(880), faults.Fault{Kind: faults.NetClog, From: "sum-0", To: "sink-0", Window: Millis(100)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "manual-triggers",
			Description: "Savepoints and checkpoints asked for by hand at every awkward moment: two at once, " +
				"during a failover, across a coordinator crash that must recover savepoints from the " +
				"store, and after the job finished; requests the coordinator must refuse are refused.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{MaxConcurrent: 2, Retained: 2},
			Faults: []faults.Entry{
				at(Millis(100), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(101), faults.Fault{Kind: faults.TriggerSavepoint}),
				at(Millis(102), faults.Fault{Kind: faults.TriggerCheckpoint}),
				at(Millis(300), faults.Fault{Kind: faults.CrashTask, Task: "sum-0"}),
				onNth(1, trace.KindJobFailover, "", faults.Fault{Kind: faults.TriggerSavepoint}),
				onNth(1, trace.KindJobFailover, "", faults.Fault{Kind: faults.TriggerCheckpoint}),
				at(Millis(500), faults.Fault{Kind: faults.TriggerSavepoint}),
				onNth(5, trace.KindCheckpointComplete, "", faults.Fault{Kind: faults.CrashCoordinator}),
				onNth(6, trace.KindTaskFinish, "", faults.Fault{Kind: faults.TriggerSavepoint}),
				onNth(6, trace.KindTaskFinish, "", faults.Fault{Kind: faults.TriggerCheckpoint}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "ambiguous-metadata",
			Description: "Metadata writes that fail or take long while the coordinator crashes on a " +
				"checkpoint's abort: the next incarnation must recover whatever the store holds.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 2},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 8},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []faults.Entry{
				at(Millis(100), faults.Fault{Kind: faults.StorageSlow, Store: StoreMetadata, Delay: Millis(150), Window: Millis(900)}),
				at(Millis(150), faults.Fault{Kind: faults.StorageFail, Store: StoreMetadata, Probability: 0.5, Window: Millis(900)}),
				onNth(1, trace.KindCheckpointAbort, "", faults.Fault{Kind: faults.CrashCoordinator}),
				onNth(3, trace.KindCheckpointAbort, "", faults.Fault{Kind: faults.CrashCoordinator}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "notify-drops-at-end",
			Description: "Completion and abort notifications dropped while the bounded input runs out: " +
				"finishing tasks wait for the notification of their final checkpoint, which must be re-sent.",
			Mode:     ModeAligned,
			Topology: Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 60, Keys: 8},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []faults.Entry{
				at(Millis(450), faults.Fault{Kind: faults.NetDrop, Message: faults.MessageNotify, Probability: 0.7, Window: Millis(1500)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "failure-budget",
			Description: "One tolerable checkpoint failure while metadata writes fail, snapshot uploads fail " +
				"and then slow past the checkpoint timeout: the job must fail over exactly when a second " +
				"failure in a row is counted, whatever the reason.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(50), Timeout: Millis(80), TolerableFailures: Tolerating(1)},
			Faults: []faults.Entry{
				at(Millis(100), faults.Fault{Kind: faults.StorageFail, Store: StoreMetadata, Probability: 0.5, Window: Millis(500)}),
				at(Millis(650), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Probability: 0.3, Window: Millis(200)}),
				at(Millis(900), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(120), Window: Millis(300)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "concurrent-at-end",
			Description: "Three aligned checkpoints in flight while a bounded keyed shuffle runs out, and the " +
				"external store's host pauses as the first task exits: sinks whose protocol let them exit " +
				"wait for their last commits while newer checkpoints complete over their final snapshots.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 100, Keys: 16, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(20), Timeout: Seconds(1), MaxConcurrent: 3},
			Faults: []faults.Entry{
				onNth(1, trace.KindTaskFinish, "", faults.Fault{Kind: faults.PauseHost, Host: "ext", Window: Millis(40)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "abort-notice-lost-downstream",
			Description: "Three levels, src(2) into sum(2) into out(3), out-2 alone on its host with two " +
				"inputs: one checkpoint asked for by hand loses a barrier into sum-0 and expires, and the " +
				"abort notification to out-2, blocked on its other input, is lost; the timeout puts the " +
				"re-sent one past the liveness deadline, so only sum-0's cancel marker releases out-2 in time.",
			Mode:     ModeAligned,
			Topology: srcSumOut(2, 2, 3, PartitionHash),
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 100, Keys: 8},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			// No periodic checkpoint: the one asked for by hand and the final one only.
			Checkpoint: Checkpoint{Interval: Seconds(1000), MinPause: Seconds(1000), Timeout: Seconds(3)},
			Faults: []faults.Entry{
				at(Millis(200), faults.Fault{Kind: faults.TriggerCheckpoint}),
				onNth(1, trace.KindCheckpointTrigger, "", faults.Fault{Kind: faults.NetDrop, From: "src-1", To: "sum-0", Message: faults.MessageBarrier, Probability: 1, Window: Millis(300)}),
				// The drop window stays well under the ~22ms the correct job needs from the
				// abort to its final completion, whose notifications must get through.
				onNth(1, trace.KindCheckpointAbort, "", faults.Fault{Kind: faults.NetDrop, From: faults.Coordinator, To: "out-2", Message: faults.MessageNotify, Probability: 1, Window: Millis(5)}),
			},
			// The abort (~3.2s) must fall inside the fault phase for its trigger to fire.
			Limits: Limits{FaultPhase: Millis(3300), HealPhase: Millis(500), LivenessBound: Seconds(2)},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "uneven-end-unaligned",
			Description: "Three sources into two sums, unaligned, src-2 alone on its host and its channel to " +
				"sum-0 delayed so that it falls behind while src-0 and src-1 finish on time and exit: the " +
				"sums must align every later checkpoint, the final one too, without their ended inputs.",
			Mode:     ModeUnaligned,
			Topology: srcSumOut(3, 2, 2, PartitionForward),
			Workload: Workload{Kind: WorkloadKeyedSum, Records: 1000, Keys: 8, RecordInterval: Millis(1)},
			Sink:     &Sink{Kind: SinkTwoPhaseCommit},
			Faults: []faults.Entry{
				at(0, faults.Fault{Kind: faults.NetDelay, From: "src-2", To: "sum-0", Delay: Millis(300), Window: Millis(2500)}),
			},
			Limits: Limits{FaultPhase: Seconds(3), HealPhase: Millis(500), LivenessBound: Seconds(5)},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "failover-during-counter-write",
			Description: "Metadata writes slowed so that each checkpoint's id sits in a counter write of about " +
				"62ms, checkpoints back to back (each ~72ms at a 50ms interval, so the next is reserved as " +
				"the last completes), and task crashes on the 2nd, 4th and 6th completion: every failover " +
				"lands while the id of the checkpoint just reserved is still being written.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 12, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(50), Timeout: Seconds(1)},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.StorageSlow, Store: StoreMetadata, Delay: Millis(60), Window: Millis(1500)}),
				onNth(2, trace.KindCheckpointComplete, "", faults.Fault{Kind: faults.CrashTask, Task: "sum-1"}),
				onNth(4, trace.KindCheckpointComplete, "", faults.Fault{Kind: faults.CrashTask, Task: "source-0"}),
				onNth(6, trace.KindCheckpointComplete, "", faults.Fault{Kind: faults.CrashTask, Task: "sink-2"}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "uneven-finish-notify-lost",
			Description: "Two independent pass-through pipelines, one throttled by a delay on its first link so " +
				"that the other finishes checkpoints earlier, and every notification to the early one's " +
				"host lost for a while: its sink misses the notification of its final checkpoint and is " +
				"told of a later one, completed over its carried final snapshot, which it must take calmly.",
			Mode:       ModeAligned,
			Topology:   Topology{Kind: TopologyPipeline, Parallelism: 2, Stages: 1},
			Workload:   Workload{Kind: WorkloadPassThrough, Records: 600, RecordInterval: Millis(1)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{Interval: Millis(50), Timeout: Seconds(2)},
			Faults: []faults.Entry{
				at(Millis(50), faults.Fault{Kind: faults.NetDelay, From: "source-1", To: "map1-1", Delay: Millis(200), Window: Seconds(2)}),
				at(Millis(500), faults.Fault{Kind: faults.NetDrop, From: faults.Coordinator, To: "sink-0", Message: faults.MessageNotify, Probability: 1, Window: Millis(2400)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
		{
			Name: "timeout-backpressure",
			Description: "Aligned checkpoints with a 10ms alignment timeout while one input of every sum is " +
				"held back (delayed, clogged): alignments must switch to unaligned in time.",
			Mode:       ModeAlignedWithTimeout,
			Topology:   Topology{Kind: TopologyKeyedShuffle, Parallelism: 2},
			Workload:   Workload{Kind: WorkloadKeyedSum, Records: 200, Keys: 8, RecordInterval: Millis(5)},
			Sink:       &Sink{Kind: SinkTwoPhaseCommit},
			Checkpoint: Checkpoint{AlignmentTimeout: Millis(10)},
			Faults: []faults.Entry{
				at(Millis(80), faults.Fault{Kind: faults.NetDelay, From: "source-0", To: "sum-1", Delay: Millis(40), Window: Millis(600)}),
				at(Millis(120), faults.Fault{Kind: faults.NetDelay, From: "source-1", To: "sum-0", Delay: Millis(30), Window: Millis(600)}),
				at(Millis(800), faults.Fault{Kind: faults.NetClog, From: "source-0", To: "sum-0", Window: Millis(60)}),
			},
			Expect: expectPass,
			Seeds:  seeds(1, 10),
		},
	}, rareScenarios()...)
}

// srcSumOut is the explicit job several regimes shape by hand: sources hashed into keyed
// sums, which write to sinks through toOut, each stage with its own parallelism so that one
// host can hold a source alone, or a sink can gather every sum.
func srcSumOut(src, sum, out int, toOut string) Topology {
	return Topology{Kind: TopologyExplicit,
		Nodes: []Node{
			{Name: "src", Kind: NodeSource, Parallelism: src},
			{Name: "sum", Kind: NodeSum, Parallelism: sum},
			{Name: "out", Kind: NodeSink, Parallelism: out},
		},
		Links: []Link{
			{From: "src", To: "sum", Partition: PartitionHash},
			{From: "sum", To: "out", Partition: toOut},
		},
	}
}
