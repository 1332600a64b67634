package checker

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestTraceIndexFindsTheEventsOfItsKinds checks the index's bit sets against a plain scan of
// the events' kinds, across word boundaries and with kinds outside the schema.
func TestTraceIndexFindsTheEventsOfItsKinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kinds := append(trace.Kinds(), "no.such.kind", "")
	for _, n := range []int{0, 1, 63, 64, 65, 127, 128, 129, 500} {
		events := make([]trace.Event, n)
		for i := range events {
			// Runs of one kind, as in a trace, and changes at random.
			if i == 0 || rng.IntN(3) == 0 {
				events[i].Kind = kinds[rng.IntN(len(kinds))]
			} else {
				events[i].Kind = events[i-1].Kind
			}
		}
		ix := newTraceIndex(events)
		for range 50 {
			var chosen []string
			for _, kind := range trace.Kinds() {
				if rng.IntN(8) == 0 {
					chosen = append(chosen, kind)
				}
			}
			set := kindsOf(chosen...)
			var want []int
			for i := range events {
				if slices.Contains(chosen, events[i].Kind) {
					want = append(want, i)
				}
			}
			if got := slices.Collect(ix.only(set)); !slices.Equal(got, want) {
				t.Fatalf("%d events, kinds %v: only yields %v, want %v", n, chosen, got, want)
			}
			if got := ix.any(set); got != (len(want) > 0) {
				t.Fatalf("%d events, kinds %v: any = %v", n, chosen, got)
			}
			es := ix.of(set)
			for from := 0; from <= n+1; from++ {
				wantNext := n
				if k, ok := slices.BinarySearch(want, from); ok || k < len(want) {
					wantNext = want[k]
				}
				if got := es.next(from); got != wantNext {
					t.Fatalf("%d events, kinds %v: next(%d) = %d, want %d", n, chosen, from, got, wantNext)
				}
			}
		}
	}
}
