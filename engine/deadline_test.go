package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// timerWorld is a clock with timers for testing deadlineTimer: a timer event is due at a
// time and carries the sequence number of the arm that scheduled it, as the simulator's
// queue orders events by (time, sequence).
type timerWorld struct {
	now       protocol.Time
	seq       int
	timers    []*worldTimer
	newTimers int
}

type worldTimer struct {
	w     *timerWorld
	fn    func()
	armed bool
	at    protocol.Time
	seq   int
}

func (t *worldTimer) Reset(d time.Duration) {
	t.w.seq++
	t.armed, t.at, t.seq = true, t.w.now+protocol.Time(d), t.w.seq
}

func (t *worldTimer) Stop() bool {
	was := t.armed
	t.armed = false
	return was
}

// next returns the armed timer that goes off first, nil if none.
func (w *timerWorld) next() *worldTimer {
	var first *worldTimer
	for _, t := range w.timers {
		if t.armed && (first == nil || t.at < first.at || t.at == first.at && t.seq < first.seq) {
			first = t
		}
	}
	return first
}

// worldProc is a Proc with timers only; like simenv's, a dead incarnation schedules nothing.
type worldProc struct {
	Proc // the rest is not used
	w    *timerWorld
	dead bool
}

func (p *worldProc) Alive() bool { return !p.dead }

func (p *worldProc) NewTimer(fn func()) Timer {
	if p.dead {
		return deadTimer{}
	}
	p.w.newTimers++
	t := &worldTimer{w: p.w, fn: func() {
		if !p.dead {
			fn()
		}
	}}
	p.w.timers = append(p.w.timers, t)
	return t
}

func (p *worldProc) After(d time.Duration, fn func()) Timer {
	t := p.NewTimer(fn)
	t.Reset(d)
	return t
}

type deadTimer struct{}

func (deadTimer) Reset(time.Duration) {}
func (deadTimer) Stop() bool          { return false }

// referenceDeadlineTimer is deadlineTimer as it was before it kept its timer: a new
// Proc.After, and so a new closure, for every new deadline.
type referenceDeadlineTimer struct {
	timer Timer
	at    protocol.Time
}

func (d *referenceDeadlineTimer) arm(proc Proc, now, at protocol.Time, fire func()) {
	if at == d.at && d.timer != nil {
		return
	}
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.at = at
	if at == protocol.NoDeadline {
		return
	}
	d.timer = proc.After(max(time.Duration(at-now), 0), func() {
		d.timer = nil
		d.at = 0
		fire()
	})
}

// TestDeadlineTimerSchedulesAsTheReference drives deadlineTimer and the reference with the
// same steps (new deadlines, often repeated, time passing, the incarnation dying) and checks
// that the timer events they schedule and the calls they make are the same: keeping one
// timer must change no event of a run.
func TestDeadlineTimerSchedulesAsTheReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type fired struct {
			At  protocol.Time
			Seq int
		}
		type world struct {
			w     timerWorld
			proc  worldProc
			calls []fired
		}
		var ref, got world
		ref.proc.w, got.proc.w = &ref.w, &got.w
		var refTimer referenceDeadlineTimer
		var gotTimer deadlineTimer
		// Both owners re-arm from inside the call, as the coordinator and the task do
		// (their handleReady ends in armTick).
		var deadlines []protocol.Time
		nextDeadline := func() protocol.Time {
			if len(deadlines) == 0 {
				return protocol.NoDeadline
			}
			return deadlines[0]
		}
		var refFire, gotFire func()
		refFire = func() {
			ref.calls = append(ref.calls, fired{ref.w.now, ref.w.seq})
			refTimer.arm(&ref.proc, ref.w.now, nextDeadline(), refFire)
		}
		gotFire = func() {
			got.calls = append(got.calls, fired{got.w.now, got.w.seq})
			gotTimer.set(&got.proc, got.w.now, nextDeadline(), funcOwner(gotFire))
		}
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			switch rapid.IntRange(0, 9).Draw(t, fmt.Sprint("op", step)) {
			case 0, 1, 2, 3: // the protocol stepped; its deadline may have moved
				if rapid.Bool().Draw(t, "none") {
					deadlines = nil
				} else {
					deadlines = []protocol.Time{ref.w.now + protocol.Time(rapid.IntRange(0, 5).Draw(t, "in"))}
				}
				refTimer.arm(&ref.proc, ref.w.now, nextDeadline(), refFire)
				gotTimer.set(&got.proc, got.w.now, nextDeadline(), funcOwner(gotFire))
			case 4, 5, 6, 7, 8: // time passes to the next timer event
				r, g := ref.w.next(), got.w.next()
				if (r == nil) != (g == nil) {
					t.Fatalf("reference timer armed %v, deadlineTimer armed %v", r != nil, g != nil)
				}
				if r == nil {
					continue
				}
				if r.at != g.at {
					t.Fatalf("reference timer at %d, deadlineTimer at %d", r.at, g.at)
				}
				ref.w.now, got.w.now = r.at, g.at
				r.armed, g.armed = false, false
				if len(deadlines) > 0 && deadlines[0] <= ref.w.now {
					deadlines = deadlines[1:]
				}
				r.fn()
				g.fn()
			case 9:
				ref.proc.dead, got.proc.dead = true, true
			}
			if diff := cmp.Diff(ref.calls, got.calls); diff != "" {
				t.Fatalf("calls differ (-reference +deadlineTimer):\n%s", diff)
			}
			if ref.w.seq != got.w.seq {
				t.Fatalf("the reference armed %d timer events, deadlineTimer %d", ref.w.seq, got.w.seq)
			}
		}
		if got.w.newTimers > 1 {
			t.Fatalf("deadlineTimer made %d timers; one per incarnation is its point", got.w.newTimers)
		}
	})
}

// TestDeadlineTimerArmsWithoutAllocating checks the point of the owner: a deadline that
// stays, and a new one, cost no allocation once the timer exists.
func TestDeadlineTimerArmsWithoutAllocating(t *testing.T) {
	var w timerWorld
	proc := &worldProc{w: &w}
	var d deadlineTimer
	owner := &countingOwner{}
	d.set(proc, 0, 10, owner)
	at := protocol.Time(10)
	allocs := testing.AllocsPerRun(100, func() {
		d.set(proc, 0, at, owner) // kept
		at++
		d.set(proc, 0, at, owner) // re-armed
	})
	if allocs != 0 {
		t.Errorf("arming a deadline allocated %v times", allocs)
	}
	w.next().fn()
	if owner.calls != 1 || d.pending {
		t.Errorf("after the timer went off: %d calls, pending %v; want 1 call, none pending", owner.calls, d.pending)
	}
}

type countingOwner struct{ calls int }

func (o *countingOwner) deadlinePassed() { o.calls++ }

// funcOwner lets a plain function own a deadline in tests.
type funcOwner func()

func (f funcOwner) deadlinePassed() { f() }
