package simtarget

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// World is the kernel-level half of a faults.Target: it makes network, data, storage, clock
// and host faults take effect on the hosts, links and stores of one sim.Kernel. It implements
// faults.NetworkTarget, faults.StorageTarget, faults.ClockTarget, the host methods of
// faults.ProcessTarget (CrashHost, PauseHost, DelayRestarts), End and Heal. The engine-level
// methods (CrashTask, CrashCoordinator, the external store) are the glue's; Target puts the
// two halves together.
//
// A World owns the fault controls of the objects it was given: the partition, clog, drop,
// duplicate, extra-latency and reorder settings of routed links, the fault hooks and outage
// flags of its stores, and the timer skew of its hosts. Nothing else should set them while
// the World is in use, or the World's next change overwrites them.
//
// Each object keeps the effects active on it in id order and recomputes its settings from
// that list whenever one starts or ends, so overlapping effects compose (a link is cut while
// any partition on it is active; delays and skews add up; a host stays down while any crash
// on it is active) and End undoes exactly one effect.
type World struct {
	k      *sim.Kernel
	config Config

	netRand   *sim.Rand // drop and duplicate decisions, one draw per matching rule and message
	storeRand *sim.Rand // storage decisions, one draw per matching rule and write

	links  []*linkState // one per distinct sim link, in the order of first route
	routes []routeState // config.Routes, each with its link's state
	mark   uint64       // epoch for deduplicating links while collecting them

	hosts       []*hostState
	hostByName  map[string]*hostState // looked up by name, never ranged over
	stores      []*storeState
	storeByName map[string]*storeState // looked up by name, never ranged over

	restartDelays []idDuration // active restart.delay effects, in id order

	effects map[faults.EffectID]func() // undo of each active effect; looked up, never ranged over
}

type routeState struct {
	route Route
	link  *linkState
}

// NewWorld returns a World acting on k's objects as c maps them. It changes nothing yet.
func NewWorld(k *sim.Kernel, c Config) (*World, error) {
	c, err := c.withDefaults(k)
	if err != nil {
		return nil, err
	}
	w := &World{
		k:           k,
		config:      c,
		netRand:     k.Stream(c.StreamPrefix + "/net"),
		storeRand:   k.Stream(c.StreamPrefix + "/store"),
		hostByName:  make(map[string]*hostState, len(c.Hosts)),
		storeByName: make(map[string]*storeState, len(c.Stores)),
		effects:     make(map[faults.EffectID]func()),
	}
	byLink := make(map[*sim.Link]*linkState) // lookup only
	for _, r := range c.Routes {
		s, ok := byLink[r.Sim]
		if !ok {
			s = newLinkState(w, r.Sim)
			byLink[r.Sim] = s
			w.links = append(w.links, s)
		}
		s.control = s.control || r.Control()
		w.routes = append(w.routes, routeState{route: r, link: s})
	}
	for _, h := range c.Hosts {
		s := newHostState(w, h)
		w.hosts = append(w.hosts, s)
		w.hostByName[h.Name()] = s
	}
	for _, st := range c.Stores {
		s := newStoreState(w, st)
		w.stores = append(w.stores, s)
		w.storeByName[st.Name()] = s
	}
	return w, nil
}

// Kernel returns the kernel the World acts on.
func (w *World) Kernel() *sim.Kernel { return w.k }

// CheckSystem reports the first name of sys the World cannot act on: a host or store it does
// not know, or a data channel without a route. Control links need no route (a glue may not
// model them as links), but faults on unrouted links have no effect. Run it once when
// assembling a scenario, so that a typo fails there and not as a panic in the middle of a run.
func (w *World) CheckSystem(sys faults.System) error {
	for _, h := range sys.Hosts {
		if w.hostByName[h] == nil {
			return fmt.Errorf("simtarget: system host %q is not a host of the world", h)
		}
	}
	for _, s := range sys.Stores {
		if w.storeByName[s] == nil {
			return fmt.Errorf("simtarget: system store %q is not a store of the world", s)
		}
	}
	for _, c := range sys.Channels {
		if !slices.ContainsFunc(w.routes, func(r routeState) bool { return r.route.Link == c }) {
			return fmt.Errorf("simtarget: system channel %s has no route", c)
		}
	}
	return nil
}

// begin records how to undo effect id. An id started twice is a bug in the caller.
func (w *World) begin(id faults.EffectID, undo func()) {
	if _, ok := w.effects[id]; ok {
		panic(fmt.Sprintf("simtarget: effect %d started twice", id))
	}
	w.effects[id] = undo
}

// End undoes the effect started under id. Ids the World did not start (instant faults, or
// effects of the engine half) are ignored, so a composite target can pass every id to both
// halves.
func (w *World) End(id faults.EffectID) {
	undo, ok := w.effects[id]
	if !ok {
		return
	}
	delete(w.effects, id)
	undo()
}

// Active returns how many effects are in force, for tests and reports.
func (w *World) Active() int { return len(w.effects) }

// Heal brings every object back to normal, whatever the effects still recorded: links are
// uncut, unclogged, unfiltered, undelayed, in order and repaired (a channel broken by
// net.break, or by anyone, is reconnected); stores are available and fault-free; timer skews
// are zero; pending delayed restarts are dropped and every host that is down is started now,
// in host order (its boot function runs inside Heal, which the injector calls from a kernel
// event, never from inside an engine step). A paused host resumes within one pause quantum.
func (w *World) Heal() {
	clear(w.effects)
	w.restartDelays = nil
	for _, s := range w.links {
		s.heal()
	}
	for _, s := range w.stores {
		s.heal()
	}
	for _, s := range w.hosts {
		s.heal()
	}
}

// idDuration is one active effect's contribution of a duration (a delay) or a number (skew).
type idDuration struct {
	id    faults.EffectID
	nanos int64
}

// withoutID returns list without the entries of effect id, keeping the order.
func withoutID[T any](list []T, id faults.EffectID, idOf func(T) faults.EffectID) []T {
	return slices.DeleteFunc(list, func(v T) bool { return idOf(v) == id })
}
