package scenarios

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/checker"
)

// PropertyTimeAdvances is the harness's judgement of a run whose virtual time stood still:
// sim.Config.MaxInstantEvents events fired at one instant (100,000 by default, where the
// catalogue and generated seeds 1-12,000, counted once, fired at most 4,271). A correct
// job moves the clock long before; one that does not is looping without progress, say a
// timer re-armed at its own deadline because the tick it was armed for did nothing, or two
// parties that answer each other at once. Left as a limit, such a run would name no rule and hide the
// loop behind "the run was too long". Like quiet, it is judged by the simulation, not by
// package checker: the loop's events are mostly timers and messages, which leave no trace
// event. No scenario names or expects it, and a run that never stalls does not list it.
const PropertyTimeAdvances checker.Property = "time-advances"

// stalled is the violation of a run that stopped at sim.StopLimitInstant, pinned to the
// last event of its trace.
func (r *simRun) stalled() checker.Violation {
	k := r.job.Kernel
	v := checker.Violation{
		Property: PropertyTimeAdvances,
		T:        int64(k.Now()),
		Message: fmt.Sprintf("virtual time stood still at %v: %d events fired at that instant without the clock moving (a loop, not work)",
			time.Duration(k.Now()), k.InstantEvents()),
	}
	if events := r.rec.Events(); len(events) > 0 {
		last := events[len(events)-1]
		v.Seq, v.Task = last.Seq, last.Task
		v.Message += fmt.Sprintf("; the last traced event is %s of %s at seq %d", last.Kind, last.Task, last.Seq)
	}
	return v
}
