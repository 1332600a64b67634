package sim

import (
	"slices"
	"testing"
)

// TestObserverKindsSeeOnlyThoseKinds runs the same world with an observer of every kind and
// one of crashes only: the second sees exactly the crashes the first saw.
func TestObserverKindsSeeOnlyThoseKinds(t *testing.T) {
	run := func(observe func(k *Kernel, fn func(Event))) []EventKind {
		k, l, _ := pair(t, LinkConfig{Latency: ms})
		var seen []EventKind
		observe(k, func(e Event) { seen = append(seen, e.Kind) })
		mustSend(t, l, "a")
		k.RunFor(2 * ms)
		l.To().Crash()
		mustSend(t, l, "b")
		k.RunFor(2 * ms)
		return seen
	}
	all := run(func(k *Kernel, fn func(Event)) { k.SetObserver(fn) })
	crashes := run(func(k *Kernel, fn func(Event)) { k.SetObserverKinds(fn, EventHostCrash) })
	var want []EventKind
	for _, kind := range all {
		if kind == EventHostCrash {
			want = append(want, kind)
		}
	}
	if len(want) != 1 || !slices.Equal(crashes, want) {
		t.Fatalf("crash-only observer saw %v; the full one saw %v", crashes, all)
	}
	if !slices.Contains(all, EventSend) || !slices.Contains(all, EventDrop) {
		t.Fatalf("full observer saw %v", all)
	}
	if none := run(func(k *Kernel, fn func(Event)) { k.SetObserverKinds(nil, EventHostCrash) }); len(none) != 0 {
		t.Fatalf("removed observer saw %v", none)
	}
}
