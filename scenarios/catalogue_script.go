package scenarios

import (
	"github.com/ckptsim/ckptsim/faults"

	"github.com/ckptsim/ckptsim/checker"
)

// The scripted Chandy-Lamport exercise of the catalogue, and its negative control.

// classicRing is the exercise's graph: three processes on a ring, p-0 -> p-1 -> p-2 -> p-0.
var classicRing = Topology{Kind: TopologyCycle, Processes: 3}

// classicScript is the classic exercise on classicRing, 100 tokens each. For 30ms tokens go
// round the ring, a few every millisecond, so that some are always in flight; p-1 first owes
// p-2 150 tokens, more than it holds, and waits for the ring to bring it enough, its small
// sends queued behind. A snapshot starts at p-0 while tokens from p-2 are on their way to it,
// and another at p-1 a millisecond later, so the two are in flight together and each
// records tokens in flight on the channel into its initiator. Then p-2 crashes; when it
// restarts, every process rolls back to the latest completed snapshot and makes again the
// sends that came after it. A last snapshot starts at p-2 after the recovery. Final
// balances: p-0 130, p-1 10, p-2 160.
func classicScript() []Step {
	steps := []Step{send("p-1", "p-2", 150)}
	steps = append(steps, roundTheRing(30, func(ms int) []Step {
		switch ms {
		case 5:
			return []Step{{Op: StepSnapshot, Process: "p-0"}}
		case 6:
			return []Step{{Op: StepSnapshot, Process: "p-1"}}
		}
		return nil
	})...)
	return append(steps,
		advance(20),
		Step{Op: StepCrash, Process: "p-2"},
		advance(30),
		Step{Op: StepRestart, Process: "p-2"},
		advance(100),
		Step{Op: StepSnapshot, Process: "p-2"},
		advance(50))
}

// roundTheRing sends tokens round classicRing for the given milliseconds: each millisecond
// p-0 passes 3 to p-1, p-1 passes 1 to p-2 and p-2 passes 4 to p-0, then the steps extra
// returns for that millisecond happen.
func roundTheRing(ms int, extra func(ms int) []Step) []Step {
	var steps []Step
	for i := range ms {
		steps = append(steps, send("p-0", "p-1", 3), send("p-1", "p-2", 1), send("p-2", "p-0", 4))
		steps = append(steps, extra(i)...)
		steps = append(steps, advance(1))
	}
	return steps
}

func send(from, to string, tokens int64) Step {
	return Step{Op: StepSend, From: from, To: to, Tokens: tokens}
}

func advance(ms int64) Step { return Step{Op: StepAdvance, By: Millis(ms)} }

// classicExercise is the positive scenario.
func classicExercise() *Scenario {
	return &Scenario{
		Name: "chandy-lamport-classic",
		Description: "The classic exercise, scripted: tokens go round a ring of three processes, one " +
			"process waits for tokens it owes, two snapshots started at different processes are in " +
			"flight together and record tokens in flight, a process crashes and restarts, and the " +
			"job rolls back to the latest global snapshot; every global snapshot must conserve the 300 tokens.",
		Mode:       ModeChandyLamport,
		Topology:   classicRing,
		Workload:   Workload{Kind: WorkloadTokens, InitialTokens: TokenCount(100)},
		Checkpoint: Checkpoint{MaxConcurrent: 2},
		Script:     classicScript(),
		Expect:     expectPass,
		Seeds:      seeds(1, 20),
	}
}

// classicReordered sends tokens round classicRing for 60ms, with a snapshot every 6ms
// started by each process in turn, on channels that reorder what they carry (out of model:
// the algorithm needs FIFO channels). Markers pass tokens sent before them and are passed by
// tokens sent after them, so global snapshots count tokens twice or miss them. (Snapshots of
// one initiator are 18ms apart, more than the reorder window, so that their markers do not
// pass each other: a process takes that for a duplicate marker and fails, which only
// restarts the run.)
func classicReordered() *Scenario {
	steps := roundTheRing(60, func(ms int) []Step {
		if ms%6 != 3 {
			return nil
		}
		return []Step{{Op: StepSnapshot, Process: Process(ms / 6 % 3)}}
	})
	s := classicExercise()
	s.Name = "control-chandy-lamport-reorder"
	s.Description = "Tokens go round a ring of three processes, as in chandy-lamport-classic, on channels " +
		"that reorder tokens and markers (out of model) while a snapshot starts every 6ms: a global " +
		"snapshot counts some tokens twice or misses them."
	s.Workload.InitialTokens = TokenCount(200)
	s.Script = append(steps, advance(50))
	for _, l := range []faults.Link{{From: "p-0", To: "p-1"}, {From: "p-1", To: "p-2"}, {From: "p-2", To: "p-0"}} {
		s.Faults = append(s.Faults, at(0, faults.Fault{Kind: faults.DataReorder, From: l.From, To: l.To, Window: Millis(70)}))
	}
	s.Expect = expectFail(checker.PropConsistentCut)
	return s
}
