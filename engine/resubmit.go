package engine

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// A resubmission stops the job, its retained checkpoints kept, and submits it again from
// the latest completed one, as a user restarts a Flink job from a retained checkpoint
// (Resubmit). The new job's coordinator sees the restored checkpoint and its own ones
// only: the earlier job's other checkpoints stay the user's. What it was restored from
// and how (protocol.Restored) belongs to the job, as Flink keeps it with the job graph:
// every later incarnation of the coordinator gets it too.

// resubmission is the job's restore settings.
type resubmission struct {
	restored protocol.Restored
	// below: the earlier job's ids are at or below it (the highest id the new job's first
	// coordinator read, counter or stored checkpoint), 0 until that coordinator read it.
	below protocol.CheckpointID
	// next is a rescaled job's plan until the failover puts it in place (adoptPlan).
	next *jobPlan
}

// Resubmit stops the job and submits it again from the latest completed checkpoint, in
// restore mode mode. Like CrashCoordinator it leaves the start of the new coordinator to
// whoever plays the cluster manager (StartCoordinator). It refuses when no coordinator
// runs or none knows a completed checkpoint to restore from.
func (rt *Runtime) Resubmit(mode protocol.RestoreMode) error {
	if rt.kind != nil {
		return fmt.Errorf("engine: a %s job is not resubmitted", rt.kindName())
	}
	from, err := rt.resubmittable()
	if err != nil {
		return err
	}
	// A checkpoint the job was rescaled from is still the earlier job's (a savepoint since
	// then leaves it the latest): restoring it again redistributes its state again.
	earlier := rt.resubmit.restored
	rescaled := earlier.Rescaled && earlier.From == protocol.CheckpointID(from)
	restored := protocol.Restored{From: protocol.CheckpointID(from), Mode: mode, Rescaled: rescaled}
	rt.resubmitFrom(restored, nil, trace.JobResubmit(from, mode.String()))
	return nil
}

// resubmittable returns the checkpoint a resubmission restores, or why there is none: a
// finished job is over, and is not submitted again.
func (rt *Runtime) resubmittable() (uint64, error) {
	from := rt.LatestCheckpoint()
	if !rt.CoordinatorRunning() || from == 0 || rt.finished {
		return 0, fmt.Errorf("engine: no running job with a completed checkpoint to resubmit")
	}
	return from, nil
}

// resubmitFrom stops the job to submit it again from restored, with plan next (nil: the
// job's own), tracing ev.
func (rt *Runtime) resubmitFrom(restored protocol.Restored, next *jobPlan, ev trace.Event) {
	rt.resubmit = resubmission{restored: restored, next: next}
	rt.emit(ev)
	c := rt.currentCoordinator().incarnation()
	c.proc.Kill()
	c.dead = true
	rt.emit(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coordinatorName})
}

// ownView narrows what a coordinator read from the store to what is the job's after a
// resubmission: the restored checkpoint and the job's own, with the restore settings.
func (rt *Runtime) ownView(d *protocol.Durable) {
	r := &rt.resubmit
	if r.restored.Mode == 0 {
		return
	}
	if r.below == 0 {
		r.below = d.HighestID
		for _, cc := range d.Completed {
			r.below = max(r.below, cc.ID) // a lost counter write leaves ids above the counter
		}
	}
	d.Completed = slices.DeleteFunc(d.Completed, func(cc protocol.CompletedCheckpoint) bool {
		return cc.ID != r.restored.From && cc.ID <= r.below
	})
	d.Restored = r.restored
}

// unclaimed reports whether a task restoring from checkpoint cp may not build on its
// pieces: the job was resubmitted from it without claiming it (no-claim).
func (rt *Runtime) unclaimed(cp protocol.CheckpointID) bool {
	r := rt.resubmit.restored
	return r.Mode == protocol.RestoreNoClaim && cp <= r.From
}
