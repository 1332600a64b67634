package checker

import "github.com/ckptsim/ckptsim/trace"

// A rescaled job restores in rounds: the task.restore events with rescaled-from after one
// job.failover, until every task the rescale listed has restored. The rules on what a
// rescale redistributes (key groups, channel state) judge whole rounds only: a round that a
// crash or another failover cuts short leaves its work to the next.

// restoreRound is the rescaled restores after one failover.
type restoreRound struct {
	cp       uint64
	restores []int // indices of its task.restore events with rescaled-from
	seen     map[string]bool
}

// rescaledRounds returns the trace's whole rounds of rescaled restores, in order.
func rescaledRounds(ix *traceIndex) []*restoreRound {
	var rounds []*restoreRound
	var jobTasks map[string]bool
	var round *restoreRound
	for i := range ix.only(kindsOf(trace.KindJobResubmit, trace.KindJobFailover, trace.KindTaskRestore)) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindJobResubmit:
			if tasks, ok := rescaleTasks(e); ok {
				jobTasks = tasks
			}
		case trace.KindJobFailover:
			round = &restoreRound{cp: e.CP, seen: map[string]bool{}}
		case trace.KindTaskRestore:
			if _, ok := rescaledFrom(e); !ok || round == nil || e.CP != round.cp {
				continue
			}
			round.restores = append(round.restores, i)
			round.seen[e.Task] = true
			if len(jobTasks) > 0 && len(round.seen) == len(jobTasks) {
				rounds = append(rounds, round)
				round = nil
			}
		}
	}
	return rounds
}
