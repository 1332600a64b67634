package sim

import (
	"time"

	"pgregory.net/rapid"
)

const ms = time.Millisecond

// pair returns a kernel with two started hosts joined by a link src->dst, and the messages
// dst received, in order.
func pair(t rapid.TB, config LinkConfig) (*Kernel, *Link, *[]any) {
	t.Helper()
	k := New(Config{Seed: 7})
	var got []any
	src := k.AddHost("src", func(h *Host) {})
	dst := k.AddHost("dst", func(h *Host) {
		h.SetReceiver(func(l *Link, msg any) { got = append(got, msg) })
	})
	l := k.Connect("src->dst", src, dst, config)
	src.Start()
	dst.Start()
	return k, l, &got
}

// recordDrops returns the drop reasons the observer sees, in order.
func recordDrops(k *Kernel) *[]DropReason {
	var drops []DropReason
	k.SetObserver(func(e Event) {
		if e.Kind == EventDrop {
			drops = append(drops, e.Reason)
		}
	})
	return &drops
}

func mustSend(t rapid.TB, l *Link, msg any) {
	t.Helper()
	if err := l.Send(msg); err != nil {
		t.Fatalf("send %v on %s: %v", msg, l.Name(), err)
	}
}
