package sim

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// crashWorld is the state machine of TestNothingRunsOnACrashedHost: three hosts in a full
// mesh and a store, under random sends, timers, storage operations, crashes, restarts, pauses
// and runs of the clock. Every callback checks that its own incarnation is up and not paused,
// and every message checks that it was sent after its receiver's incarnation started.
type crashWorld struct {
	t       *rapid.T
	k       *Kernel
	hosts   []*Host
	store   *Store
	started []Time // per host: when its current incarnation started
}

type stamped struct {
	sentAt Time
	n      int
}

func newCrashWorld(t *rapid.T) *crashWorld {
	w := &crashWorld{t: t, k: New(Config{Seed: rapid.Uint64().Draw(t, "seed")})}
	w.store = w.k.NewStore("store", StoreConfig{Latency: ms, Jitter: 3 * ms})
	for i := range 3 {
		w.hosts = append(w.hosts, w.k.AddHost(fmt.Sprintf("h%d", i), w.boot))
		w.started = append(w.started, 0)
	}
	for _, from := range w.hosts {
		for _, to := range w.hosts {
			if from != to {
				w.k.Connect(from.Name()+"->"+to.Name(), from, to, LinkConfig{Latency: ms, Jitter: 4 * ms, Capacity: 8})
			}
		}
	}
	for _, h := range w.hosts {
		h.Start()
	}
	return w
}

func (w *crashWorld) boot(h *Host) {
	w.started[h.ID()] = w.k.Now()
	h.SetReceiver(func(l *Link, msg any) {
		w.check(h, h.Incarnation(), "receive")
		if m := msg.(stamped); m.sentAt < w.started[h.ID()] {
			w.t.Fatalf("%s incarnation %d (started %v) got a message sent at %v", h.Name(), h.Incarnation(), w.started[h.ID()], m.sentAt)
		}
	})
	// A heartbeat keeps every incarnation busy: a timer that re-arms itself and sends.
	incarnation := h.Incarnation()
	random := w.k.Stream("heartbeat/" + h.Name())
	var beat *Timer
	beat = h.NewTimer(func() {
		w.check(h, incarnation, "heartbeat")
		out := h.Outbound()
		_ = out[random.Choice(len(out))].Send(stamped{sentAt: w.k.Now()})
		beat.Reset(random.DurationBetween(ms, 3*ms))
	})
	beat.Reset(random.DurationBetween(0, 3*ms))
}

// check fails the test if a callback of host h's incarnation runs when it must not.
func (w *crashWorld) check(h *Host, incarnation uint64, what string) {
	switch {
	case !h.Up():
		w.t.Fatalf("%s of %s ran while it is down", what, h.Name())
	case h.Incarnation() != incarnation:
		w.t.Fatalf("%s of %s incarnation %d ran in incarnation %d", what, h.Name(), incarnation, h.Incarnation())
	case h.Paused():
		w.t.Fatalf("%s of %s ran while it is paused", what, h.Name())
	}
}

func (w *crashWorld) host(t *rapid.T) *Host {
	return w.hosts[rapid.IntRange(0, len(w.hosts)-1).Draw(t, "host")]
}

func (w *crashWorld) upHost(t *rapid.T) *Host {
	h := w.host(t)
	if !h.Up() {
		t.Skip("host is down")
	}
	return h
}

func (w *crashWorld) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"timers": func(t *rapid.T) {
			h := w.upHost(t)
			incarnation := h.Incarnation()
			for range rapid.IntRange(1, 4).Draw(t, "timers") {
				h.After(time.Duration(rapid.IntRange(0, 10).Draw(t, "ms"))*ms, func() { w.check(h, incarnation, "timer") })
			}
		},
		"store": func(t *rapid.T) {
			h := w.upHost(t)
			incarnation := h.Incarnation()
			for range rapid.IntRange(1, 4).Draw(t, "operations") {
				key := fmt.Sprintf("k%d", rapid.IntRange(0, 3).Draw(t, "key"))
				if rapid.Bool().Draw(t, "put") {
					w.store.Put(h, key, []byte(h.Name()), func(error) { w.check(h, incarnation, "put completion") })
				} else {
					w.store.Get(h, key, func([]byte, error) { w.check(h, incarnation, "get completion") })
				}
			}
		},
		"crash": func(t *rapid.T) { w.host(t).Crash() },
		"start": func(t *rapid.T) {
			h := w.host(t)
			if h.Up() {
				t.Skip("host is up")
			}
			h.Start()
		},
		"pause": func(t *rapid.T) {
			w.host(t).Pause(time.Duration(rapid.IntRange(1, 10).Draw(t, "ms")) * ms)
		},
		"run": func(t *rapid.T) {
			w.k.RunFor(time.Duration(rapid.IntRange(0, 8).Draw(t, "ms")) * ms)
		},
		"": func(t *rapid.T) {
			for _, e := range queueEntries(&w.k.queue) {
				if s := w.k.queue.handles[e.handle].slot; s != nil && s.owner != nil && !s.owner.Up() {
					t.Fatalf("an event for down host %s is queued", s.owner.Name())
				}
			}
		},
	}
}

func TestNothingRunsOnACrashedHost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := newCrashWorld(t)
		t.Repeat(w.actions())
		w.k.RunFor(20 * ms)
	})
}

func TestPauseDefersInOrder(t *testing.T) {
	k := New(Config{})
	var fired []string
	var h *Host
	h = k.AddHost("h", func(h *Host) {
		h.After(2*ms, func() { fired = append(fired, fmt.Sprint("a@", k.Now())) })
		h.After(3*ms, func() { fired = append(fired, fmt.Sprint("b@", k.Now())) })
	})
	h.Start()
	k.After(ms, func() { h.Pause(5 * ms) })
	k.After(4*ms, func() { h.Pause(time.Millisecond) }) // ends sooner than the pause in force: no effect
	k.After(6*ms, func() { fired = append(fired, fmt.Sprint("kernel@", k.Now())) })
	k.Run()
	// The kernel timer was scheduled for 6ms before the host's timers were deferred there.
	if want := []string{"kernel@6000000ns", "a@6000000ns", "b@6000000ns"}; !slices.Equal(fired, want) {
		t.Fatalf("fired %v, want %v", fired, want)
	}
}

func TestStartTwicePanics(t *testing.T) {
	k := New(Config{})
	h := k.AddHost("h", func(*Host) {})
	h.Start()
	defer func() {
		if recover() == nil {
			t.Fatal("starting a running host did not panic")
		}
	}()
	h.Start()
}

// TestSelfCrashLeavesNoTrace: a host that crashes itself in the middle of its own event (as
// an event-triggered fault does) may go on running that event's code; none of it may take
// effect, and none of it may panic.
func TestSelfCrashLeavesNoTrace(t *testing.T) {
	k := New(Config{})
	disk := k.NewStore("disk", StoreConfig{Latency: ms})
	var afterCrash []string
	victim := k.AddHost("victim", func(h *Host) {
		h.After(ms, func() {
			h.Crash()
			if err := h.Outbound()[0].Send("late"); err != ErrHostDown {
				afterCrash = append(afterCrash, fmt.Sprint("send: ", err))
			}
			timer := h.After(ms, func() { afterCrash = append(afterCrash, "timer fired") })
			if timer.Armed() {
				afterCrash = append(afterCrash, "timer armed")
			}
			h.SetReceiver(func(*Link, any) { afterCrash = append(afterCrash, "received") })
			disk.Put(h, "k", []byte("v"), func(error) { afterCrash = append(afterCrash, "put completed") })
		})
	})
	peer := k.AddHost("peer", func(h *Host) {})
	k.Connect("victim->peer", victim, peer, LinkConfig{})
	toVictim := k.Connect("peer->victim", peer, victim, LinkConfig{})
	victim.Start()
	peer.Start()
	k.At(TimeAt(2*ms), func() { mustSend(t, toVictim, "to the dead") })
	if stop := k.Run(); stop != StopIdle {
		t.Fatalf("stop = %v", stop)
	}
	if len(afterCrash) > 0 {
		t.Fatalf("after the self-crash: %v", afterCrash)
	}
	if keys := disk.Keys(""); len(keys) != 0 {
		t.Fatalf("a put issued after the crash reached the store: %v", keys)
	}
}
