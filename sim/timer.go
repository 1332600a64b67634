package sim

import (
	"fmt"
	"time"
)

// Timer calls a function at a virtual instant. A timer is created once and armed, re-armed
// (Reset) and disarmed (Stop) as often as needed without allocating. A disarmed timer never
// fires; the queue drops its old entry when that entry comes due (see queue).
//
// A host timer (Host.NewTimer) belongs to the incarnation that created it: it is disarmed
// when the host crashes, never fires while the host is down, is deferred while the host is
// paused, and has its durations skewed by the host's timer skew. After the host restarts, the
// old incarnation's timers stay inert: Reset on them does nothing. A kernel timer
// (Kernel.NewTimer) belongs to the harness and fires whatever the hosts do.
type Timer struct {
	slot        slot
	k           *Kernel
	host        *Host // nil for a kernel timer
	incarnation uint64
}

// NewTimer returns a disarmed kernel timer that calls fire when it goes off.
func (k *Kernel) NewTimer(fire func()) *Timer {
	return k.newTimer(nil, fire)
}

// At arms a new kernel timer to call fire at instant t.
func (k *Kernel) At(t Time, fire func()) *Timer {
	timer := k.NewTimer(fire)
	timer.ResetAt(t)
	return timer
}

// After arms a new kernel timer to call fire d from now.
func (k *Kernel) After(d time.Duration, fire func()) *Timer {
	timer := k.NewTimer(fire)
	timer.Reset(d)
	return timer
}

func (k *Kernel) newTimer(h *Host, fire func()) *Timer {
	if fire == nil {
		panic("sim: timer with nil function")
	}
	t := &Timer{k: k, host: h, slot: slot{handle: -1, owner: h, run: fire}}
	if h != nil {
		t.incarnation = h.incarnation
	}
	return t
}

// Reset arms the timer to fire d from now (skewed, for a host timer), replacing any earlier
// deadline. It reports whether the timer was armed before. On a timer of a host incarnation
// that is no longer running it does nothing and returns false.
func (t *Timer) Reset(d time.Duration) bool {
	if d < 0 {
		panic(fmt.Sprintf("sim: timer reset with negative duration %v", d))
	}
	if t.host != nil {
		d = t.host.skewed(d)
	}
	return t.ResetAt(t.k.now.Add(d))
}

// ResetAt arms the timer to fire at instant at, which must not be in the past. Skew does not
// apply: an absolute deadline is the harness's, not the host's. Returns as Reset.
func (t *Timer) ResetAt(at Time) bool {
	if !t.live() {
		return false
	}
	armed := t.slot.queued()
	t.k.schedule(&t.slot, at)
	return armed
}

// Stop disarms the timer and reports whether it was armed.
func (t *Timer) Stop() bool { return t.k.unschedule(&t.slot) }

// Armed reports whether the timer is waiting to fire.
func (t *Timer) Armed() bool { return t.slot.queued() }

// Deadline returns when an armed timer fires (later, if its host is paused then), and false
// if it is not armed.
func (t *Timer) Deadline() (Time, bool) {
	if !t.slot.queued() {
		return 0, false
	}
	return t.k.queue.at(&t.slot), true
}

// live reports whether the timer may still be armed: kernel timers always, host timers only
// while the incarnation that made them is up.
func (t *Timer) live() bool {
	return t.host == nil || (t.host.up && t.host.incarnation == t.incarnation)
}
