package engine

import (
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// deadlineTimer keeps one timer at a protocol's next deadline (a coordinator's checkpoint
// timeouts, a task's alignment timeout). The protocol is asked for its deadline after every
// step, and it rarely changes: arming the timer for the deadline it already holds keeps the
// timer instead of making a new one.
type deadlineTimer struct {
	timer Timer // nil when no timer is pending
	at    protocol.Time
}

// arm sets the timer to call fire at at, replacing a timer set for another time;
// protocol.NoDeadline leaves no timer.
func (d *deadlineTimer) arm(proc Proc, now, at protocol.Time, fire func()) {
	if at == d.at && d.timer != nil {
		return
	}
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.at = at
	if at == protocol.NoDeadline {
		return
	}
	d.timer = proc.After(max(time.Duration(at-now), 0), func() {
		d.timer = nil
		d.at = 0
		fire()
	})
}
