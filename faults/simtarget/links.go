package simtarget

import (
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// linkOp is what one active effect does to a sim link.
type linkOp uint8

const (
	opCut       linkOp = iota + 1 // partition of a control link: messages are lost
	opHold                        // clog, or partition of a data channel: messages wait
	opDelay                       // extra latency
	opReorder                     // records may overtake each other
	opDrop                        // drop messages of a class, with a probability
	opDuplicate                   // duplicate messages of a class, with a probability
)

// linkRule is one active effect on one sim link.
type linkRule struct {
	id          faults.EffectID
	op          linkOp
	class       Class         // opDrop, opDuplicate
	probability float64       // opDrop, opDuplicate
	delay       time.Duration // opDelay
}

// linkState is the World's view of one sim link: the effects active on it, in id order.
type linkState struct {
	w     *World
	link  *sim.Link
	rules []linkRule
	mark  uint64 // == w.mark while collected for the current effect
	// control: some route on the link is a control link, so a partition loses its messages
	// rather than holding them.
	control bool

	// The filters handed to the link, built once so that turning them on allocates nothing.
	dropFilter, duplicateFilter func(msg any) bool
}

func newLinkState(w *World, l *sim.Link) *linkState {
	s := &linkState{w: w, link: l}
	s.dropFilter = func(msg any) bool { return s.decide(opDrop, msg) }
	s.duplicateFilter = func(msg any) bool { return s.decide(opDuplicate, msg) }
	return s
}

// apply sets the link's controls from the active rules. Every control is set every time, so
// the link's state is a function of the rule list alone.
func (s *linkState) apply() {
	var cut, hold, reorder, drop, duplicate bool
	var delay time.Duration
	for _, r := range s.rules {
		switch r.op {
		case opCut:
			cut = true
		case opHold:
			hold = true
		case opDelay:
			delay += r.delay
		case opReorder:
			reorder = true
		case opDrop:
			drop = true
		case opDuplicate:
			duplicate = true
		}
	}
	s.link.SetPartitioned(cut)
	s.link.SetClogged(hold)
	s.link.SetExtraLatency(delay)
	var window time.Duration
	if reorder {
		window = s.w.config.ReorderWindow
	}
	s.link.SetReorder(window)
	s.link.SetDropFilter(pick(drop, s.dropFilter))
	s.link.SetDuplicateFilter(pick(duplicate, s.duplicateFilter))
}

func pick(on bool, filter func(any) bool) func(any) bool {
	if on {
		return filter
	}
	return nil
}

// decide is the drop or duplicate filter: rules of op whose class matches msg are visited in
// id order, each drawing one number, until one hits. A message no rule matches costs the
// classification only, and draws nothing.
func (s *linkState) decide(op linkOp, msg any) bool {
	class := s.w.config.Classify(msg)
	for _, r := range s.rules {
		if r.op == op && r.class == class && s.w.netRand.Bernoulli(r.probability) {
			return true
		}
	}
	return false
}

func (s *linkState) add(r linkRule) {
	s.rules = append(s.rules, r)
	s.apply()
}

func (s *linkState) remove(id faults.EffectID) {
	s.rules = withoutID(s.rules, id, func(r linkRule) faults.EffectID { return r.id })
	s.apply()
}

func (s *linkState) heal() {
	s.rules = nil
	s.apply()
	s.link.Repair()
}

// linksFor returns the distinct links of the routes that match pattern, in route order;
// with dataOnly, of data channels only.
func (w *World) linksFor(dataOnly bool, patterns ...faults.Link) []*linkState {
	w.mark++
	var out []*linkState
	for _, p := range patterns {
		for _, r := range w.routes {
			if r.link.mark == w.mark || !r.route.matches(p) || (dataOnly && r.route.Control()) {
				continue
			}
			r.link.mark = w.mark
			out = append(out, r.link)
		}
	}
	return out
}

// startOnLinks adds rule (with id) to every link in links and records the undo.
func (w *World) startOnLinks(id faults.EffectID, links []*linkState, rule func(*linkState) linkRule) {
	for _, s := range links {
		r := rule(s)
		r.id = id
		s.add(r)
	}
	w.begin(id, func() {
		for _, s := range links {
			s.remove(id)
		}
	})
}

func fixed(r linkRule) func(*linkState) linkRule { return func(*linkState) linkRule { return r } }

// DropMessages drops messages of class on every route of link (an empty end matches any
// endpoint), each with probability, decided at Send from the World's network stream.
func (w *World) DropMessages(id faults.EffectID, link faults.Link, class faults.Message, probability float64) {
	w.startOnLinks(id, w.linksFor(false, link),
		fixed(linkRule{op: opDrop, class: MessageClass(class), probability: probability}))
}

// BreakChannel breaks the sim links of the routes from link.From to link.To, as a lost
// connection: messages in flight are lost and both end hosts are told through their
// link-broken handlers. The links stay broken until the glue repairs them (a reconnection,
// when the restarted tasks open the channel again) or until Heal.
func (w *World) BreakChannel(link faults.Link) {
	for _, s := range w.linksFor(false, link) {
		s.link.Break()
	}
}

// DelayLink adds delayNanos to the latency of every message sent on link's routes until
// End(id). The kernel keeps FIFO order, so messages sent after the window still wait behind
// the delayed ones.
func (w *World) DelayLink(id faults.EffectID, link faults.Link, delayNanos int64) {
	w.startOnLinks(id, w.linksFor(false, link), fixed(linkRule{op: opDelay, delay: time.Duration(delayNanos)}))
}

// Partition cuts link, and its reverse unless oneWay, until End(id). On a control link
// messages sent across, or arriving, meanwhile are lost; on a data channel they are held and
// delivered in order when the last partition or clog on it ends.
func (w *World) Partition(id faults.EffectID, link faults.Link, oneWay bool) {
	patterns := []faults.Link{link}
	if !oneWay {
		patterns = append(patterns, faults.Link{From: link.To, To: link.From})
	}
	links := w.linksFor(false, patterns...)
	w.startOnLinks(id, links, func(s *linkState) linkRule {
		if s.control {
			return linkRule{op: opCut}
		}
		return linkRule{op: opHold}
	})
}

// Clog holds every message on link's routes until End(id), then delivers them in order.
func (w *World) Clog(id faults.EffectID, link faults.Link) {
	w.startOnLinks(id, w.linksFor(false, link), fixed(linkRule{op: opHold}))
}

// DropRecords silently loses data records on the data channels link matches, each with
// probability (out of model).
func (w *World) DropRecords(id faults.EffectID, link faults.Link, probability float64) {
	w.startOnLinks(id, w.linksFor(true, link), fixed(linkRule{op: opDrop, class: ClassRecord, probability: probability}))
}

// DuplicateRecords silently delivers data records on the data channels link matches twice,
// each with probability (out of model).
func (w *World) DuplicateRecords(id faults.EffectID, link faults.Link, probability float64) {
	w.startOnLinks(id, w.linksFor(true, link), fixed(linkRule{op: opDuplicate, class: ClassRecord, probability: probability}))
}

// ReorderRecords lets messages sent on the data channels link matches overtake each other
// until End(id): each gets an extra uniform delay in [0, Config.ReorderWindow] from the
// link's own stream (out of model). The kernel reorders a whole link, so barriers and other
// messages on the channel may move too; that is out of model either way.
func (w *World) ReorderRecords(id faults.EffectID, link faults.Link) {
	w.startOnLinks(id, w.linksFor(true, link), fixed(linkRule{op: opReorder}))
}
