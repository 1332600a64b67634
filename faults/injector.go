package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/ckptsim/ckptsim/trace"
)

// Scheduler is the virtual clock the injector runs on. The simulator implements it.
type Scheduler interface {
	// Now returns the current virtual time in nanoseconds.
	Now() int64
	// At runs fn at virtual time tNanos (never earlier than Now). Callbacks due at the same
	// time run in the order At was called, after those already queued for that time.
	At(tNanos int64, fn func())
}

// Config is what an Injector needs.
type Config struct {
	Schedule  Schedule
	Phases    Phases
	Target    Target
	Scheduler Scheduler
	// Recorder receives fault and phase events; the injector watches it for event triggers.
	Recorder *trace.Recorder
	// Rand draws chance triggers; it may be nil when the schedule has none. Give the injector
	// a sub-stream of its own so that its draws do not shift other components'.
	Rand *rand.Rand
	// MaxFaults bounds the faults injected in a run; 0 means DefaultMaxFaults.
	MaxFaults int
	// OnPhase, if set, is called after each phase event is emitted, for example to stop the
	// run at PhaseEnd.
	OnPhase func(Phase)
}

// Injector applies a schedule to a Target at the right moments, runs the phases, and announces
// every fault in the trace. It belongs to one run and is used from the run's goroutine.
type Injector struct {
	c       Config
	phase   Phase
	counts  []int // per entry: matches seen (nth) or times fired (chance)
	fired   []int // per entry: times its fault was injected (see Fired)
	watched []int // the entries with event triggers, in schedule order
	nextID  EffectID
	active  []activeEffect // windowed effects in force, in id order
	skipped int            // faults not injected because MaxFaults was reached
}

type activeEffect struct {
	id    EffectID
	entry int
	fault Fault
}

// NewInjector checks c and returns an injector that watches c.Recorder. Create it after any
// other watcher whose view of the order matters: a fault event emitted by a watcher reaches
// later watchers before the event that triggered it (see trace.Recorder.Watch).
func NewInjector(c Config) (*Injector, error) {
	if c.Target == nil || c.Scheduler == nil || c.Recorder == nil {
		return nil, errors.New("faults: injector needs a Target, a Scheduler and a Recorder")
	}
	if err := c.Schedule.Validate(); err != nil {
		return nil, err
	}
	if err := c.Phases.Validate(); err != nil {
		return nil, err
	}
	if c.MaxFaults < 0 {
		return nil, fmt.Errorf("faults: MaxFaults must be >= 0, got %d", c.MaxFaults)
	}
	if c.MaxFaults == 0 {
		c.MaxFaults = DefaultMaxFaults
	}
	if c.Rand == nil {
		for i, e := range c.Schedule.Entries {
			if e.Trigger.Type == OnChance {
				return nil, fmt.Errorf("faults: entries[%d].trigger: a chance trigger needs Config.Rand", i)
			}
		}
	}
	c.Schedule.Entries = append([]Entry(nil), c.Schedule.Entries...) // the caller may reuse its copy
	n := len(c.Schedule.Entries)
	in := &Injector{c: c, counts: make([]int, n), fired: make([]int, n)}
	for i, e := range c.Schedule.Entries {
		if e.Trigger.Type == OnNth || e.Trigger.Type == OnChance {
			in.watched = append(in.watched, i)
		}
	}
	// Every event of the run passes the watchers: a schedule of time triggers alone needs none.
	if len(in.watched) > 0 {
		c.Recorder.Watch(in.watch)
	}
	return in, nil
}

// Start begins the fault phase now: it emits phase=fault, arms the time triggers (a time
// already past fires now) and schedules heal after Phases.Fault. Event triggers count
// matching events from here on.
func (in *Injector) Start() {
	if in.phase != PhaseIdle {
		panic("faults: Start called twice")
	}
	now := in.c.Scheduler.Now()
	in.enter(PhaseFault)
	for i, e := range in.c.Schedule.Entries {
		if e.Trigger.Type == AtTime {
			in.c.Scheduler.At(max(e.Trigger.At.Nanos(), now), func() { in.inject(i) })
		}
	}
	in.c.Scheduler.At(now+in.c.Phases.Fault.Nanos(), in.Heal)
}

// Heal ends the fault phase now, if it has not ended yet: it emits phase=heal, ends every
// active effect in id order (a fault end event and Target.End for each), calls Target.Heal,
// and from then on injects nothing. The liveness phase begins Phases.Heal later. Start
// schedules Heal; calling it earlier shortens the fault phase.
func (in *Injector) Heal() {
	switch {
	case in.phase == PhaseIdle:
		panic("faults: Heal before Start")
	case in.phase > PhaseFault:
		return // healed already, earlier than scheduled
	}
	in.enter(PhaseHeal)
	for len(in.active) > 0 {
		in.end(in.active[0].id)
	}
	in.c.Target.Heal()
	in.c.Scheduler.At(in.c.Scheduler.Now()+in.c.Phases.Heal.Nanos(), func() {
		in.enter(PhaseLiveness)
		in.c.Scheduler.At(in.c.Scheduler.Now()+in.c.Phases.Liveness.Nanos(), func() { in.enter(PhaseEnd) })
	})
}

// Phase returns the current phase.
func (in *Injector) Phase() Phase { return in.phase }

// Injected returns how many faults have been injected.
func (in *Injector) Injected() int { return int(in.nextID) }

// Skipped returns how many faults fired but were not injected because MaxFaults was reached.
func (in *Injector) Skipped() int { return in.skipped }

// Active returns the ids of the windowed effects in force, in id order.
func (in *Injector) Active() []EffectID {
	ids := make([]EffectID, len(in.active))
	for i, a := range in.active {
		ids[i] = a.id
	}
	return ids
}

func (in *Injector) enter(p Phase) {
	if p != in.phase+1 {
		panic(fmt.Sprintf("faults: phase %s after %s", p, in.phase))
	}
	in.phase = p
	in.c.Recorder.Emit(in.c.Scheduler.Now(), phaseEvent(p))
	if in.c.OnPhase != nil {
		in.c.OnPhase(p)
	}
}

// watch is the Recorder watcher behind event triggers. It runs inside Emit, right after e is
// recorded, so a fault it injects is recorded right after e and takes effect before the
// emitter goes on (Target obligation 1). Entries are visited in schedule order; a chance
// trigger draws one number per matching event while it may still fire.
func (in *Injector) watch(e *trace.Event) {
	if in.phase != PhaseFault {
		return
	}
	for _, i := range in.watched {
		t := in.c.Schedule.Entries[i].Trigger
		if e.T < t.After.Nanos() {
			continue
		}
		switch t.Type {
		case OnNth:
			if in.counts[i] < t.Nth && t.Matches(e) {
				in.counts[i]++
				if in.counts[i] == t.Nth {
					in.inject(i)
				}
			}
		case OnChance:
			if in.counts[i] < t.Max && t.Matches(e) && in.c.Rand.Float64() < t.Probability {
				in.counts[i]++
				in.inject(i)
			}
		}
	}
}

// inject injects the fault of entry i now, unless the fault phase is over or the run has had
// MaxFaults faults already.
func (in *Injector) inject(i int) {
	if in.phase != PhaseFault {
		return
	}
	if int(in.nextID) >= in.c.MaxFaults {
		in.skipped++
		return
	}
	f := in.c.Schedule.Entries[i].Fault
	in.fired[i]++
	in.nextID++
	id := in.nextID
	now := in.c.Scheduler.Now()
	in.c.Recorder.Emit(now, faultEvent(i, id, f, false))
	if f.Kind.Windowed() {
		in.active = append(in.active, activeEffect{id: id, entry: i, fault: f})
		in.c.Scheduler.At(now+f.Window.Nanos(), func() { in.end(id) })
	}
	apply(in.c.Target, id, f)
}

// end ends effect id if it is still active: a fault end event, then Target.End.
func (in *Injector) end(id EffectID) {
	k := -1
	for i, a := range in.active {
		if a.id == id {
			k = i
			break
		}
	}
	if k < 0 {
		return // ended at heal already
	}
	a := in.active[k]
	in.active = append(in.active[:k], in.active[k+1:]...)
	in.c.Recorder.Emit(in.c.Scheduler.Now(), faultEvent(a.entry, id, a.fault, true))
	in.c.Target.End(id)
}
