package scenarios

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
)

// Network sets how long messages take between hosts. Absent (nil), or without a latency, the
// links between hosts keep the built-in delay: uniform between 500us and 700us (the same as
// {"kind": "uniform", "min": "500us", "max": "700us"}, draw for draw). A link of a host to
// itself (tasks of one host talking) keeps its loopback delay of 20us; only a per-link entry
// changes it.
//
// Every delay is drawn from the stream of the simulator link that carries the message (see
// sim.LinkConfig), which derives from the run's seed, so a model changes no other draw. Links
// stay FIFO whatever the model: a message never overtakes one sent before it on the same
// link, so it may arrive later than its own draw, never earlier, and never after its send
// plus the model's largest delay (MaxDelay).
type Network struct {
	// Latency is the model of every link between two different hosts.
	Latency *Latency `json:"latency,omitempty"`
	// Links override it for the host links that carry the channels they name.
	Links []LinkLatency `json:"links,omitempty"`
}

// LinkLatency gives the channel from task (or process) From to To its own latency model.
// The simulator connects hosts, not tasks, so the model applies to the link from From's host
// to To's, and so to every channel that link carries (as a net.* fault on the channel does,
// see FaultHostLinks): for the processes of a chandy-lamport job, each on its own host, that
// is the channel alone. From or To may be the coordinator, for its control links. Two entries
// on one host link must give the same model.
type LinkLatency struct {
	From    string  `json:"from"`
	To      string  `json:"to"`
	Latency Latency `json:"latency"`
}

// Latency is a distribution of one-way message delays.
type Latency struct {
	Kind string `json:"kind"` // one of LatencyKinds
	// Value is the delay of kind fixed.
	Value Duration `json:"value,omitzero"`
	// Min and Max bound kind uniform, both included.
	Min Duration `json:"min,omitzero"`
	Max Duration `json:"max,omitzero"`
	// Mean is kind exponential's; a draw above Cap is Cap.
	Mean Duration `json:"mean,omitzero"`
	Cap  Duration `json:"cap,omitzero"`
}

// Latency kinds.
const (
	LatencyFixed       = "fixed"       // always Value
	LatencyUniform     = "uniform"     // uniform in [Min, Max]
	LatencyExponential = "exponential" // exponential of mean Mean, cut at Cap
)

// LatencyKinds lists every latency kind.
var LatencyKinds = []string{LatencyFixed, LatencyUniform, LatencyExponential}

// maxLatency bounds every delay a latency model gives: far beyond any network, short enough
// that a run still gets somewhere.
const maxLatency = Duration(10 * time.Second)

// MaxDelay returns the largest delay the model gives.
func (l Latency) MaxDelay() Duration {
	switch l.Kind {
	case LatencyFixed:
		return l.Value
	case LatencyUniform:
		return l.Max
	case LatencyExponential:
		return l.Cap
	}
	return 0
}

// String describes the model in a line, as a plan prints it.
func (l Latency) String() string {
	switch l.Kind {
	case LatencyFixed:
		return fmt.Sprintf("fixed %s", l.Value)
	case LatencyUniform:
		return fmt.Sprintf("uniform %s..%s", l.Min, l.Max)
	case LatencyExponential:
		return fmt.Sprintf("exponential mean %s cap %s", l.Mean, l.Cap)
	}
	return l.Kind
}

// linkConfig is the simulator link of the model, with the capacity of base.
func (l Latency) linkConfig(base sim.LinkConfig) sim.LinkConfig {
	c := sim.LinkConfig{Capacity: base.Capacity}
	switch l.Kind {
	case LatencyFixed:
		c.Latency = time.Duration(l.Value)
	case LatencyUniform:
		c.Latency, c.Jitter = time.Duration(l.Min), time.Duration(l.Max-l.Min)
	case LatencyExponential:
		c.ExponentialMean, c.ExponentialCap = time.Duration(l.Mean), time.Duration(l.Cap)
	}
	return c
}

// applyNetwork sets cfg's links from s's network section.
func (s *Scenario) applyNetwork(cfg *simenv.Config) {
	if s.Network == nil {
		return
	}
	if s.Network.Latency != nil {
		cfg.Link = s.Network.Latency.linkConfig(cfg.Link)
	}
	for _, hl := range s.latencyHostLinks() {
		base := cfg.Link
		if hl.From == hl.To {
			base = cfg.Local
		}
		if cfg.HostLinks == nil {
			cfg.HostLinks = make(map[[2]string]sim.LinkConfig)
		}
		cfg.HostLinks[[2]string{hl.From, hl.To}] = hl.Latency.linkConfig(base)
	}
}

// MaxNetworkDelay returns the largest delay a message between two hosts can be given by the
// network's models (the built-in 700us without any), fault delays aside.
func (s *Scenario) MaxNetworkDelay() Duration {
	worst := Duration(700 * time.Microsecond)
	if s.Network == nil {
		return worst
	}
	if s.Network.Latency != nil {
		worst = s.Network.Latency.MaxDelay()
	}
	for _, l := range s.Network.Links {
		worst = max(worst, l.Latency.MaxDelay())
	}
	return worst
}

// LatencyHostLink is a per-link latency resolved to the simulator link it sets.
type LatencyHostLink struct {
	From, To string // host names
	Latency  Latency
	Entries  []int // the indexes in Network.Links of the entries that name it
}

// latencyHostLinks resolves the network's per-link entries to host links, in the order of
// their first entries. Call it on a validated scenario.
func (s *Scenario) latencyHostLinks() []LatencyHostLink {
	if s.Network == nil || len(s.Network.Links) == 0 {
		return nil
	}
	hostOf := s.endpointHosts()
	var out []LatencyHostLink
	index := map[[2]string]int{}
	for i, l := range s.Network.Links {
		key := [2]string{hostOf(l.From), hostOf(l.To)}
		if j, ok := index[key]; ok {
			out[j].Entries = append(out[j].Entries, i)
			continue
		}
		index[key] = len(out)
		out = append(out, LatencyHostLink{From: key[0], To: key[1], Latency: l.Latency, Entries: []int{i}})
	}
	return out
}

// endpointHosts returns the host of each task of s, and of the coordinator ("" for anything
// else).
func (s *Scenario) endpointHosts() func(string) string {
	g := s.Graph()
	hosts := map[string]string{faults.Coordinator: HostCoordinator}
	for _, task := range g.Tasks() {
		hosts[task] = g.HostOf(task)
	}
	return func(endpoint string) string { return hosts[endpoint] }
}

// validateNetwork checks the latency models; validateNetworkLinks, the names per-link
// entries give, which needs a sound graph.
func (s *Scenario) validateNetwork(p *problems, path string) {
	if s.Network == nil {
		return
	}
	if s.Network.Latency != nil {
		s.Network.Latency.validate(p, path+".latency")
	}
	if len(s.Network.Links) > maxLinks {
		p.add(path+".links", "at most %d entries, not %d", maxLinks, len(s.Network.Links))
		return
	}
	for i, l := range s.Network.Links {
		l.Latency.validate(p, fmt.Sprintf("%s.links[%d].latency", path, i))
	}
}

func (l Latency) validate(p *problems, path string) {
	if !p.oneOf(path+".kind", l.Kind, LatencyKinds) {
		return
	}
	by := "by kind " + l.Kind
	delay := func(field string, d Duration, positive bool) bool {
		switch {
		case d < 0:
			p.add(path+"."+field, "must be >= 0, not %s", d)
		case positive && d == 0:
			p.add(path+"."+field, "is required by kind %s (> 0)", l.Kind)
		case d > maxLatency:
			p.add(path+"."+field, "must be at most %s, not %s", maxLatency, d)
		default:
			return true
		}
		return false
	}
	if l.Kind == LatencyFixed {
		delay("value", l.Value, false)
	} else {
		p.unused(path+".value", l.Value != 0, by)
	}
	if l.Kind == LatencyUniform {
		if delay("min", l.Min, false) && delay("max", l.Max, true) && l.Min > l.Max {
			p.add(path, "min %s is above max %s", l.Min, l.Max)
		}
	} else {
		p.unused(path+".min", l.Min != 0, by)
		p.unused(path+".max", l.Max != 0, by)
	}
	if l.Kind == LatencyExponential {
		if delay("mean", l.Mean, true) && delay("cap", l.Cap, true) && l.Cap < l.Mean {
			p.add(path, "cap %s is below the mean %s", l.Cap, l.Mean)
		}
	} else {
		p.unused(path+".mean", l.Mean != 0, by)
		p.unused(path+".cap", l.Cap != 0, by)
	}
}

// validateNetworkLinks checks that every per-link entry names a data channel or a control
// link, once, and that the entries on one host link agree.
func (s *Scenario) validateNetworkLinks(p *problems, path string, names nameSet) {
	if s.Network == nil || len(s.Network.Links) == 0 {
		return
	}
	sys := s.System()
	routes := map[[2]string]bool{}
	for _, l := range append(sys.Channels, sys.ControlLinks()...) {
		routes[[2]string{l.From, l.To}] = true
	}
	endpoint := func(at, name string) bool {
		switch {
		case name == "":
			p.add(at, "is required")
		case name != faults.Coordinator && !names.tasks[name]:
			p.add(at, "%q is not a task, a process or the coordinator (%s)", name, names.hint)
		default:
			return true
		}
		return false
	}
	seen := map[[2]string]int{}
	for i, l := range s.Network.Links {
		at := fmt.Sprintf("%s.links[%d]", path, i)
		fromOK, toOK := endpoint(at+".from", l.From), endpoint(at+".to", l.To)
		if !fromOK || !toOK {
			continue
		}
		pair := [2]string{l.From, l.To}
		if !routes[pair] {
			p.add(at, "no channel from %q to %q (an entry names a data channel, or a control link between the coordinator and a task)", l.From, l.To)
			continue
		}
		if j, dup := seen[pair]; dup {
			p.add(at, "the channel from %q to %q is already given a latency by links[%d]", l.From, l.To, j)
			continue
		}
		seen[pair] = i
	}
	if len(p.list) > 0 {
		return
	}
	for _, hl := range s.latencyHostLinks() {
		for _, i := range hl.Entries[1:] {
			if l := s.Network.Links[i]; l.Latency != hl.Latency {
				first := s.Network.Links[hl.Entries[0]]
				p.add(fmt.Sprintf("%s.links[%d]", path, i),
					"%s -> %s runs on host link %s->%s, as %s -> %s of links[%d] does, with another latency (%s, not %s): one host link has one model",
					l.From, l.To, hl.From, hl.To, first.From, first.To, hl.Entries[0], l.Latency, hl.Latency)
			}
		}
	}
}
