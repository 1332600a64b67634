package sim

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestLimitsEndRunsWithALimitVerdict runs workloads that never end on their own (timers that
// re-arm forever, or that multiply) under random limits: every run must come back with the
// matching limit verdict, within its bounds, and stay stopped.
func TestLimitsEndRunsWithALimitVerdict(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		config := Config{
			MaxTime:          Time(rapid.Int64Range(1, 1e6).Draw(t, "max time")),
			MaxEvents:        rapid.Uint64Range(1, 2000).Draw(t, "max events"),
			MaxPending:       rapid.IntRange(1, 500).Draw(t, "max pending"),
			MaxInstantEvents: rapid.Uint64Range(1, 2000).Draw(t, "max instant events"),
		}
		k := New(config)
		period := time.Duration(rapid.Int64Range(0, 1000).Draw(t, "period"))
		fanout := rapid.IntRange(1, 2).Draw(t, "fanout")
		var spawn func()
		spawn = func() {
			for range fanout {
				k.After(period, spawn)
			}
		}
		k.After(0, spawn)
		first := k.Run()
		if !first.IsLimit() {
			t.Fatalf("a workload that never ends stopped with %v", first)
		}
		if k.Events() > config.MaxEvents || k.Now() > config.MaxTime {
			t.Fatalf("%v after %d events at %v, beyond %+v", first, k.Events(), k.Now(), config)
		}
		switch first {
		case StopLimitEvents:
			if k.Events() != config.MaxEvents {
				t.Fatalf("event limit after %d events", k.Events())
			}
		case StopLimitPending:
			if k.Pending() <= config.MaxPending {
				t.Fatalf("pending limit with %d pending", k.Pending())
			}
		case StopLimitTime:
			if next := k.queue.min().at; next <= config.MaxTime {
				t.Fatalf("time limit with an event due at %v", next)
			}
		case StopLimitInstant:
			if k.InstantEvents() != config.MaxInstantEvents || k.queue.min().at != k.Now() {
				t.Fatalf("instant limit after %d events at %v, the next due at %v", k.InstantEvents(), k.Now(), k.queue.min().at)
			}
		}
		if first == StopLimitInstant && period > 0 && fanout == 1 {
			t.Fatalf("one event an instant stopped with %v", first)
		}
		if again := k.RunUntil(k.Now().Add(time.Second)); again != first {
			t.Fatalf("after %v, the next run returned %v", first, again)
		}
	})
}

func TestRunUntilPhasesAndStop(t *testing.T) {
	k := New(Config{})
	var fired []Time
	var tick *Timer
	tick = k.NewTimer(func() {
		fired = append(fired, k.Now())
		if len(fired) == 3 {
			k.Stop()
		}
		tick.Reset(10 * ms)
	})
	tick.Reset(10 * ms)

	if stop := k.RunUntil(TimeAt(25 * ms)); stop != StopReached || k.Now() != TimeAt(25*ms) {
		t.Fatalf("first phase: %v at %v", stop, k.Now())
	}
	if stop := k.RunUntil(TimeAt(100 * ms)); stop != StopStopped || k.Now() != TimeAt(30*ms) {
		t.Fatalf("second phase: %v at %v, want stopped at 30ms", stop, k.Now())
	}
	tick.Stop()
	if stop := k.RunUntil(TimeAt(100 * ms)); stop != StopIdle || k.Now() != TimeAt(100*ms) {
		t.Fatalf("third phase: %v at %v, want idle at 100ms", stop, k.Now())
	}
	if len(fired) != 3 {
		t.Fatalf("fired %v", fired)
	}
}

// TestTimeLimitOnlyAtMaxTime: an event due after MaxTime ends a run with the time limit only
// when the run gets to MaxTime; a shorter RunUntil just reaches its target.
func TestTimeLimitOnlyAtMaxTime(t *testing.T) {
	k := New(Config{MaxTime: TimeAt(time.Second)})
	k.At(TimeAt(2*time.Second), func() { t.Error("an event after MaxTime fired") })
	if stop := k.RunUntil(TimeAt(100 * ms)); stop != StopReached || k.Now() != TimeAt(100*ms) {
		t.Fatalf("RunUntil(100ms): %v at %v, want reached at 100ms", stop, k.Now())
	}
	if stop := k.Run(); stop != StopLimitTime || k.Now() != TimeAt(time.Second) {
		t.Fatalf("Run: %v at %v, want the time limit at 1s", stop, k.Now())
	}
}
