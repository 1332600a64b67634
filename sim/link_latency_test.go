package sim

import (
	"testing"
	"time"
)

// timedPair is pair, recording when each message arrived.
func timedPair(config LinkConfig, seed uint64) (*Kernel, *Link, *[]int, *[]Time) {
	k := New(Config{Seed: seed})
	var got []int
	var at []Time
	src := k.AddHost("src", func(h *Host) {})
	dst := k.AddHost("dst", func(h *Host) {
		h.SetReceiver(func(l *Link, msg any) {
			got = append(got, msg.(int))
			at = append(at, k.Now())
		})
	})
	l := k.Connect("src->dst", src, dst, config)
	src.Start()
	dst.Start()
	return k, l, &got, &at
}

// sendEvery sends messages 0..n-1, message i at i*gap, and runs the kernel to the end. It
// returns the send instants.
func sendEvery(k *Kernel, l *Link, n int, gap time.Duration) []Time {
	sent := make([]Time, n)
	for i := range n {
		sent[i] = TimeAt(time.Duration(i) * gap)
		k.At(sent[i], func() {
			if err := l.Send(i); err != nil {
				panic(err)
			}
		})
	}
	k.Run()
	return sent
}

// TestExponentialLatencyIsCappedAndFIFO sends messages closer together than their delays on a
// link with an exponential delay: every one arrives, in order, no later than its send plus
// the cap; some are held by the cap, and the draws are spread (not one value).
func TestExponentialLatencyIsCappedAndFIFO(t *testing.T) {
	const mean, limit = 2 * ms, 5 * ms
	k, l, got, at := timedPair(LinkConfig{ExponentialMean: mean, ExponentialCap: limit, Capacity: 4096}, 3)
	sent := sendEvery(k, l, 2000, 100*time.Microsecond)
	if len(*got) != len(sent) {
		t.Fatalf("%d of %d messages arrived", len(*got), len(sent))
	}
	atCap, distinct := 0, map[time.Duration]bool{}
	for i, msg := range *got {
		if msg != i {
			t.Fatalf("message %d arrived in place %d: FIFO broken", msg, i)
		}
		delay := (*at)[i].Sub(sent[i])
		if delay < 0 || delay > limit {
			t.Fatalf("message %d took %v, outside [0, %v]", i, delay, limit)
		}
		if delay == limit {
			atCap++
		}
		distinct[delay] = true
	}
	if atCap == 0 || len(distinct) < 100 {
		t.Errorf("%d delays at the cap, %d distinct delays: not an exponential cut at the cap", atCap, len(distinct))
	}
}

// TestExponentialLatencyMean checks the draws' mean on a link where messages are far apart
// (so FIFO never holds one back) and the cap is far out.
func TestExponentialLatencyMean(t *testing.T) {
	const mean = 2 * ms
	k, l, got, at := timedPair(LinkConfig{Latency: ms, ExponentialMean: mean, ExponentialCap: time.Second}, 5)
	sent := sendEvery(k, l, 4000, time.Second)
	var total time.Duration
	for i := range *got {
		delay := (*at)[i].Sub(sent[i])
		if delay < ms {
			t.Fatalf("message %d took %v, less than the base latency", i, delay)
		}
		total += delay - ms
	}
	if avg := total / time.Duration(len(*got)); avg < mean*9/10 || avg > mean*11/10 {
		t.Errorf("mean exponential delay %v, want about %v", avg, mean)
	}
}

// TestLatencyModelsDeterministic: the same seed gives the same arrivals; another seed does not.
func TestLatencyModelsDeterministic(t *testing.T) {
	run := func(seed uint64) []Time {
		k, l, _, at := timedPair(LinkConfig{Latency: ms, Jitter: ms, ExponentialMean: ms, ExponentialCap: 4 * ms}, seed)
		sendEvery(k, l, 200, 300*time.Microsecond)
		return *at
	}
	a, b, c := run(11), run(11), run(12)
	if len(a) != 200 || len(c) != 200 {
		t.Fatalf("%d and %d arrivals", len(a), len(c))
	}
	same := true
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 11 ran twice: arrival %d at %v then %v", i, a[i], b[i])
		}
		same = same && a[i] == c[i]
	}
	if same {
		t.Error("seeds 11 and 12 gave the same arrivals")
	}
}
