package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/trace"
)

// stopAt is when the lifecycle scenarios stop their job, a third of the way into its input.
var stopAt = Millis(300)

// stopScenario is the job the stop-with-savepoint scenarios stop: a keyed shuffle of
// three, checkpointed every 30ms with two in flight, whose input lasts 1.2s.
func stopScenario(name, description, sink string, extra ...faults.Entry) *Scenario {
	return &Scenario{
		Name:        name,
		Description: description,
		Mode:        ModeAligned,
		Topology:    Topology{Kind: TopologyKeyedShuffle, Parallelism: 3},
		Workload:    Workload{Kind: WorkloadKeyedSum, Records: 600, Keys: 30, RecordInterval: Millis(2)},
		Sink:        &Sink{Kind: sink},
		Checkpoint:  Checkpoint{Interval: Millis(30), MaxConcurrent: 2, Timeout: Millis(500)},
		Faults:      append([]faults.Entry{at(stopAt, faults.Fault{Kind: faults.StopWithSavepoint})}, extra...),
		Expect:      expectPass,
		Seeds:       seeds(1, 10),
	}
}

// drained turns a stop scenario into one that stops with drain.
func drained(s *Scenario) *Scenario {
	s.Faults[0].Fault.Kind = faults.StopWithSavepointDrain
	return s
}

// lifecycleScenarios are the positive scenarios of a job's lifecycle: stop-with-savepoint,
// with and without drain, that ends the job, that fails and leaves it running, and that a
// crash interrupts once it completed.
func lifecycleScenarios() []*Scenario {
	slow := at(stopAt-Millis(20), faults.Fault{Kind: faults.StorageSlow, Store: StoreState, Delay: Millis(40), Window: Millis(100)})
	// The barriers of the checkpoints just before the stop are lost on one link: those
	// checkpoints abort, and their notices reach the tasks while the stop is pending.
	lost := at(stopAt-Millis(40), faults.Fault{Kind: faults.NetDrop, Message: faults.MessageBarrier, From: "source-0", To: "sum-1", Probability: 1, Window: Millis(40)})
	return []*Scenario{
		stopScenario("stop-with-savepoint",
			"A user stops the job with a savepoint a third of the way into its input, while uploads "+
				"are slow, so that periodic checkpoints fall due while it is pending: none may start. The "+
				"checkpoints just before it lose a barrier and abort while it is pending. Once it "+
				"completes the two-phase-commit sinks commit up to it, every task exits and the job "+
				"ends; its output is the input's up to where each source stopped.",
			SinkTwoPhaseCommit, slow, lost),
		stopScenario("stop-with-savepoint-upsert",
			"Stop-with-savepoint of a job whose idempotent sinks write at once: a record a source "+
				"emitted after its snapshot for the stop would be visible at once, past the cut.",
			SinkIdempotent),
		stopScenario("stop-with-savepoint-fails",
			"Stop-with-savepoint while the state store refuses every write: the savepoint aborts, "+
				"the sources go on and the job runs on to the end of its input.",
			SinkTwoPhaseCommit,
			at(stopAt-Millis(10), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Probability: 1, Window: Millis(60)})),
		stopScenario("stop-with-savepoint-crash",
			"Stop-with-savepoint whose completion a sink crashes on before it exits: the job restarts "+
				"from the savepoint, whose transactions some sinks already committed, and runs on to "+
				"the end of its input without writing them twice.",
			SinkTwoPhaseCommit,
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindNotifyComplete, Task: "sink-1"}, Nth: 1, After: stopAt},
				Fault: faults.Fault{Kind: faults.CrashTask, Task: "sink-1"}}),
		drained(stopScenario("stop-with-savepoint-drain",
			"Stop-with-savepoint with drain a third of the way into the input: each source ends its "+
				"input as the trigger reaches it, every task finishes, the savepoint holds their final "+
				"snapshots, the sinks commit up to it and the job ends; its output is the input's up "+
				"to where each source stopped.",
			SinkTwoPhaseCommit, slow)),
		drained(stopScenario("stop-with-savepoint-drain-fails",
			"Stop-with-savepoint with drain while the state store refuses every write: the "+
				"savepoint aborts after its sources ended their input, so the job fails over to its "+
				"latest checkpoint and runs on to the end of its input.",
			SinkTwoPhaseCommit,
			at(stopAt-Millis(10), faults.Fault{Kind: faults.StorageFail, Store: StoreState, Probability: 1, Window: Millis(60)}))),
		drained(stopScenario("stop-with-savepoint-drain-crash",
			"Stop-with-savepoint with drain whose completion a sink crashes on before it exits: the "+
				"job restarts from the savepoint, whose snapshots are all final, so it ends at once, "+
				"still ended by the drain, its output the input's up to where each source stopped.",
			SinkTwoPhaseCommit,
			faults.Entry{Trigger: faults.Trigger{Type: faults.OnNth, Match: faults.Match{Kind: trace.KindNotifyComplete, Task: "sink-1"}, Nth: 1, After: stopAt},
				Fault: faults.Fault{Kind: faults.CrashTask, Task: "sink-1"}})),
	}
}
