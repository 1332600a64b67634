package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// splitScenario is the job the split-source scenarios run: a keyed shuffle of three whose
// sources leave their nine splits to the coordinator's split enumerator, checkpointed every
// 30ms with two in flight.
func splitScenario(name, description string, extra ...faults.Entry) *Scenario {
	return &Scenario{
		Name:        name,
		Description: description,
		Mode:        ModeAligned,
		Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
		Workload:    Workload{Kind: WorkloadKeyedSum, Records: 150, Keys: 30, RecordInterval: Millis(2), Splits: 9},
		Sink:        &Sink{Kind: SinkTwoPhaseCommit},
		Checkpoint:  Checkpoint{Interval: Millis(30), MaxConcurrent: 2, Timeout: Millis(500)},
		Faults:      extra,
		Expect:      expectPass,
		Seeds:       seeds(1, 10),
	}
}

// splitScenarios are the positive scenarios of split sources: a reader that fails between
// taking a split and the checkpoint that holds it, a coordinator that fails as it hands
// one out, and split messages lost on the way.
func splitScenarios() []*Scenario {
	return []*Scenario{
		splitScenario("split-source",
			"Sources whose nine splits the coordinator's split enumerator hands to three readers as "+
				"each asks. A reader crashes just after taking its second split, before a checkpoint "+
				"holds it: the restore gives the enumerator back the splits it gave out after the "+
				"checkpoint, and every split is read exactly once.",
			onNth(2, trace.KindSplitAdd, "source-1", faults.Fault{Kind: faults.CrashTask, Task: "source-1"})),
		splitScenario("split-source-coordinator-crash",
			"Split sources whose coordinator crashes as it sends the seventh split: the recovered "+
				"coordinator's enumerator starts from the state in the latest checkpoint, and the job "+
				"restarts from it.",
			onNth(7, trace.KindSplitAssign, "", faults.Fault{Kind: faults.CrashCoordinator})),
		splitScenario("split-source-partitioned",
			"Split sources while the coordinator cannot reach one reader for 80ms as the splits are "+
				"handed out: its requests and the assignments are lost, the reader asks again and the "+
				"enumerator sends again what the reader has not received, and checkpoints triggered "+
				"meanwhile never count a split twice or lose one.",
			at(Millis(5), faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "source-2", Window: Millis(80)})),
	}
}
