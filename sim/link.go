package sim

import (
	"fmt"
	"time"
)

// DefaultLinkCapacity is the in-flight bound of a link whose LinkConfig.Capacity is zero.
const DefaultLinkCapacity = 1024

// LinkConfig describes a link's normal behaviour; faults change it at run time.
type LinkConfig struct {
	// Latency is the base one-way delay of every message.
	Latency time.Duration
	// Jitter adds a uniform extra delay in [0, Jitter] per message, drawn from the link's own
	// stream ("link/" + name). FIFO order is kept regardless: a message never overtakes one
	// sent before it on the same link (unless reorder is on).
	Jitter time.Duration
	// ExponentialMean, when positive, adds an exponentially distributed extra delay with this
	// mean per message (Rand.Exponential), drawn from the link's stream after the jitter and
	// cut at ExponentialCap when that is positive. FIFO order is kept in the same way.
	ExponentialMean time.Duration
	ExponentialCap  time.Duration
	// Capacity bounds the messages in flight; a Send beyond it fails with ErrLinkFull (see
	// Host.SetWritable). Zero means DefaultLinkCapacity.
	Capacity int
}

// Link is a directed channel from one host to another, FIFO by default, carrying opaque
// messages (any value; pass pointers to keep the sender from boxing them). Messages in flight
// occupy a credit each until they are delivered or lost, which is how backpressure reaches
// the sender. The link's fault controls (link_faults.go) are what fault injection drives.
//
// Only the message at the front of a link is in the kernel's queue at any time, so a link
// costs one queue entry however many messages it carries.
type Link struct {
	// The fields every Send and every delivery reads come first, in the object's first two
	// cache lines (a Link's size class, 320 bytes, starts each object on a 64-byte boundary):
	// between two messages on one link the engine walks over plenty of other memory, so each
	// further line a message touches is likely a miss.
	k        *Kernel
	from, to *Host
	inFlight ring[message] // sorted by (at, seq): FIFO, or by arrival time under reorder
	lastAt   Time          // latest arrival time handed out, so later messages never overtake
	config   LinkConfig
	rand     *Rand  // the link's stream, made on its first draw (stream)
	sent     uint64 // LinkStats.Sent: accepted by Send (including those then dropped)
	received uint64 // LinkStats.Delivered

	// faulty is set while any fault control is (partitioned, clogged, broken, extra latency,
	// reorder, a drop or duplicate filter), so that a healthy link's messages test one flag
	// instead of reading the controls from the cold end of the object.
	faulty         bool
	writableWanted bool // a Send was refused for lack of room; tell the sender when there is

	deliver    slot // owned by to: the front message arrives
	writable   slot // owned by from: room again after ErrLinkFull
	brokenFrom slot // owned by from: the link broke
	brokenTo   slot // owned by to: the link broke

	id   int
	name string

	partitioned   bool
	clogged       bool
	broken        bool
	extraLatency  time.Duration
	reorderWindow time.Duration
	dropIf        func(msg any) bool
	duplicateIf   func(msg any) bool

	dropped    uint64
	duplicated uint64
}

// LinkStats counts what happened on a link, for reports and tests.
type LinkStats struct {
	Sent       uint64 // accepted by Send (including those then dropped)
	Delivered  uint64
	Dropped    uint64
	Duplicated uint64
}

type message struct {
	payload any
	at      Time
	seq     uint64
}

func messageBefore(a, b message) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// Connect creates a link named name from one host to another. The name must be unique among
// hosts, links and stores; it names the link's random stream and its log lines. Two hosts
// may have any number of links between them (one per channel or port), each its own FIFO.
func (k *Kernel) Connect(name string, from, to *Host, config LinkConfig) *Link {
	if from.k != k || to.k != k {
		panic("sim: Connect with a host of another kernel")
	}
	if config.Latency < 0 || config.Jitter < 0 || config.Capacity < 0 ||
		config.ExponentialMean < 0 || config.ExponentialCap < 0 {
		panic(fmt.Sprintf("sim: link %s: negative value in %+v", name, config))
	}
	if config.Capacity == 0 {
		config.Capacity = DefaultLinkCapacity
	}
	k.claimName(name, "link")
	l := &Link{
		k:      k,
		id:     len(k.links),
		name:   name,
		from:   from,
		to:     to,
		config: config,
	}
	l.deliver = slot{handle: -1, owner: to, run: l.deliverFront}
	l.writable = slot{handle: -1, owner: from, run: l.notifyWritable}
	l.brokenFrom = slot{handle: -1, owner: from, run: func() { l.notifyBroken(from) }}
	l.brokenTo = slot{handle: -1, owner: to, run: func() { l.notifyBroken(to) }}
	k.links = append(k.links, l)
	from.outbound = append(from.outbound, l)
	to.inbound = append(to.inbound, l)
	return l
}

// Links returns every link in creation order.
func (k *Kernel) Links() []*Link { return k.links }

// Name returns the link's name.
func (l *Link) Name() string { return l.name }

// ID returns the link's index in Kernel.Links, for slice-indexed bookkeeping.
func (l *Link) ID() int { return l.id }

// From returns the sending host.
func (l *Link) From() *Host { return l.from }

// To returns the receiving host.
func (l *Link) To() *Host { return l.to }

// InFlight returns how many messages are on their way.
func (l *Link) InFlight() int { return l.inFlight.len() }

// Capacity returns the in-flight bound.
func (l *Link) Capacity() int { return l.config.Capacity }

// Stats returns the link's counters.
func (l *Link) Stats() LinkStats {
	return LinkStats{Sent: l.sent, Delivered: l.received, Dropped: l.dropped, Duplicated: l.duplicated}
}

// Send puts msg on the link. It fails with ErrHostDown if the sending host is down,
// ErrLinkBroken if the link is broken, and ErrLinkFull if Capacity messages are in flight
// (the sender's writable handler is told when there is room). Otherwise the message is
// accepted, which does not mean it will arrive: it is dropped silently if the receiver is
// down, the link is partitioned (now or when it arrives), or the drop filter matches.
func (l *Link) Send(msg any) error {
	if !l.from.up {
		return ErrHostDown
	}
	if l.faulty && l.broken {
		return ErrLinkBroken
	}
	if l.inFlight.len() >= l.config.Capacity {
		l.writableWanted = true
		return ErrLinkFull
	}
	l.sent++
	if l.k.observes(EventSend) {
		l.k.observe(Event{Kind: EventSend, Link: l, Message: msg})
	}
	switch {
	case !l.to.up:
		l.drop(msg, DropReceiverDown)
	case !l.faulty:
		l.enqueue(msg, 0)
	case l.partitioned:
		l.drop(msg, DropPartitioned)
	case l.dropIf != nil && l.dropIf(msg):
		l.drop(msg, DropFiltered)
	default:
		l.enqueue(msg, l.extraLatency)
		if l.duplicateIf != nil && l.inFlight.len() < l.config.Capacity && l.duplicateIf(msg) {
			l.duplicated++
			if l.k.observes(EventDuplicate) {
				l.k.observe(Event{Kind: EventDuplicate, Link: l, Message: msg})
			}
			l.enqueue(duplicateOf(msg), l.extraLatency)
		}
	}
	return nil
}

// MessageCopier is implemented by a message that must not reach its receiver twice as the
// same value, typically because the receiver reuses what the message holds once it has
// handled it (a pooled network buffer). The duplicate filter delivers CopyMessage's result
// as the second copy; other messages are delivered twice as they are.
type MessageCopier interface {
	// CopyMessage returns a message equal to this one that shares nothing its receiver
	// may reuse.
	CopyMessage() any
}

// duplicateOf returns what a duplicated msg delivers as its second copy.
func duplicateOf(msg any) any {
	if c, ok := msg.(MessageCopier); ok {
		return c.CopyMessage()
	}
	return msg
}

// stream returns the link's random stream, "link/<name>", deriving it on the first draw: a
// stream depends on its name and the seed alone, never on when it is made, and deriving one
// takes a SHA-256, which a run's many links that never jitter would pay for nothing.
func (l *Link) stream() *Rand {
	if l.rand == nil {
		l.rand = l.k.Stream("link/" + l.name)
	}
	return l.rand
}

// enqueue puts msg in flight, extraLatency later than the link's own latency. A healthy link
// passes zero rather than reading the fault controls.
func (l *Link) enqueue(msg any, extraLatency time.Duration) {
	latency := l.config.Latency + extraLatency
	if l.config.Jitter > 0 {
		latency += l.stream().DurationBetween(0, l.config.Jitter)
	}
	if l.config.ExponentialMean > 0 {
		extra := l.stream().Exponential(l.config.ExponentialMean)
		if l.config.ExponentialCap > 0 {
			extra = min(extra, l.config.ExponentialCap)
		}
		latency += extra
	}
	m := message{payload: msg, at: l.k.now.Add(latency), seq: l.k.nextSeq()}
	front := false
	if l.faulty && l.reorderWindow > 0 {
		m.at = m.at.Add(l.stream().DurationBetween(0, l.reorderWindow))
		front = l.inFlight.insertSorted(m, messageBefore) == 0
	} else {
		m.at = max(m.at, l.lastAt)
		l.inFlight.pushBack(m)
		front = l.inFlight.len() == 1
	}
	l.lastAt = max(l.lastAt, m.at)
	if front {
		l.scheduleFront()
	}
}

// scheduleFront puts the delivery of the front message in the queue, or takes it out when
// there is nothing to deliver or the link is clogged.
func (l *Link) scheduleFront() {
	if l.inFlight.len() == 0 || l.faulty && l.clogged {
		l.k.unschedule(&l.deliver)
		return
	}
	front := l.inFlight.front()
	l.k.scheduleNotBeforeLast(&l.deliver, front.at, front.seq)
}

// deliverFront is the deliver slot's event: the front message arrives.
func (l *Link) deliverFront() {
	m := l.inFlight.popFront()
	if l.faulty && (l.clogged || l.broken) {
		panic(fmt.Sprintf("sim: link %s delivered while clogged or broken", l.name))
	}
	l.scheduleFront()
	l.creditReturned()
	switch {
	case l.faulty && l.partitioned:
		l.drop(m.payload, DropPartitioned)
	case l.to.onReceive == nil:
		l.drop(m.payload, DropNoReceiver)
	default:
		l.received++
		if l.k.observes(EventDeliver) {
			l.k.observe(Event{Kind: EventDeliver, Link: l, Message: m.payload})
		}
		l.to.onReceive(l, m.payload)
	}
}

// creditReturned is called whenever a message leaves the link; if the sender was refused for
// lack of room, it is told (as its own event) that there is room again.
func (l *Link) creditReturned() {
	if !l.writableWanted || l.inFlight.len() >= l.config.Capacity {
		return
	}
	l.writableWanted = false
	if l.from.up && !l.writable.queued() {
		l.k.schedule(&l.writable, l.k.now)
	}
}

func (l *Link) notifyWritable() {
	if l.from.onWritable != nil {
		l.from.onWritable(l)
	}
}

func (l *Link) notifyBroken(h *Host) {
	if h.onBroken != nil {
		h.onBroken(l)
	}
}

func (l *Link) drop(msg any, reason DropReason) {
	l.dropped++
	if l.k.observes(EventDrop) {
		l.k.observe(Event{Kind: EventDrop, Link: l, Message: msg, Reason: reason})
	}
}

// discardInFlight loses every message in flight, in order.
func (l *Link) discardInFlight(reason DropReason) {
	l.k.unschedule(&l.deliver)
	for l.inFlight.len() > 0 {
		m := l.inFlight.popFront()
		l.drop(m.payload, reason)
	}
	l.creditReturned()
}

func (l *Link) String() string { return l.name }
