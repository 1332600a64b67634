package live

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// recorder is an engine.Process that notes what it is told.
type recorder struct{ got []string }

func (r *recorder) Receive(from string, msg any) { r.got = append(r.got, msg.(string)) }
func (r *recorder) Crashed()                     { r.got = append(r.got, "crashed") }

// TestTimersOfOneDeadlineFireInArmingOrder: the engine's external store delays every
// request by the same latency on a timer of its own and counts on applying them in the
// order they came, as the simulator fires timers of one deadline. A time.AfterFunc per
// timer does not keep that order (each fires on a goroutine of its own); this failed so,
// with "records lost on the way", before the timer queue.
func TestTimersOfOneDeadlineFireInArmingOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := New(trace.NewRecorder(nil, trace.Header{}), Config{Seed: 1})
		var fired []int
		const n = 500
		env.Do(func() {
			p, _ := env.Spawn("store", &recorder{})
			for i := range n {
				p.After(time.Millisecond, func() { fired = append(fired, i) })
			}
			stopped := p.After(time.Millisecond, func() { t.Error("a stopped timer fired") })
			if !stopped.Stop() || stopped.Stop() {
				t.Error("Stop should report pending once, then not")
			}
			early := p.NewTimer(func() { fired = append(fired, -1) })
			early.Reset(time.Hour)
			early.Reset(0) // re-armed for now: fires first, ahead of the millisecond ones
		})
		time.Sleep(2 * time.Millisecond) // fake time, in the bubble
		synctest.Wait()
		env.Do(func() {
			if len(fired) != n+1 || fired[0] != -1 {
				t.Fatalf("fired %d timers, first %v", len(fired), fired[:min(len(fired), 1)])
			}
			for i, v := range fired[1:] {
				if v != i {
					t.Fatalf("timer %d fired in place %d", v, i)
				}
			}
		})
		env.Stop()
	})
}

// TestDeadIncarnationGetsNothing: after a crash, a newer Spawn or a Kill, an incarnation's
// messages, timers and storage completions are dropped, and only a crash is told.
func TestDeadIncarnationGetsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := New(trace.NewRecorder(nil, trace.Header{}), Config{Seed: 1, StorageLatency: time.Millisecond})
		first, second := &recorder{}, &recorder{}
		env.Do(func() {
			a, _ := env.Spawn("a", first)
			b, _ := env.Spawn("b", &recorder{})
			b.Send("a", "m1")
			a.After(time.Millisecond, func() { t.Error("a dead incarnation's timer fired") })
			a.Write("k", []byte("v"), func(error) { t.Error("a dead incarnation's write completed") })
			if !env.CrashTask("a", 0) || env.CrashTask("a", 1) {
				t.Error("CrashTask should hit a live incarnation once")
			}
			b.Send("a", "lost: a is dead")
			a2, _ := env.Spawn("a", second)
			b.Send("a", "m2")
			a2.Read("k", func(data []byte, err error) {
				if string(data) != "v" || err != nil {
					t.Errorf("a write that was made is durable across a crash: read %q, %v", data, err)
				}
			})
		})
		time.Sleep(10 * time.Millisecond)
		synctest.Wait()
		env.Do(func() {
			if len(first.got) != 1 || first.got[0] != "crashed" {
				t.Errorf("the crashed incarnation got %q, want only its crash", first.got)
			}
			if len(second.got) != 1 || second.got[0] != "m2" {
				t.Errorf("the new incarnation got %q, want only what was sent to it", second.got)
			}
		})
		env.Stop()
		if err := env.Do(func() {}); err != ErrStopped {
			t.Errorf("Do after Stop: %v", err)
		}
	})
}
