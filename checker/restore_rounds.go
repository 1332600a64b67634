package checker

import "github.com/ckptsim/ckptsim/trace"

// A rescaled job restores in rounds: the task.restore events with rescaled-from after one
// job.failover, until every task the rescale listed has restored. The rules on what a
// rescale redistributes (key groups, channel state, union state) judge whole rounds only:
// a round that a crash, another failover or a resubmission cuts short, or in which a task
// restores twice or a task the rescale did not list restores, leaves its work to the next.

// restoreRound is the rescaled restores after one failover.
type restoreRound struct {
	cp       uint64
	restores []int // indices of its task.restore events with rescaled-from
	seen     map[string]bool
}

// rescaledRounds returns the trace's whole rounds of rescaled restores, in order, and how
// many rescaled restores are in none.
func rescaledRounds(ix *traceIndex) (rounds []*restoreRound, loose int) {
	var jobTasks map[string]bool
	var round *restoreRound
	cut := func() {
		if round != nil {
			loose += len(round.restores)
		}
		round = nil
	}
	for i := range ix.only(kindsOf(trace.KindJobResubmit, trace.KindJobFailover, trace.KindTaskRestore)) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindJobResubmit:
			if tasks, ok := rescaleTasks(e); ok {
				jobTasks = tasks
			}
			cut() // the job stopped: the tasks still restoring are the stopped job's
		case trace.KindJobFailover:
			cut()
			round = &restoreRound{cp: e.CP, seen: map[string]bool{}}
		case trace.KindTaskRestore:
			if _, ok := rescaledFrom(e); !ok {
				continue
			}
			if round == nil || e.CP != round.cp || round.seen[e.Task] || !jobTasks[e.Task] {
				cut()
				loose++
				continue
			}
			round.restores = append(round.restores, i)
			round.seen[e.Task] = true
			if len(round.seen) == len(jobTasks) {
				rounds = append(rounds, round)
				round = nil
			}
		}
	}
	cut()
	return rounds, loose
}
