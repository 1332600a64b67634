package simtarget

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// Defaults for the zero values of Config.
const (
	// DefaultReorderWindow is how far data.reorder may push a record back: each message sent
	// on the link meanwhile is delayed by a uniform extra in [0, window], so records sent
	// closer together than this may swap.
	DefaultReorderWindow = 5 * time.Millisecond
	// DefaultPauseQuantum is the step in which a pause is renewed (see PauseHost); a paused
	// host resumes at most one quantum (plus 1ns) after its pause ends.
	DefaultPauseQuantum = time.Millisecond
	// DefaultStreamPrefix names the World's random streams: prefix + "/net" for messages and
	// prefix + "/store" for storage operations.
	DefaultStreamPrefix = "simtarget"
)

// Route says that messages between two endpoints of the fault model travel on a sim link.
// Endpoints are task ids and faults.Coordinator, as in faults.Link. A route whose either end
// is the coordinator is a control link; any other is a data channel (records, barriers and
// whatever flows back on it, such as credits). The difference matters for partitions: a
// partitioned control link loses messages, a partitioned data channel holds them and
// delivers them in order afterwards, as a stalled TCP connection would.
//
// An endpoint pair may have several routes (one sim link per port, say); every one is hit.
// Several routes may share one sim link (a link per host pair that carries several
// channels); then a fault on one of those channels hits the whole sim link, because the
// kernel's controls are per link.
type Route struct {
	Link faults.Link
	Sim  *sim.Link
}

// Control reports whether the route is a control link (coordinator <-> task).
func (r Route) Control() bool {
	return r.Link.From == faults.Coordinator || r.Link.To == faults.Coordinator
}

// matches reports whether the route carries pattern's link; an empty end matches anything.
func (r Route) matches(pattern faults.Link) bool {
	return (pattern.From == "" || pattern.From == r.Link.From) && (pattern.To == "" || pattern.To == r.Link.To)
}

// Config says how the names in a fault schedule map to the objects of one kernel.
type Config struct {
	// Hosts are the hosts that crash.host, pause.host and clock.skew may name, by their sim
	// names; Heal restarts those that are down. Nil means every host the kernel has when
	// NewWorld is called.
	Hosts []*sim.Host
	// Routes map the links of the fault model to sim links. Network and data faults act only
	// on routed links; a fault on a link without a route has no effect.
	Routes []Route
	// Stores are the stores that storage faults may name, by their sim names; a fault with
	// an empty store hits all of them. Nil means every store the kernel has when NewWorld is
	// called.
	Stores []*sim.Store
	// Classify tells the classes of messages apart. Required when there are routes.
	Classify Classifier
	// ReorderWindow is the extra-delay window of data.reorder; zero means
	// DefaultReorderWindow.
	ReorderWindow time.Duration
	// PauseQuantum is the renewal step of a pause; zero means DefaultPauseQuantum.
	PauseQuantum time.Duration
	// StreamPrefix names the random streams; empty means DefaultStreamPrefix. Two Worlds on
	// one kernel need different prefixes, or they share their streams.
	StreamPrefix string
}

// withDefaults fills the zero values of c from k and the defaults, and checks the rest.
func (c Config) withDefaults(k *sim.Kernel) (Config, error) {
	if k == nil {
		return c, errors.New("simtarget: no kernel")
	}
	if c.Hosts == nil {
		c.Hosts = slices.Clone(k.Hosts())
	}
	if c.Stores == nil {
		c.Stores = slices.Clone(k.Stores())
	}
	if c.ReorderWindow == 0 {
		c.ReorderWindow = DefaultReorderWindow
	}
	if c.PauseQuantum == 0 {
		c.PauseQuantum = DefaultPauseQuantum
	}
	if c.StreamPrefix == "" {
		c.StreamPrefix = DefaultStreamPrefix
	}
	if c.ReorderWindow < 0 || c.PauseQuantum < 0 {
		return c, fmt.Errorf("simtarget: negative ReorderWindow %v or PauseQuantum %v", c.ReorderWindow, c.PauseQuantum)
	}
	for i, h := range c.Hosts {
		switch {
		case h == nil || h.Kernel() != k:
			return c, fmt.Errorf("simtarget: hosts[%d] is not a host of this kernel", i)
		case slices.Index(c.Hosts, h) != i:
			return c, fmt.Errorf("simtarget: hosts[%d]: %s listed twice", i, h.Name())
		}
	}
	for i, s := range c.Stores {
		if s == nil || !slices.Contains(k.Stores(), s) {
			return c, fmt.Errorf("simtarget: stores[%d] is not a store of this kernel", i)
		}
		if slices.Index(c.Stores, s) != i {
			return c, fmt.Errorf("simtarget: stores[%d]: %s listed twice", i, s.Name())
		}
	}
	for i, r := range c.Routes {
		switch {
		case r.Link.From == "" || r.Link.To == "" || r.Link.From == r.Link.To:
			return c, fmt.Errorf("simtarget: routes[%d]: %s needs two different endpoints", i, r.Link)
		case r.Sim == nil || r.Sim.From().Kernel() != k:
			return c, fmt.Errorf("simtarget: routes[%d]: %s has no sim link of this kernel", i, r.Link)
		}
	}
	if len(c.Routes) > 0 && c.Classify == nil {
		return c, errors.New("simtarget: routes need a Classify function")
	}
	return c, nil
}
