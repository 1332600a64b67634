package sim

import (
	"fmt"
	"time"
)

// StopReason says why a run returned. Limit reasons are a verdict of their own: a run that
// hits one neither finished nor hung, and once a limit is hit the kernel stays stopped.
type StopReason uint8

const (
	// StopIdle: nothing is queued any more; the simulated world is quiescent.
	StopIdle StopReason = iota + 1
	// StopReached: RunUntil got to its target time with events still queued after it.
	StopReached
	// StopStopped: Stop was called, from an event or by the caller.
	StopStopped
	// StopLimitTime: the next event is due after Config.MaxTime.
	StopLimitTime
	// StopLimitEvents: Config.MaxEvents events have fired.
	StopLimitEvents
	// StopLimitPending: more than Config.MaxPending events were queued at once.
	StopLimitPending
	// StopLimitInstant: Config.MaxInstantEvents events have fired at one instant, and
	// virtual time stood still.
	StopLimitInstant
)

// IsLimit reports whether r is one of the limit verdicts.
func (r StopReason) IsLimit() bool {
	return r == StopLimitTime || r == StopLimitEvents || r == StopLimitPending || r == StopLimitInstant
}

func (r StopReason) String() string {
	switch r {
	case StopIdle:
		return "idle"
	case StopReached:
		return "reached"
	case StopStopped:
		return "stopped"
	case StopLimitTime:
		return "limit(time)"
	case StopLimitEvents:
		return "limit(events)"
	case StopLimitPending:
		return "limit(pending)"
	case StopLimitInstant:
		return "limit(instant)"
	}
	return fmt.Sprintf("StopReason(%d)", uint8(r))
}

// Stop asks the current run to return StopStopped once the event being fired is done. Called
// outside a run it has no effect: the next run starts afresh. A harness stops on a predicate
// by checking it in an observer or an event and calling Stop.
func (k *Kernel) Stop() { k.stop = true }

// Run fires events until none is left (StopIdle), Stop is called, or a limit is hit. The
// clock stays at the last fired event.
func (k *Kernel) Run() StopReason { return k.run(Never, false) }

// RunUntil fires every event due at or before t, then moves the clock to t, so that a harness
// can run a fault phase, change the world, and run the next phase from a known instant. It
// returns StopReached (events remain after t), StopIdle (nothing is queued; the clock is
// still moved to t), StopStopped, or a limit. t is clamped to Config.MaxTime.
func (k *Kernel) RunUntil(t Time) StopReason {
	if t < k.now {
		panic(fmt.Sprintf("sim: RunUntil(%v) is before now %v", t, k.now))
	}
	return k.run(t, true)
}

// RunFor is RunUntil(Now()+d).
func (k *Kernel) RunFor(d time.Duration) StopReason { return k.RunUntil(k.now.Add(d)) }

func (k *Kernel) run(target Time, advance bool) StopReason {
	if k.running {
		panic("sim: Run called from inside an event")
	}
	if k.limit != 0 {
		return k.limit
	}
	k.running = true
	defer func() { k.running = false }()
	k.stop = false
	horizon := min(target, k.config.MaxTime)
	for {
		if k.stop {
			return StopStopped
		}
		if k.queue.len() == 0 {
			if advance {
				k.now = horizon
			}
			return StopIdle
		}
		next, from := k.queue.peek()
		if next.at > horizon {
			k.now = horizon
			if horizon == k.config.MaxTime {
				// The run may go no further, and something is still due.
				k.limit = StopLimitTime
				return k.limit
			}
			return StopReached
		}
		if k.fired >= k.config.MaxEvents {
			k.limit = StopLimitEvents
			return k.limit
		}
		if next.at == k.instantAt && k.instantFired >= k.config.MaxInstantEvents {
			k.limit = StopLimitInstant
			return k.limit
		}
		k.fire(k.queue.openHole(next, from))
		k.queue.closeHole()
		if k.queue.len() > k.config.MaxPending {
			k.limit = StopLimitPending
			return k.limit
		}
	}
}

// fire runs one popped entry. An entry owned by a paused host is not an event yet: it moves
// to the instant the pause ends, behind everything already due then.
func (k *Kernel) fire(e entry, s *slot) {
	if !k.last.before(e) {
		panic(fmt.Sprintf("sim: queue order broken: (%v,%d) fired after (%v,%d)", e.at, e.seq, k.last.at, k.last.seq))
	}
	k.last = e
	k.now = e.at
	if h := s.owner; h != nil {
		if !h.up {
			// Crash removes every slot its host owns from the queue; one left behind would
			// fire on a dead host.
			panic(fmt.Sprintf("sim: event for host %s fired while it is down", h.name))
		}
		if h.pausedUntil > k.now {
			k.schedule(s, h.pausedUntil)
			return
		}
	}
	k.fired++
	if e.at != k.instantAt {
		k.instantAt, k.instantFired = e.at, 0
	}
	k.instantFired++
	s.run()
}
