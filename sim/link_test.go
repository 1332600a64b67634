package sim

import (
	"errors"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestLinkFIFOUnderFaults sends numbered messages while the link's jitter, extra latency,
// clogging and duplication change and the receiver pauses, and requires every accepted
// message to arrive, in send order (a duplicate right behind its original). With reorder on,
// every message must still arrive exactly once (or twice, if duplicated), in any order.
func TestLinkFIFOUnderFaults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		reorder := rapid.Bool().Draw(t, "reorder")
		k, l, got := pair(t, LinkConfig{
			Latency:  time.Duration(rapid.IntRange(0, 3).Draw(t, "latency ms")) * ms,
			Jitter:   time.Duration(rapid.IntRange(0, 5).Draw(t, "jitter ms")) * ms,
			Capacity: 200,
		})
		var sent []int
		duplicates := 0
		l.SetDuplicateFilter(func(msg any) bool {
			if msg.(int)%7 == 3 {
				duplicates++
				return true
			}
			return false
		})
		steps := rapid.IntRange(1, 80).Draw(t, "steps")
		for i := range steps {
			at := TimeAt(time.Duration(rapid.IntRange(0, 40).Draw(t, "at ms")) * ms)
			switch action := rapid.IntRange(0, 9).Draw(t, "action"); action {
			case 0:
				clogged := rapid.Bool().Draw(t, "clog")
				k.At(at, func() { l.SetClogged(clogged) })
			case 1:
				extra := time.Duration(rapid.IntRange(0, 10).Draw(t, "extra ms")) * ms
				k.At(at, func() { l.SetExtraLatency(extra) })
			case 2:
				pause := time.Duration(rapid.IntRange(1, 10).Draw(t, "pause ms")) * ms
				k.At(at, func() { l.To().Pause(pause) })
			case 3:
				if reorder {
					window := time.Duration(rapid.IntRange(0, 10).Draw(t, "reorder ms")) * ms
					k.At(at, func() { l.SetReorder(window) })
				}
			default:
				k.At(at, func() {
					if err := l.Send(i); err != nil {
						panic(err)
					}
					sent = append(sent, i)
				})
			}
		}
		k.At(TimeAt(50*ms), func() { l.SetClogged(false) })
		if stop := k.Run(); stop != StopIdle {
			t.Fatalf("stop = %v", stop)
		}
		if len(*got) != len(sent)+duplicates {
			t.Fatalf("received %d messages, sent %d plus %d duplicates", len(*got), len(sent), duplicates)
		}
		received := make([]int, len(*got))
		for i, m := range *got {
			received[i] = m.(int)
		}
		if !reorder {
			sentOrder := make(map[int]int, len(sent))
			for i, m := range sent {
				sentOrder[m] = i
			}
			for i := 1; i < len(received); i++ {
				if sentOrder[received[i]] < sentOrder[received[i-1]] {
					t.Fatalf("FIFO broken: %v received after %v (all: %v, sent: %v)", received[i], received[i-1], received, sent)
				}
			}
		}
		slices.Sort(received)
		received = slices.Compact(received)
		slices.Sort(sent)
		if !slices.Equal(received, sent) {
			t.Fatalf("received set %v, sent %v", received, sent)
		}
	})
}

// TestReorderBreaksFIFO shows the reorder fault does what it is for: it lets later messages
// overtake earlier ones.
func TestReorderBreaksFIFO(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: ms})
	l.SetReorder(10 * ms)
	for i := range 50 {
		mustSend(t, l, i)
	}
	k.Run()
	if len(*got) != 50 {
		t.Fatalf("received %d of 50", len(*got))
	}
	if slices.IsSortedFunc(*got, func(a, b any) int { return a.(int) - b.(int) }) {
		t.Fatal("50 messages with a 10ms reorder window arrived in send order")
	}
}

func TestLinkBackpressure(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: 5 * ms, Capacity: 2})
	var writableAt []Time
	l.From().SetWritable(func(w *Link) {
		if w != l {
			t.Errorf("writable for %v", w)
		}
		writableAt = append(writableAt, k.Now())
		mustSend(t, l, "c")
	})
	mustSend(t, l, "a")
	mustSend(t, l, "b")
	if err := l.Send("x"); !errors.Is(err, ErrLinkFull) {
		t.Fatalf("third send on a link of capacity 2: %v, want ErrLinkFull", err)
	}
	if l.InFlight() != 2 {
		t.Fatalf("in flight = %d", l.InFlight())
	}
	k.Run()
	if !slices.Equal(writableAt, []Time{TimeAt(5 * ms)}) {
		t.Fatalf("writable at %v, want once at 5ms", writableAt)
	}
	if want := []any{"a", "b", "c"}; !slices.Equal(*got, want) {
		t.Fatalf("received %v, want %v", *got, want)
	}
}

func TestLinkBreakLosesInFlightAndTellsBothEnds(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: 5 * ms})
	drops := recordDrops(k)
	var told []string
	for _, h := range []*Host{l.From(), l.To()} {
		h.SetLinkBroken(func(b *Link) { told = append(told, h.Name()+":"+b.Name()) })
	}
	mustSend(t, l, 1)
	mustSend(t, l, 2)
	k.At(TimeAt(ms), l.Break)
	k.RunUntil(TimeAt(2 * ms))
	if err := l.Send(3); !errors.Is(err, ErrLinkBroken) {
		t.Fatalf("send on a broken link: %v", err)
	}
	l.Repair()
	mustSend(t, l, 4)
	k.Run()
	if want := []string{"src:src->dst", "dst:src->dst"}; !slices.Equal(told, want) {
		t.Fatalf("told %v, want %v", told, want)
	}
	if want := []DropReason{DropBroken, DropBroken}; !slices.Equal(*drops, want) {
		t.Fatalf("drops %v, want %v", *drops, want)
	}
	if want := []any{4}; !slices.Equal(*got, want) {
		t.Fatalf("received %v, want %v", *got, want)
	}
}

func TestPartitionIsOneWayAndDropsInFlight(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: 5 * ms})
	var back []any
	reverse := k.Connect("dst->src", l.To(), l.From(), LinkConfig{Latency: 5 * ms})
	l.From().SetReceiver(func(_ *Link, msg any) { back = append(back, msg) })
	drops := recordDrops(k)

	mustSend(t, l, "in flight when cut")
	k.At(TimeAt(ms), func() {
		l.SetPartitioned(true)
		mustSend(t, l, "sent while cut")
		mustSend(t, reverse, "other way")
	})
	k.At(TimeAt(10*ms), func() {
		l.SetPartitioned(false)
		mustSend(t, l, "after heal")
	})
	k.Run()
	if want := []any{"after heal"}; !slices.Equal(*got, want) {
		t.Fatalf("received %v, want %v", *got, want)
	}
	if want := []any{"other way"}; !slices.Equal(back, want) {
		t.Fatalf("reverse received %v, want %v", back, want)
	}
	if want := []DropReason{DropPartitioned, DropPartitioned}; !slices.Equal(*drops, want) {
		t.Fatalf("drops %v, want %v", *drops, want)
	}
}

func TestDropFilterDropsOnlyMatching(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: ms})
	type barrier struct{ id int }
	l.SetDropFilter(func(msg any) bool { _, ok := msg.(barrier); return ok })
	mustSend(t, l, "record 1")
	mustSend(t, l, barrier{1})
	mustSend(t, l, "record 2")
	k.Run()
	if want := []any{"record 1", "record 2"}; !slices.Equal(*got, want) {
		t.Fatalf("received %v, want %v", *got, want)
	}
	if s := l.Stats(); s.Sent != 3 || s.Dropped != 1 || s.Delivered != 2 {
		t.Fatalf("stats %+v", s)
	}
}

// pooledMessage stands for a message whose receiver reuses what it holds once handled.
type pooledMessage struct{ id, copies int }

func (m *pooledMessage) CopyMessage() any { return &pooledMessage{id: m.id, copies: m.copies + 1} }

// TestDuplicateDeliversACopyOfAMessageCopier: a duplicated MessageCopier arrives the second
// time as its CopyMessage, right behind the original; other messages arrive twice as they
// are.
func TestDuplicateDeliversACopyOfAMessageCopier(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: ms})
	l.SetDuplicateFilter(func(any) bool { return true })
	original := &pooledMessage{id: 1}
	mustSend(t, l, original)
	mustSend(t, l, "plain")
	k.Run()
	if len(*got) != 4 || (*got)[0] != original || (*got)[2] != "plain" || (*got)[3] != "plain" {
		t.Fatalf("received %v, want the original, its copy and the plain message twice", *got)
	}
	if c, ok := (*got)[1].(*pooledMessage); !ok || c == original || *c != (pooledMessage{id: 1, copies: 1}) {
		t.Fatalf("second delivery %v, want a copy of %v", (*got)[1], original)
	}
	if s := l.Stats(); s.Sent != 2 || s.Duplicated != 2 || s.Delivered != 4 {
		t.Fatalf("stats %+v", s)
	}
}

func TestClogHoldsWithoutLoss(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: ms})
	l.SetClogged(true)
	mustSend(t, l, 1)
	mustSend(t, l, 2)
	k.RunUntil(TimeAt(20 * ms))
	if len(*got) != 0 || l.InFlight() != 2 {
		t.Fatalf("clogged link delivered %v, holds %d", *got, l.InFlight())
	}
	var at []Time
	l.To().SetReceiver(func(_ *Link, msg any) { *got = append(*got, msg); at = append(at, k.Now()) })
	l.SetClogged(false)
	k.Run()
	if !slices.Equal(*got, []any{1, 2}) || !slices.Equal(at, []Time{TimeAt(20 * ms), TimeAt(20 * ms)}) {
		t.Fatalf("after unclog received %v at %v", *got, at)
	}
}

// TestNewIncarnationGetsOnlyNewMessages: messages in flight to a host that crashes are lost
// (not handed to its next incarnation), while messages a crashed host sent are delivered.
func TestNewIncarnationGetsOnlyNewMessages(t *testing.T) {
	k, l, got := pair(t, LinkConfig{Latency: 5 * ms})
	drops := recordDrops(k)
	mustSend(t, l, "to the old incarnation")
	k.At(TimeAt(ms), l.To().Restart)
	k.At(TimeAt(2*ms), func() {
		mustSend(t, l, "to the new incarnation")
		l.From().Crash()
	})
	k.Run()
	if want := []any{"to the new incarnation"}; !slices.Equal(*got, want) {
		t.Fatalf("received %v, want %v", *got, want)
	}
	if want := []DropReason{DropReceiverCrashed}; !slices.Equal(*drops, want) {
		t.Fatalf("drops %v, want %v", *drops, want)
	}
	if err := l.Send("from a dead host"); !errors.Is(err, ErrHostDown) {
		t.Fatalf("send from a crashed host: %v", err)
	}
}
