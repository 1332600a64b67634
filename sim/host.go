package sim

import (
	"fmt"
	"math/bits"
	"time"
)

// Host is a simulated process: a name, a boot function, and whatever state the boot function
// builds in its closures (the volatile state). It is down until Start; Crash throws away
// everything the running incarnation had queued; Start again (or Restart) calls boot afresh
// as a new incarnation. Only Store contents survive a crash.
type Host struct {
	k           *Kernel
	id          int
	name        string
	boot        func(h *Host)
	up          bool
	incarnation uint64 // 0 before the first start, then 1, 2, ...
	pausedUntil Time   // events for this host are deferred until then

	skewPPM    int64         // timer durations are scaled by (1 + skewPPM/1e6)
	skewOffset time.Duration // and then shifted by this, never below zero

	onReceive  func(l *Link, msg any)
	onWritable func(l *Link)
	onBroken   func(l *Link)

	inbound  []*Link
	outbound []*Link
}

// AddHost registers a host that is down until Start. boot is called at every start with the
// host; it builds the incarnation's state, timers and handlers.
func (k *Kernel) AddHost(name string, boot func(h *Host)) *Host {
	if boot == nil {
		panic("sim: host " + name + " without a boot function")
	}
	k.claimName(name, "host")
	h := &Host{k: k, id: len(k.hosts), name: name, boot: boot}
	k.hosts = append(k.hosts, h)
	return h
}

// Hosts returns every host in the order they were added.
func (k *Kernel) Hosts() []*Host { return k.hosts }

// Name returns the host's name.
func (h *Host) Name() string { return h.name }

// ID returns the host's index in Kernel.Hosts, for slice-indexed bookkeeping.
func (h *Host) ID() int { return h.id }

// Kernel returns the kernel the host lives in.
func (h *Host) Kernel() *Kernel { return h.k }

// Up reports whether the host is running (paused hosts are up).
func (h *Host) Up() bool { return h.up }

// Incarnation counts starts: 1 after the first Start, 2 after the first restart, and so on.
func (h *Host) Incarnation() uint64 { return h.incarnation }

// Paused reports whether the host is stalled by Pause right now.
func (h *Host) Paused() bool { return h.up && h.pausedUntil > h.k.now }

// Start boots a down host as a new incarnation: it calls the boot function synchronously.
// Starting a host that is up panics.
func (h *Host) Start() {
	if h.up {
		panic(fmt.Sprintf("sim: start of host %s, which is already up", h.name))
	}
	h.up = true
	h.incarnation++
	if h.k.observes(EventHostStart) {
		h.k.observe(Event{Kind: EventHostStart, Host: h, Incarnation: h.incarnation})
	}
	h.boot(h)
}

// Crash stops the host at once: its timers are disarmed, every event queued for it (timer
// firings, message deliveries, storage completions, notifications) is discarded, messages in
// flight towards it are lost, and its handlers are forgotten. Storage operations it issued
// still take effect in the store; their completions are dropped. Messages it sent that are
// still in flight are delivered: the network has them. Crash reports whether the host was up.
//
// A host may crash itself from its own event (an event-triggered fault often does exactly
// that); whatever that event does afterwards has no effect: its sends fail with ErrHostDown,
// its timers stay disarmed, its handlers are not installed and its store operations are
// never issued.
func (h *Host) Crash() bool {
	if !h.up {
		return false
	}
	h.up = false
	h.pausedUntil = 0
	h.k.queue.filter(func(s *slot) bool { return s.owner == h })
	h.onReceive, h.onWritable, h.onBroken = nil, nil, nil
	if h.k.observes(EventHostCrash) {
		h.k.observe(Event{Kind: EventHostCrash, Host: h, Incarnation: h.incarnation})
	}
	for _, l := range h.inbound {
		l.discardInFlight(DropReceiverCrashed)
	}
	for _, l := range h.outbound {
		l.writableWanted = false
	}
	return true
}

// Restart crashes the host if it is up and starts it again.
func (h *Host) Restart() {
	h.Crash()
	h.Start()
}

// Pause stalls a running host for d: events due for it meanwhile (timers, deliveries,
// completions, notifications) are deferred to the instant the pause ends, in their original
// order. Pausing a paused host extends the pause if d reaches further. Pausing a down host
// does nothing; a crash ends a pause.
func (h *Host) Pause(d time.Duration) {
	if !h.up {
		return
	}
	until := h.k.now.Add(d)
	if until <= h.pausedUntil {
		return
	}
	h.pausedUntil = until
	if h.k.observes(EventHostPause) {
		h.k.observe(Event{Kind: EventHostPause, Host: h, Until: until})
	}
}

// SetTimerSkew makes the host's timers run off: every duration d given to one of its timers
// becomes d*(1+scalePPM/1e6) + offset, never below zero. scalePPM = 1e6 makes timers take
// twice as long; -5e5 makes them fire in half the time. Scaling keeps a positive duration
// positive (at least a nanosecond) unless scalePPM is -1e6; only the offset can shorten one
// to zero. Integer parts-per-million keep the
// arithmetic exact on every machine. It survives restarts (it is a property of the machine,
// not of the process) and applies to timers armed after the call.
func (h *Host) SetTimerSkew(scalePPM int64, offset time.Duration) {
	if scalePPM < -1_000_000 {
		panic(fmt.Sprintf("sim: timer skew %d ppm would make durations negative", scalePPM))
	}
	h.skewPPM = scalePPM
	h.skewOffset = offset
}

func (h *Host) skewed(d time.Duration) time.Duration {
	if h.skewPPM == 0 && h.skewOffset == 0 {
		return d
	}
	scaled := int64(d)
	if h.skewPPM != 0 {
		// A timer asked to wait waits: scaling rounds down, and a fast clock would
		// otherwise turn a wait of a nanosecond or so into none. A host that re-arms a
		// timer for what is left of a deadline (as the engine does when a skewed timer
		// fires early) would then fire it at the same instant without end.
		scaled = scaleByPPM(int64(d), h.skewPPM)
		if d > 0 && scaled == 0 && h.skewPPM > -1_000_000 {
			scaled = 1
		}
	}
	scaled += int64(h.skewOffset)
	if scaled < 0 {
		return 0
	}
	return time.Duration(scaled)
}

// scaleByPPM returns d*(1e6+ppm)/1e6 for d >= 0, rounded down and saturated, using a 128-bit
// product so that long durations do not overflow.
func scaleByPPM(d, ppm int64) int64 {
	factor := uint64(1_000_000 + ppm)
	hi, lo := bits.Mul64(uint64(d), factor)
	if hi >= 1_000_000 {
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, 1_000_000)
	if q > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(q)
}

// NewTimer returns a disarmed timer owned by the host's current incarnation (see Timer). On
// a down host it returns a timer that can never be armed.
func (h *Host) NewTimer(fire func()) *Timer {
	return h.k.newTimer(h, fire)
}

// After arms a new host timer to call fire d from now (skewed).
func (h *Host) After(d time.Duration, fire func()) *Timer {
	t := h.NewTimer(fire)
	t.Reset(d)
	return t
}

// SetReceiver installs the function that receives the messages arriving on the host's
// inbound links. A message that arrives while no receiver is set is dropped
// (DropNoReceiver). A crash forgets the receiver, so each incarnation sets its own in boot;
// on a down host the call does nothing (as do SetWritable and SetLinkBroken).
func (h *Host) SetReceiver(fn func(l *Link, msg any)) {
	if h.up {
		h.onReceive = fn
	}
}

// SetWritable installs the function told that an outbound link which refused a Send with
// ErrLinkFull has room again (backpressure released). Forgotten on crash.
func (h *Host) SetWritable(fn func(l *Link)) {
	if h.up {
		h.onWritable = fn
	}
}

// SetLinkBroken installs the function told that one of the host's links, inbound or
// outbound, broke (see Link.Break): the simulated lost connection. Forgotten on crash.
func (h *Host) SetLinkBroken(fn func(l *Link)) {
	if h.up {
		h.onBroken = fn
	}
}

// Inbound returns the links that end at the host, in creation order.
func (h *Host) Inbound() []*Link { return h.inbound }

// Outbound returns the links that start at the host, in creation order.
func (h *Host) Outbound() []*Link { return h.outbound }
