package sim

import "fmt"

// Config is everything a kernel needs to start. The zero value of each limit means "use the
// default", so a run always has a bound.
type Config struct {
	// Seed is the run's seed; every random stream in the run derives from it (see Stream).
	Seed uint64
	// MaxTime is the last virtual instant the run may reach; an event due later ends the run
	// with StopLimitTime. Zero means DefaultMaxTime.
	MaxTime Time
	// MaxEvents is how many events the run may fire; the next one ends the run with
	// StopLimitEvents. Zero means DefaultMaxEvents.
	MaxEvents uint64
	// MaxPending bounds how many events may be queued at once; exceeding it ends the run with
	// StopLimitPending, which catches runaway scheduling before it eats the machine's memory.
	// Zero means DefaultMaxPending.
	MaxPending int
	// MaxInstantEvents bounds how many events may fire at one virtual instant; the next one
	// ends the run with StopLimitInstant. Time that stands still while events fire is a
	// loop (a timer re-armed at its own deadline, two parties answering each other at
	// once), not work: a correct run moves the clock long before. Zero means
	// DefaultMaxInstantEvents.
	MaxInstantEvents uint64
}

// Defaults for the limits in Config.
const (
	DefaultMaxTime    = Time(24 * 60 * 60 * 1e9) // one virtual day
	DefaultMaxEvents  = 100_000_000
	DefaultMaxPending = 1 << 20
	// DefaultMaxInstantEvents is far above any instant of a correct run here: counted once
	// (2026-12-06), the catalogue and generated seeds 1-12,000 fired at most 4,271 events at
	// one instant.
	DefaultMaxInstantEvents = 100_000
)

// Kernel is one simulated world: a virtual clock, the event queue, the random streams, and
// the hosts, links and stores registered with it. It is not safe for concurrent use; one run
// is one goroutine, and parallelism comes from running many kernels (seeds) side by side.
type Kernel struct {
	config Config
	now    Time
	seq    uint64 // the last sequence number handed out
	queue  queue

	fired uint64 // events fired so far
	// instantFired counts the events fired at instantAt, the latest instant anything
	// fired at.
	instantAt    Time
	instantFired uint64
	last         entry // key of the last fired event, to assert the queue's order
	stop         bool  // set by Stop, cleared when a run starts
	limit        StopReason
	running      bool

	streams  map[string]*Rand // looked up by name, never ranged over
	hosts    []*Host
	links    []*Link
	stores   []*Store
	names    map[string]string // entity name -> kind, to reject duplicates
	observer func(Event)
	observed uint64 // bit k set: the observer sees events of kind k
}

// New returns a kernel at time zero with nothing scheduled.
func New(config Config) *Kernel {
	if config.MaxTime == 0 {
		config.MaxTime = DefaultMaxTime
	}
	if config.MaxEvents == 0 {
		config.MaxEvents = DefaultMaxEvents
	}
	if config.MaxPending == 0 {
		config.MaxPending = DefaultMaxPending
	}
	if config.MaxInstantEvents == 0 {
		config.MaxInstantEvents = DefaultMaxInstantEvents
	}
	if config.MaxTime < 0 || config.MaxPending < 0 {
		panic(fmt.Sprintf("sim: negative limit in %+v", config))
	}
	return &Kernel{
		config:    config,
		streams:   make(map[string]*Rand),
		names:     make(map[string]string),
		last:      entry{at: -1},
		instantAt: -1,
		queue:     newQueue(initialQueueCapacity),
	}
}

// initialQueueCapacity is room for the events a run of a few dozen hosts and links keeps
// queued at once (the standard scenario peaks near 110), so the queue's three arrays are
// allocated once instead of growing step by step in every run.
const initialQueueCapacity = 128

// Config returns the configuration the kernel runs with, defaults filled in.
func (k *Kernel) Config() Config { return k.config }

// Seed returns the run's seed.
func (k *Kernel) Seed() uint64 { return k.config.Seed }

// Now returns the current virtual time: the time of the event being fired, or where the last
// run left the clock.
func (k *Kernel) Now() Time { return k.now }

// Events returns how many events have fired so far.
func (k *Kernel) Events() uint64 { return k.fired }

// InstantEvents returns how many events have fired at the latest instant anything fired at:
// at StopLimitInstant, Config.MaxInstantEvents.
func (k *Kernel) InstantEvents() uint64 { return k.instantFired }

// Pending returns how many events are queued.
func (k *Kernel) Pending() int { return k.queue.len() }

// SetObserver installs fn to be called synchronously for every kernel event (see Event);
// nil removes it. Without an observer the kernel builds no Event values at all.
func (k *Kernel) SetObserver(fn func(Event)) { k.SetObserverKinds(fn) }

// SetObserverKinds is SetObserver for events of the given kinds only (all kinds when none
// is given). Events of other kinds are not built: an observer that cares about crashes
// does not pay for a value per message sent and delivered.
func (k *Kernel) SetObserverKinds(fn func(Event), kinds ...EventKind) {
	k.observer, k.observed = fn, 0
	if fn == nil {
		return
	}
	if len(kinds) == 0 {
		k.observed = ^uint64(0)
	}
	for _, kind := range kinds {
		k.observed |= 1 << kind
	}
}

// observes reports whether the observer wants events of kind.
func (k *Kernel) observes(kind EventKind) bool { return k.observed&(1<<kind) != 0 }

// nextSeq hands out the next sequence number: the tie-breaker between events due at the same
// instant is the order in which they were scheduled.
func (k *Kernel) nextSeq() uint64 {
	k.seq++
	return k.seq
}

// schedule queues s at the given instant, or moves it there if it is already queued.
func (k *Kernel) schedule(s *slot, at Time) {
	k.scheduleKey(s, at, k.nextSeq())
}

func (k *Kernel) scheduleKey(s *slot, at Time, seq uint64) {
	if at < k.now {
		panic(fmt.Sprintf("sim: scheduling at %v, before now %v", at, k.now))
	}
	if s.owner != nil && !s.owner.up {
		panic(fmt.Sprintf("sim: scheduling an event for host %s while it is down", s.owner.name))
	}
	if s.queued() {
		k.queue.reschedule(s, at, seq)
		return
	}
	k.queue.push(s, at, seq)
}

// unschedule takes s off the queue; it reports whether s was queued.
func (k *Kernel) unschedule(s *slot) bool { return k.queue.remove(s) }

// claimName registers a unique name for a host, link or store. Names key the random streams
// and the logs, so two things with one name would silently share both.
func (k *Kernel) claimName(name, kind string) {
	if name == "" {
		panic("sim: empty " + kind + " name")
	}
	if other, ok := k.names[name]; ok {
		panic(fmt.Sprintf("sim: %s name %q already used by a %s", kind, name, other))
	}
	k.names[name] = kind
}

func (k *Kernel) observe(e Event) {
	e.At = k.now
	k.observer(e)
}

// scheduleNotBeforeLast queues s with the key (at, seq) that an object chose for it (a link
// keeps each message's own send sequence, so deliveries interleave with other events exactly
// as if each message were its own event), moved to now with a fresh sequence number when that
// key is not after the event being fired: the queue never goes back in (time, seq) order.
func (k *Kernel) scheduleNotBeforeLast(s *slot, at Time, seq uint64) {
	if at < k.now || !k.last.before(entry{at: at, seq: seq}) {
		at, seq = max(at, k.now), k.nextSeq()
	}
	k.scheduleKey(s, at, seq)
}
