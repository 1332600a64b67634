package simenv

import (
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/sim"
)

// host is one sim host and the engine processes placed on it.
type host struct {
	env   *Env
	h     *sim.Host
	index int
	procs []*proc    // incarnations spawned on the current host incarnation
	links []*outLink // to every host, by host index
}

// outLink is a link from this host with an outbox for messages the link had no room for,
// so that a full link delays messages instead of losing them, in order.
type outLink struct {
	l      *sim.Link
	outbox []*envelope
}

// envelope carries a message between two process incarnations. The sender is kept as its
// incarnation, not its name: 32 bytes instead of 48 for what every message carries.
type envelope struct {
	from *proc
	to   *proc
	msg  any
}

// CopyMessage implements sim.MessageCopier: a duplicated envelope is delivered the second
// time as a new envelope around a copy of the engine message, if the engine message asks
// for one (a network buffer, whose records array the receiver reuses once consumed).
func (e *envelope) CopyMessage() any {
	c := *e
	if m, ok := e.msg.(sim.MessageCopier); ok {
		c.msg = m.CopyMessage()
	}
	return &c
}

// envelopeBlock is how many envelopes newEnvelope allocates at once.
const envelopeBlock = 128

// newEnvelope returns a new, zero envelope. Every message needs one, so they are cut from
// blocks: one allocation per block instead of one per message. An envelope is never reused
// (a duplicated message is delivered the second time in a copy, CopyMessage), and a block
// is garbage once none of its envelopes is referenced any more, as messages in flight are
// short-lived.
func (e *Env) newEnvelope() *envelope {
	if len(e.envelopes) == 0 {
		e.envelopes = make([]envelope, envelopeBlock)
	}
	env := &e.envelopes[0]
	e.envelopes = e.envelopes[1:]
	return env
}

// boot sets up a new host incarnation and restarts the daemons placed on the host.
func (h *host) boot(sh *sim.Host) {
	sh.SetReceiver(h.receive)
	sh.SetWritable(h.writable)
	sh.SetLinkBroken(h.linkBroken)
	h.procs = nil
	if h.env.rt == nil || sh.Incarnation() == 1 {
		return // the first start: Runtime.Start spawns everything
	}
	for _, name := range h.env.processesOn(h) {
		h.env.restartDaemon(name)
	}
}

// crashed tells every process of the crashed incarnation that it died (killAndTell).
func (h *host) crashed(incarnation uint64) {
	procs := h.procs
	h.procs = nil
	for _, ol := range h.links {
		ol.outbox = nil
	}
	killAndTell(procs, func(p *proc) bool { return p.hostIncarnation == incarnation })
}

// killAndTell kills the live processes of procs that match and then tells each that it
// crashed. All of them are dead before the first is told, so a Crashed that asks whether
// another of them is alive hears no.
func killAndTell(procs []*proc, match func(*proc) bool) {
	var dying []*proc
	for _, p := range procs {
		if p.alive && match(p) {
			p.alive, p.crashing = false, true
			dying = append(dying, p)
		}
	}
	for _, p := range dying {
		if p.crashing { // not killed by an earlier one's Crashed meanwhile
			p.crashing = false
			p.p.Crashed()
		}
	}
}

func (h *host) receive(l *sim.Link, msg any) {
	env := msg.(*envelope)
	if env.to.Alive() {
		env.to.p.Receive(env.from.name, env.msg)
	}
}

func (h *host) writable(l *sim.Link) {
	h.links[h.env.byName[l.To().Name()].index].flush()
}

// linkBroken fails the host's tasks: a lost connection fails the tasks that used it, and
// one host's tasks share its connections.
func (h *host) linkBroken(l *sim.Link) {
	for _, ol := range h.links {
		if ol.l == l {
			ol.outbox = nil
		}
	}
	killAndTell(h.procs, func(p *proc) bool { return isTask(p.name) })
}

func (ol *outLink) send(env *envelope) {
	if len(ol.outbox) > 0 {
		ol.outbox = append(ol.outbox, env)
		return
	}
	if err := ol.l.Send(env); err == sim.ErrLinkFull { // sim returns its sentinels unwrapped
		ol.outbox = append(ol.outbox, env)
	}
}

func (ol *outLink) flush() {
	for len(ol.outbox) > 0 {
		if err := ol.l.Send(ol.outbox[0]); err == sim.ErrLinkFull {
			return
		}
		ol.outbox[0] = nil
		ol.outbox = ol.outbox[1:]
	}
	ol.outbox = nil
}

// isTask reports whether a process name is a task id rather than a daemon.
func isTask(name string) bool {
	switch {
	case name == "coordinator", name == "extstore", strings.HasPrefix(name, "reader-"):
		return false
	}
	return true
}

// processesOn returns the daemons placed on h, in a fixed order.
func (e *Env) processesOn(h *host) []string {
	var names []string
	for _, name := range e.daemons {
		if e.endpoints[name].host == h {
			names = append(names, name)
		}
	}
	return names
}

// restartDaemon restarts a daemon process after its host came back.
func (e *Env) restartDaemon(name string) {
	switch {
	case name == "coordinator":
		_ = e.rt.StartCoordinator()
	case name == "extstore":
		_ = e.rt.StartStore()
	case strings.HasPrefix(name, "reader-"):
		i, err := strconv.Atoi(strings.TrimPrefix(name, "reader-"))
		if err == nil {
			_ = e.rt.StartReader(i)
		}
	}
}

// Unwrap returns the sender and receiver process names and the engine message inside a
// message seen on a sim link (by a fault filter or the kernel observer), and false for a
// value simenv did not send.
func Unwrap(msg any) (from, to string, payload any, ok bool) {
	env, ok := msg.(*envelope)
	if !ok {
		return "", "", nil, false
	}
	return env.from.name, env.to.name, env.msg, true
}
