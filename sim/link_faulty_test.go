package sim

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// anyFaultControlSet is the reference for Link.faulty: the flag the message paths test
// instead of reading each control.
func anyFaultControlSet(l *Link) bool {
	return l.Partitioned() || l.Clogged() || l.Broken() || l.extraLatency != 0 || l.reorderWindow != 0 ||
		l.dropIf != nil || l.duplicateIf != nil
}

// TestHealedLinkBehavesLikeAHealthyOne turns a link's fault controls on and off in a random
// order, requiring the faulty flag to follow them after every step, and then, with every
// control cleared, requires the link to deliver a burst exactly as an untouched twin does:
// the same messages at the same instants. A control setter that forgot to recompute the flag
// would leave the fast path on under a fault, or the slow path on for good.
func TestHealedLinkBehavesLikeAHealthyOne(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := New(Config{Seed: 3})
		type arrival struct {
			msg any
			at  Time
		}
		got := map[string][]arrival{}
		src := k.AddHost("src", func(h *Host) {})
		dst := k.AddHost("dst", func(h *Host) {
			h.SetReceiver(func(l *Link, msg any) { got[l.Name()] = append(got[l.Name()], arrival{msg, k.Now()}) })
		})
		config := LinkConfig{Latency: ms, Capacity: 64}
		touched := k.Connect("touched", src, dst, config)
		twin := k.Connect("twin", src, dst, config)
		src.Start()
		dst.Start()

		controls := []func(on bool){
			touched.SetPartitioned,
			touched.SetClogged,
			func(on bool) {
				if on {
					touched.Break()
				} else {
					touched.Repair()
				}
			},
			func(on bool) { touched.SetExtraLatency(map[bool]time.Duration{true: 3 * ms}[on]) },
			func(on bool) { touched.SetReorder(map[bool]time.Duration{true: 2 * ms}[on]) },
			func(on bool) { touched.SetDropFilter(map[bool]func(any) bool{true: DropAll}[on]) },
			func(on bool) { touched.SetDuplicateFilter(map[bool]func(any) bool{true: DropAll}[on]) },
		}
		for range rapid.IntRange(0, 20).Draw(t, "steps") {
			controls[rapid.IntRange(0, len(controls)-1).Draw(t, "control")](rapid.Bool().Draw(t, "on"))
			if touched.faulty != anyFaultControlSet(touched) {
				t.Fatalf("faulty = %v with partitioned=%v clogged=%v broken=%v extra=%v reorder=%v drop=%v duplicate=%v",
					touched.faulty, touched.partitioned, touched.clogged, touched.broken, touched.extraLatency,
					touched.reorderWindow, touched.dropIf != nil, touched.duplicateIf != nil)
			}
		}
		for _, clear := range controls {
			clear(false)
		}
		if touched.faulty {
			t.Fatal("faulty with every control cleared")
		}
		for i := range 10 {
			k.At(TimeAt(time.Duration(i)*ms/3), func() {
				mustSend(t, touched, i)
				mustSend(t, twin, i)
			})
		}
		k.Run()
		if len(got["twin"]) != 10 || !slices.Equal(got["touched"], got["twin"]) {
			t.Fatalf("healed link delivered %v, its twin %v", got["touched"], got["twin"])
		}
	})
}
