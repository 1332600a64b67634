package sim

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestTimersFireInTimeThenScheduleOrder runs random timer workloads, in which firing timers
// arm and cancel others (often at the same instant), in lockstep with a dumb model: a list of
// armed timers with their deadlines and the order in which they were armed. Every firing must
// be the model's earliest (deadline, arming order); cancelled timers must never fire.
func TestTimersFireInTimeThenScheduleOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := New(Config{Seed: 1, MaxEvents: 200})
		const timerCount = 8
		type armed struct {
			on    bool
			at    Time
			order int
		}
		model := make([]armed, timerCount)
		armings := 0
		timers := make([]*Timer, timerCount)
		act := func(t *rapid.T) {
			i := rapid.IntRange(0, timerCount-1).Draw(t, "timer")
			if rapid.IntRange(0, 3).Draw(t, "cancel") == 0 {
				if timers[i].Stop() != model[i].on {
					t.Fatalf("Stop of timer %d reported the wrong armed state", i)
				}
				model[i] = armed{}
				return
			}
			d := time.Duration(rapid.IntRange(0, 5).Draw(t, "delay"))
			armings++
			if timers[i].Reset(d) != model[i].on {
				t.Fatalf("Reset of timer %d reported the wrong armed state", i)
			}
			model[i] = armed{on: true, at: k.Now().Add(d), order: armings}
		}
		earliest := func() int {
			best := -1
			for i, a := range model {
				if a.on && (best < 0 || a.at < model[best].at || (a.at == model[best].at && a.order < model[best].order)) {
					best = i
				}
			}
			return best
		}
		for i := range timers {
			timers[i] = k.NewTimer(func() {
				if want := earliest(); want != i {
					t.Fatalf("timer %d fired at %v; model expects timer %d", i, k.Now(), want)
				}
				if model[i].at != k.Now() {
					t.Fatalf("timer %d fired at %v, armed for %v", i, k.Now(), model[i].at)
				}
				model[i] = armed{}
				for range rapid.IntRange(0, 3).Draw(t, "actions") {
					act(t)
				}
			})
		}
		for range rapid.IntRange(1, 10).Draw(t, "initial actions") {
			act(t)
		}
		switch stop := k.Run(); stop {
		case StopIdle:
			if i := earliest(); i >= 0 {
				t.Fatalf("run went idle with timer %d armed in the model", i)
			}
		case StopLimitEvents:
			if k.Events() != 200 {
				t.Fatalf("event limit verdict after %d events", k.Events())
			}
		default:
			t.Fatalf("unexpected stop %v", stop)
		}
	})
}

func TestTimerDeadlineAndInertAfterCrash(t *testing.T) {
	k := New(Config{})
	var timer *Timer
	fired := 0
	h := k.AddHost("h", func(h *Host) {
		if timer == nil {
			timer = h.After(5*time.Millisecond, func() { fired++ })
		}
	})
	h.Start()
	if at, ok := timer.Deadline(); !ok || at != TimeAt(5*time.Millisecond) {
		t.Fatalf("deadline = %v %v, want 5ms", at, ok)
	}
	h.Restart()
	if timer.Armed() {
		t.Fatal("a crash left the old incarnation's timer armed")
	}
	if timer.Reset(time.Millisecond) || timer.Armed() {
		t.Fatal("the old incarnation's timer could be re-armed after a restart")
	}
	if stop := k.Run(); stop != StopIdle || fired != 0 {
		t.Fatalf("stop=%v fired=%d, want idle and 0", stop, fired)
	}
}

func TestHostTimerSkew(t *testing.T) {
	cases := []struct {
		ppm    int64
		offset time.Duration
		d      time.Duration
		want   time.Duration
	}{
		{0, 0, 10 * time.Millisecond, 10 * time.Millisecond},
		{1_000_000, 0, 10 * time.Millisecond, 20 * time.Millisecond},
		{-500_000, 0, 10 * time.Millisecond, 5 * time.Millisecond},
		{100, time.Microsecond, time.Second, time.Second + 100*time.Microsecond + time.Microsecond},
		{0, -time.Hour, time.Second, 0},
		{1_000_000, 0, time.Duration(1<<62 + 1), time.Duration(1<<63 - 1)},
	}
	for _, c := range cases {
		k := New(Config{})
		var firedAt Time = -1
		h := k.AddHost("h", func(h *Host) {})
		h.SetTimerSkew(c.ppm, c.offset)
		h.Start()
		timer := h.After(c.d, func() { firedAt = k.Now() })
		at, _ := timer.Deadline()
		if want := TimeAt(c.want); at != want {
			t.Errorf("skew %d ppm %v on %v: deadline %v, want %v", c.ppm, c.offset, c.d, at, want)
		}
		if c.want < time.Hour {
			k.Run()
			if firedAt != TimeAt(c.want) {
				t.Errorf("skew %d ppm %v on %v: fired at %v", c.ppm, c.offset, c.d, firedAt)
			}
		}
	}
}

// TestHostTimerSkewKeepsWaitsPositive: a timer of a fast host asked to wait a nanosecond
// still waits one. Rounding it down to nothing let a host that re-arms a timer for what is
// left of its deadline (the engine's coordinator, under clock.skew -1ppm) fire it at the
// same instant without end, until the run hit its event limit.
func TestHostTimerSkewKeepsWaitsPositive(t *testing.T) {
	for _, ppm := range []int64{-1, -500_000} {
		k := New(Config{MaxEvents: 1000})
		h := k.AddHost("h", func(h *Host) {})
		h.SetTimerSkew(ppm, 0)
		h.Start()
		deadline := TimeAt(10 * time.Microsecond)
		fires := 0
		var rearm func()
		timer := h.NewTimer(func() { fires++; rearm() })
		rearm = func() {
			if now := k.Now(); now < deadline {
				timer.Reset(deadline.Sub(now))
			}
		}
		rearm()
		if stop := k.Run(); stop != StopIdle {
			t.Errorf("skew %d ppm: stop %v after %d fires at %v, want idle past the deadline", ppm, stop, fires, k.Now())
		}
		if k.Now() != deadline {
			t.Errorf("skew %d ppm: ended at %v, want the deadline %v", ppm, k.Now(), deadline)
		}
	}
}
