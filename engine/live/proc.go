package live

import (
	"fmt"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/engine"
)

// proc is one incarnation of an engine process: a goroutine (loop) and its mailbox.
type proc struct {
	env  *Env
	name string
	p    engine.Process
	// alive is cleared, under the engine lock, when the incarnation dies (Kill, a newer
	// Spawn, a crash, Stop); done is closed at the same moment, so that the goroutine
	// returns even while its mailbox is empty.
	alive bool
	done  chan struct{}
	box   mailbox
	// timers are the incarnation's armed timers, earliest first (timer.go).
	timers timerQueue
}

func newProc(e *Env, name string, p engine.Process) *proc {
	return &proc{env: e, name: name, p: p, alive: true, done: make(chan struct{}), box: mailbox{wake: make(chan struct{}, 1)}}
}

// die ends the incarnation. The caller holds the engine lock.
func (p *proc) die() {
	if p.alive {
		p.alive = false
		close(p.done)
	}
}

// loop is the incarnation's goroutine: it runs what arrives in the mailbox, one item at a
// time and each under the engine lock, until the incarnation dies.
func (p *proc) loop() {
	defer p.env.wg.Done()
	var batch []item
	for {
		select {
		case <-p.done:
			return
		case <-p.box.wake:
		}
		batch = p.box.take(batch[:0])
		for i := range batch {
			ok := p.env.deliver(p, &batch[i])
			batch[i] = item{} // let go of the message
			if !ok {
				return
			}
		}
	}
}

// deliver runs one item of p's mailbox and reports whether p is still alive.
func (e *Env) deliver(p *proc, it *item) bool {
	e.enter()
	defer e.mu.Unlock()
	if !p.alive {
		return false
	}
	switch {
	case it.tick:
		p.timers.fire(p)
	case it.fn != nil:
		e.call(p.name, it.fn)
	default:
		e.call(p.name, func() { p.p.Receive(it.from, it.msg) })
	}
	return p.alive
}

// item is one piece of work for a process: a message (from, msg), a storage completion
// (fn), or a tick, which runs the timers that are due.
type item struct {
	from string
	msg  any
	fn   func()
	tick bool
}

// maxMailbox bounds a mailbox. The engine bounds what it sends (credits for data, one
// request at a time for control), so a mailbox this full means a process that sends
// without end: a bug, reported as a panic of the sender.
const maxMailbox = 1 << 20

// mailbox is a FIFO queue without a fixed capacity, so that a sender, which holds the
// engine lock, never waits for a receiver, which needs the lock to make room.
type mailbox struct {
	mu    sync.Mutex
	items []item
	wake  chan struct{} // holds a token while items may be waiting
}

func (b *mailbox) put(it item) {
	b.mu.Lock()
	b.items = append(b.items, it)
	n := len(b.items)
	b.mu.Unlock()
	if n > maxMailbox && it.msg != nil {
		panic(fmt.Sprintf("live: a mailbox holds %d messages, the last from %s", n, it.from))
	}
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take moves everything waiting into spare (empty) and returns it.
func (b *mailbox) take(spare []item) []item {
	b.mu.Lock()
	items := b.items
	b.items = spare
	b.mu.Unlock()
	return items
}

// Name implements engine.Proc.
func (p *proc) Name() string { return p.name }

// Alive implements engine.Proc.
func (p *proc) Alive() bool { return p.alive }

// Kill implements engine.Proc.
func (p *proc) Kill() { p.die() }

// Send implements engine.Proc: into the mailbox of the receiver's current incarnation, if
// it is alive; a message to a dead or unknown process is lost.
func (p *proc) Send(to string, msg any) {
	if !p.alive {
		return
	}
	target := p.env.procs[to]
	if target == nil || !target.alive {
		return
	}
	target.box.put(item{from: p.name, msg: msg})
}

// After implements engine.Proc.
func (p *proc) After(d time.Duration, fn func()) engine.Timer {
	t := &timer{p: p, fn: fn, index: -1}
	t.Reset(d)
	return t
}

// NewTimer implements engine.Proc.
func (p *proc) NewTimer(fn func()) engine.Timer { return &timer{p: p, fn: fn, index: -1} }

// Write implements engine.Proc: stored at once, reported after Config.StorageLatency.
func (p *proc) Write(key string, data []byte, done func(error)) {
	if !p.alive {
		return
	}
	p.env.storage[key] = data
	p.complete(func() { done(nil) })
}

// Read implements engine.Proc: what is stored now, reported after Config.StorageLatency.
func (p *proc) Read(key string, done func([]byte, error)) {
	if !p.alive {
		return
	}
	data, ok := p.env.storage[key]
	if !ok {
		p.complete(func() { done(nil, engine.ErrNotFound) })
		return
	}
	p.complete(func() { done(data, nil) })
}

// Delete implements engine.Proc.
func (p *proc) Delete(key string, done func(error)) {
	if p.alive {
		delete(p.env.storage, key)
		p.complete(func() { done(nil) })
	}
}

// complete posts a storage completion into the mailbox, or after Config.StorageLatency
// on a timer, so that completions come back in the order of the calls.
func (p *proc) complete(fn func()) {
	if d := p.env.cfg.StorageLatency; d > 0 {
		p.After(d, fn)
		return
	}
	p.box.put(item{fn: fn})
}
