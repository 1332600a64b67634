package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// rescaleScenario is the job the rescale scenarios rescale: a keyed shuffle of three over
// 128 key groups whose sources read six partitions, started 90ms apart so that their
// offsets differ, two-phase-commit sinks, checkpointed every 30ms, with input for 600ms.
func rescaleScenario(name, description string, schedule ...faults.Entry) *Scenario {
	return &Scenario{
		Name:        name,
		Description: description,
		Mode:        ModeAligned,
		Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 3, MaxParallelism: 128},
		Workload:    Workload{Kind: WorkloadKeyedSum, Records: 300, Keys: 30, RecordInterval: Millis(2), Stagger: Millis(90), Partitions: 6},
		Sink:        &Sink{Kind: SinkTwoPhaseCommit},
		Checkpoint:  Checkpoint{Interval: Millis(30), MaxConcurrent: 2, Timeout: Millis(500)},
		Faults:      schedule,
		Expect:      expectPass,
		Seeds:       seeds(1, 10),
	}
}

// rescale is the operator action that gives op parallelism p.
func rescale(op string, p int) faults.Fault {
	return faults.Fault{Kind: faults.Rescale, Operator: op, Parallelism: p}
}

// noClaim makes rescale f restore in mode no-claim: the checkpoint stays the user's.
func noClaim(f faults.Fault) faults.Fault {
	f.RestoreMode = "no-claim"
	return f
}

// rescaleScenarios rescale a job up and down, alone and with a crash on the way.
func rescaleScenarios() []*Scenario {
	return []*Scenario{
		rescaleScenario("rescale",
			"A user rescales the keyed sum (and the sinks forward edges tie to it) from three "+
				"tasks to five, then the sources of six partitions to two, then the sum to two as "+
				"a checkpoint completes, before its sinks commit: each time the job restarts from "+
				"its latest checkpoint with every key's sum in the task that owns its key group "+
				"now, every partition at its offset, and the transactions of sinks that are gone "+
				"committed by the sinks that adopt them.",
			at(Millis(150), rescale("sum", 5)),
			at(Millis(300), rescale("source", 2)),
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}, Nth: 2, After: Millis(450)},
				Fault: rescale("sum", 2)}),
		rescaleScenario("rescale-coordinator-crash",
			"The coordinator of the job rescaled down to two crashes as the first new task "+
				"restores: the next one restores the same checkpoint of the earlier parallelism "+
				"again, and the sinks adopt the gone ones' transactions a second time.",
			at(Millis(300), rescale("sum", 2)),
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindTaskRestore, Task: "sink-0"}, Nth: 2},
				Fault: faults.Fault{Kind: faults.CrashCoordinator}}),
		sparseKeys(rescaleScenario("rescale-sparse-keys",
			"The keyed sum, incrementally snapshotted, holds two keys per partition, twelve in "+
				"all over 128 key groups, when it is rescaled to five tasks, fails over once the "+
				"new job checkpointed, and is rescaled back to two in restore mode no-claim: most "+
				"new tasks own groups none of the earlier snapshots held a key of, and start with "+
				"no state, neither failing their restore nor uploading an empty piece that a later "+
				"restore cannot read, and the job rescaled without claiming the checkpoint builds "+
				"on none of its pieces.",
			at(Millis(150), rescale("sum", 5)),
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}, Nth: 2, After: Millis(300)},
				Fault: faults.Fault{Kind: faults.CrashTask, Task: "sum-4"}},
			at(Millis(500), noClaim(rescale("sum", 2))))),
		unaligned(rescaleScenario("rescale-unaligned",
			"The job takes unaligned checkpoints while slow links (from a source to a sum, from "+
				"a sum to its sink) back records up at both their ends, and is rescaled from three sums to five and back to "+
				"two: the records each checkpoint holds in flight reach the new tasks that now own "+
				"their keys or were on their way to them, each exactly once, though no channel of "+
				"the earlier job exists any more.",
			at(Millis(100), faults.Fault{Kind: faults.NetDelay, From: "source-0", To: "sum-1", Delay: Millis(20), Window: Millis(400)}),
			at(Millis(100), faults.Fault{Kind: faults.NetDelay, From: "sum-2", To: "sink-2", Delay: Millis(20), Window: Millis(400)}),
			at(Millis(150), rescale("sum", 5)),
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindCheckpointComplete, Task: faults.Coordinator}, Nth: 2, After: Millis(300)},
				Fault: rescale("sum", 2)})),
		rescaleScenario("rescale-sink-crash",
			"A sink of the job rescaled up to four crashes on the new job's first completed "+
				"checkpoint: the job fails over to that checkpoint, of its own parallelism now.",
			at(Millis(300), rescale("sum", 4)),
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindNotifyComplete, Task: "sink-3"}, Nth: 1},
				Fault: faults.Fault{Kind: faults.CrashTask, Task: "sink-3"}}),
	}
}

// unaligned makes s's checkpoints unaligned, one at a time, its sources twice as fast and
// its sinks idempotent, which keep no state: a rescaled sink takes nothing from the earlier
// snapshots but the records in flight to it.
func unaligned(s *Scenario) *Scenario {
	s.Mode = ModeUnaligned
	s.Sink = &Sink{Kind: SinkIdempotent}
	s.Checkpoint.MaxConcurrent = 1 // unaligned checkpoints run one at a time
	s.Workload.RecordInterval = Millis(1)
	return s
}

// sparseKeys gives s's sources two keys per partition and incremental snapshots.
func sparseKeys(s *Scenario) *Scenario {
	s.Workload.Keys = 2
	s.Checkpoint.Incremental = true
	return s
}
