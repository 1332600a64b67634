package sim

import (
	"fmt"
	"time"
)

// The controls below are what fault injection drives. Each takes effect at the current
// instant and stays until changed; none of them draws randomness, so a fault that wants to
// act on a fraction of messages brings its own stream and decides in its filter.

// SetPartitioned cuts (true) or heals (false) the link in its direction; partition both
// directions by cutting both links. While cut, sent messages are dropped, and so are messages
// already in flight when they come due. Senders are not told: a partition is silent.
func (l *Link) SetPartitioned(cut bool) {
	l.partitioned = cut
	l.noteFaults()
}

// Partitioned reports whether the link is cut.
func (l *Link) Partitioned() bool { return l.partitioned }

// SetClogged holds (true) or releases (false) the link's deliveries. Held messages are not
// lost: they stay in flight, in order, keep their credits (so the sender feels backpressure)
// and are delivered when the link is released, those already overdue at the release instant.
func (l *Link) SetClogged(clogged bool) {
	if l.clogged == clogged {
		return
	}
	l.clogged = clogged
	l.noteFaults()
	l.scheduleFront()
}

// Clogged reports whether the link holds its deliveries.
func (l *Link) Clogged() bool { return l.clogged }

// SetDropFilter drops, at Send, every message for which drop returns true; nil drops none.
// DropAll drops everything. A filter that looks at the message lets a fault drop only
// barriers or only control messages.
func (l *Link) SetDropFilter(drop func(msg any) bool) {
	l.dropIf = drop
	l.noteFaults()
}

// DropAll is a drop filter that matches every message.
func DropAll(any) bool { return true }

// SetDuplicateFilter sends a second copy of every message for which duplicate returns true
// (if there is room for it), right behind the original; nil duplicates none. The copy is
// the message itself, or what its CopyMessage returns if it is a MessageCopier.
func (l *Link) SetDuplicateFilter(duplicate func(msg any) bool) {
	l.duplicateIf = duplicate
	l.noteFaults()
}

// SetExtraLatency adds d to the latency of messages sent from now on (FIFO order still holds:
// when the delay is lifted, later messages still wait behind earlier ones).
func (l *Link) SetExtraLatency(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("sim: link %s: negative extra latency %v", l.name, d))
	}
	l.extraLatency = d
	l.noteFaults()
}

// SetReorder lets messages sent from now on overtake each other: each gets an extra uniform
// delay in [0, window] and is not held behind earlier messages. Zero restores FIFO for
// messages sent afterwards (they queue behind everything in flight). This breaks the FIFO
// assumption of the protocols on purpose: it is an out-of-model fault.
func (l *Link) SetReorder(window time.Duration) {
	if window < 0 {
		panic(fmt.Sprintf("sim: link %s: negative reorder window %v", l.name, window))
	}
	l.reorderWindow = window
	l.noteFaults()
}

// Break fails the link like a lost TCP connection: messages in flight are lost, further Sends
// fail with ErrLinkBroken, and both end hosts (if up) are told through their link-broken
// handlers, each as its own event at the current instant. Breaking a broken link does nothing.
func (l *Link) Break() {
	if l.broken {
		return
	}
	l.broken = true
	l.noteFaults()
	if l.k.observes(EventLinkBreak) {
		l.k.observe(Event{Kind: EventLinkBreak, Link: l})
	}
	l.discardInFlight(DropBroken)
	l.writableWanted = false
	l.k.unschedule(&l.writable)
	if l.from.up {
		l.k.schedule(&l.brokenFrom, l.k.now)
	}
	if l.to.up && l.to != l.from {
		l.k.schedule(&l.brokenTo, l.k.now)
	}
}

// Repair makes a broken link usable again (a reconnection); messages lost stay lost.
func (l *Link) Repair() {
	if !l.broken {
		return
	}
	l.broken = false
	l.noteFaults()
	if l.k.observes(EventLinkRepair) {
		l.k.observe(Event{Kind: EventLinkRepair, Link: l})
	}
}

// Broken reports whether the link is broken.
func (l *Link) Broken() bool { return l.broken }

// noteFaults recomputes faulty after a control changed; every setter above calls it.
func (l *Link) noteFaults() {
	l.faulty = l.partitioned || l.clogged || l.broken || l.extraLatency != 0 || l.reorderWindow != 0 ||
		l.dropIf != nil || l.duplicateIf != nil
}
