package sim

import (
	"testing"
	"time"
)

// BenchmarkTimerEvent measures scheduling and firing one event: a timer that re-arms itself
// from its own callback, so each iteration is one push, one pop and one call.
func BenchmarkTimerEvent(b *testing.B) {
	benchmarkTimer(b, 0)
}

// BenchmarkTimerEventBacklog1k is BenchmarkTimerEvent with a thousand other timers pending
// far in the future.
func BenchmarkTimerEventBacklog1k(b *testing.B) {
	benchmarkTimer(b, 1000)
}

// BenchmarkTimerEventHold1k is the classic "hold" model of a busy run: a thousand timers,
// each re-arming itself with a random delay in [1µs, 1ms] when it fires, so every event
// lands somewhere inside a queue a thousand deep. The delay draw is included.
func BenchmarkTimerEventHold1k(b *testing.B) {
	k := New(Config{MaxEvents: uint64(b.N)})
	random := k.Stream("bench")
	for range 1000 {
		var timer *Timer
		timer = k.NewTimer(func() { timer.Reset(random.DurationBetween(time.Microsecond, time.Millisecond)) })
		timer.Reset(random.DurationBetween(time.Microsecond, time.Millisecond))
	}
	b.ReportAllocs()
	b.ResetTimer()
	if stop := k.Run(); stop != StopLimitEvents {
		b.Fatalf("stop = %v", stop)
	}
}

func benchmarkTimer(b *testing.B, backlog int) {
	k := New(Config{MaxEvents: uint64(b.N)})
	for i := range backlog {
		k.At(TimeAt(time.Hour+time.Duration(i)), func() {})
	}
	var timer *Timer
	timer = k.NewTimer(func() { timer.Reset(time.Microsecond) })
	timer.Reset(time.Microsecond)
	b.ReportAllocs()
	b.ResetTimer()
	if stop := k.Run(); stop != StopLimitEvents {
		b.Fatalf("stop = %v", stop)
	}
}

// BenchmarkLinkMessage measures one message through a link: Send, the queue, delivery to the
// receiver. Two hosts bounce one message back and forth, so each event is one delivery.
func BenchmarkLinkMessage(b *testing.B) {
	benchmarkLink(b, LinkConfig{Latency: time.Millisecond})
}

// BenchmarkLinkMessageJitter adds a random jitter draw per message.
func BenchmarkLinkMessageJitter(b *testing.B) {
	benchmarkLink(b, LinkConfig{Latency: time.Millisecond, Jitter: time.Millisecond})
}

func benchmarkLink(b *testing.B, config LinkConfig) {
	k := New(Config{MaxEvents: uint64(b.N)})
	type ball struct{ hits int }
	var there, back *Link
	bounce := func(l *Link, msg any) {
		msg.(*ball).hits++
		out := there
		if l == there {
			out = back
		}
		if err := out.Send(msg); err != nil {
			panic(err)
		}
	}
	a := k.AddHost("a", func(h *Host) { h.SetReceiver(bounce) })
	c := k.AddHost("b", func(h *Host) { h.SetReceiver(bounce) })
	there = k.Connect("a->b", a, c, config)
	back = k.Connect("b->a", c, a, config)
	a.Start()
	c.Start()
	ball0 := &ball{}
	if err := there.Send(ball0); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if stop := k.Run(); stop != StopLimitEvents {
		b.Fatalf("stop = %v", stop)
	}
	if ball0.hits != b.N {
		b.Fatalf("%d deliveries, want %d", ball0.hits, b.N)
	}
}
