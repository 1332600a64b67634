package simenv

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/sim"
)

// proc is one incarnation of an engine process on a host incarnation.
type proc struct {
	env             *Env
	name            string
	endpoint        *endpoint
	host            *host
	hostIncarnation uint64
	// alive is cleared when the incarnation dies, whichever way: Kill, a newer Spawn, a
	// crash of its host incarnation (host.crashed) or a broken link (host.linkBroken).
	// Every message, timer and completion asks, so it is one flag rather than a walk to
	// the sim host; TestAliveFlagMatchesHost checks it against that walk.
	alive bool
	// crashing is set while host.crashed has marked the incarnation dead but not yet told
	// it; Kill clears it, as a killed process is never told that it crashed.
	crashing bool
	p        engine.Process
}

// Name implements engine.Proc.
func (p *proc) Name() string { return p.name }

// Alive implements engine.Proc: not killed, not replaced, and its host incarnation is up.
func (p *proc) Alive() bool { return p.alive }

// After implements engine.Proc with a host timer, which a host crash disarms; a killed
// process's timers are ignored when they fire.
func (p *proc) After(d time.Duration, fn func()) engine.Timer {
	checkDelay(d)
	if !p.Alive() {
		return stoppedTimer{}
	}
	return timer{p.host.h.After(d, func() {
		if p.Alive() {
			fn()
		}
	})}
}

// NewTimer implements engine.Proc.
func (p *proc) NewTimer(fn func()) engine.Timer {
	if !p.Alive() {
		return stoppedTimer{}
	}
	return timer{p.host.h.NewTimer(func() {
		if p.Alive() {
			fn()
		}
	})}
}

// Send implements engine.Proc.
func (p *proc) Send(to string, msg any) {
	if !p.Alive() {
		return
	}
	if p.env.onSend != nil {
		p.env.onSend(p.name, to, msg)
	}
	ep := p.endpoint.route(p.env, to)
	if ep == nil {
		return // a message to a process the job never placed is lost
	}
	target := ep.current
	if target == nil || !target.Alive() {
		return // a message to a dead process is lost
	}
	env := p.env.newEnvelope()
	*env = envelope{from: p, to: target, msg: msg}
	p.host.links[target.host.index].send(env)
}

// Write implements engine.Proc.
func (p *proc) Write(key string, data []byte, done func(error)) {
	if !p.Alive() {
		return
	}
	// engine.Proc.Write says data is not changed afterwards, so the store keeps it as is.
	complete := func(err error) {
		if p.Alive() {
			done(err)
		}
	}
	if checked := p.env.cfg.LeaderChecked; checked != "" && strings.HasPrefix(key, checked) {
		p.env.storage.PutOwnedIf(p.host.h, key, data, p.standing, complete)
		return
	}
	p.env.storage.PutOwned(p.host.h, key, data, complete)
}

// standing reports whether p is still its process's latest incarnation, dead or alive: a
// write it issued before it died may still land until a successor is spawned.
func (p *proc) standing() bool { return p.endpoint.current == p }

// Read implements engine.Proc.
func (p *proc) Read(key string, done func([]byte, error)) {
	if !p.Alive() {
		return
	}
	// engine.Proc.Read says data is not changed by the reader, so the store lends its own.
	p.env.storage.GetShared(p.host.h, key, func(data []byte, err error) {
		if !p.Alive() {
			return
		}
		switch {
		case errors.Is(err, sim.ErrNotFound):
			err = engine.ErrNotFound
		case errors.Is(err, sim.ErrCorrupt):
			err = engine.ErrCorrupt
		}
		done(data, err)
	})
}

// Delete implements engine.Proc.
func (p *proc) Delete(key string, done func(error)) {
	if !p.Alive() {
		return
	}
	p.env.storage.Delete(p.host.h, key, func(err error) {
		if p.Alive() {
			done(err)
		}
	})
}

// Kill implements engine.Proc.
func (p *proc) Kill() { p.alive, p.crashing = false, false }

type timer struct{ t *sim.Timer }

func (t timer) Stop() bool { return t.t.Stop() }

func (t timer) Reset(d time.Duration) {
	checkDelay(d)
	t.t.Reset(d)
}

// checkDelay holds the engine to its side of the Env: a timer is set for now or later. A
// negative delay is the engine's broken invariant, judged as such, where the kernel's own
// check would only panic.
func checkDelay(d time.Duration) {
	if d < 0 {
		panic(&engine.InvariantError{Message: fmt.Sprintf("engine: a timer set %v in the past", -d)})
	}
}

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool { return false }

func (stoppedTimer) Reset(time.Duration) {}
