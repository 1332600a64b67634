package engine

import "github.com/ckptsim/ckptsim/trace"

// coordinatorProcess is a coordinator incarnation of either kind: the protocol coordinator
// of a barrier job or a JobKind's coordinator (kindCoordinator; engine/tokens' for a token
// job). The Runtime, standing
// for the cluster manager, starts, crashes and informs whichever the job has through it.
type coordinatorProcess interface {
	Process
	incarnation() *coordinatorIncarnation
	// begin starts the incarnation: the first one of a job deploys it fresh, a later one
	// recovers from storage and restarts the job.
	begin(first bool)
	// taskFailed is the failure detector's report that a task of attempt died.
	taskFailed(attempt int)
	// taskRunning is a task of attempt reporting that it has restored and runs.
	taskRunning(attempt int)
	// jobDone says every task of the finished job has exited.
	jobDone()
}

// coordinatorIncarnation is what both coordinators keep of their incarnation: the process
// handle, and whether it is dead (crashed, killed, or replaced by a newer incarnation),
// after which leftover callbacks must neither trace nor act.
type coordinatorIncarnation struct {
	rt   *Runtime
	proc Proc
	dead bool
}

func (c *coordinatorIncarnation) incarnation() *coordinatorIncarnation { return c }

// running reports whether the incarnation is the live one.
func (c *coordinatorIncarnation) running() bool { return !c.dead && c.proc.Alive() }

// trace emits an event of the coordinator unless the incarnation is dead: an event from a
// crashed incarnation's leftover code would contradict the crash. The event is the
// coordinator's own unless it names a task (snapshot.carried: the coordinator says which
// task's snapshot a checkpoint holds).
func (c *coordinatorIncarnation) trace(e trace.Event) {
	if c.running() {
		if e.Task == "" {
			e.Task = coordinatorName
		}
		c.rt.emit(e)
	}
}

// Crashed implements Process.
func (c *coordinatorIncarnation) Crashed() {
	if c.dead {
		return
	}
	c.dead = true
	c.rt.emit(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coordinatorName})
}
