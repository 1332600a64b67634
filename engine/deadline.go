package engine

import (
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// deadlineOwner is what a deadlineTimer calls when the deadline it holds passes: the
// coordinator or task that steps the protocol whose deadline it is. An owner is passed as
// itself (a pointer in an interface costs nothing), where a closure made for every arm would
// cost an allocation per protocol step.
type deadlineOwner interface {
	deadlinePassed()
}

// deadlineTimer keeps one timer at a protocol's next deadline (a coordinator's checkpoint
// timeouts, a task's alignment timeout). The protocol is asked for its deadline after every
// step, and it rarely changes: arming the timer for the deadline it already holds keeps the
// timer instead of re-arming it. The timer is made once per process incarnation and then
// re-armed, so a new deadline costs no allocation either.
type deadlineTimer struct {
	// timer is made by the first set that schedules a call, for proc; it is nil before.
	// Stopping it when nothing is pending does nothing.
	timer Timer
	proc  Proc
	// pending: a call is scheduled for at (or was asked for while the incarnation was
	// dead, which then never comes, as with Proc.After).
	pending bool
	at      protocol.Time
	// owner is called when the timer goes off: the owner of the latest scheduled call.
	owner deadlineOwner
}

// set schedules owner.deadlinePassed at at, replacing a call scheduled for another time;
// protocol.NoDeadline leaves none. A call scheduled for at already is kept.
//
// The calls it makes on proc are those that Proc.After would make (a dead incarnation
// schedules nothing, a live one one timer event per new deadline), so that replacing After
// by a re-armed timer changes no event of a run.
func (d *deadlineTimer) set(proc Proc, now, at protocol.Time, owner deadlineOwner) {
	if at == d.at && d.pending {
		return
	}
	if d.pending && d.timer != nil {
		d.timer.Stop()
	}
	d.pending = false
	d.at = at
	if at == protocol.NoDeadline {
		return
	}
	d.pending = true
	d.owner = owner
	if !proc.Alive() {
		return
	}
	if d.timer == nil || d.proc != proc {
		d.timer = proc.NewTimer(d.fire)
		d.proc = proc
	}
	d.timer.Reset(max(time.Duration(at-now), 0))
}

// fire is the timer's function: the deadline passed, and no call is pending any more.
func (d *deadlineTimer) fire() {
	d.pending = false
	d.at = 0
	d.owner.deadlinePassed()
}
