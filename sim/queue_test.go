package sim

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestQueueMatchesSortedReference drives the hand-written heap and a plain sorted slice with
// the same pushes, removals, reschedules and pops, and requires the same answers and intact
// slot indexes after every step.
func TestQueueMatchesSortedReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		slots := make([]*slot, 12)
		for i := range slots {
			slots[i] = &slot{index: -1}
		}
		var model []entry // sorted by (at, seq)
		var seq uint64
		sortModel := func() { slices.SortFunc(model, func(a, b entry) int { return cmpEntry(a, b) }) }
		removeFromModel := func(s *slot) {
			model = slices.DeleteFunc(model, func(e entry) bool { return e.slot == s })
		}
		var now Time // pushes never go before the last fired key, as in the kernel
		schedule := func(t *rapid.T) {
			s := slots[rapid.IntRange(0, len(slots)-1).Draw(t, "slot")]
			at := now + Time(rapid.IntRange(0, 20).Draw(t, "delay"))
			seq++
			if s.queued() {
				q.reschedule(s, at, seq)
				removeFromModel(s)
			} else {
				q.push(entry{at: at, seq: seq, slot: s})
			}
			model = append(model, entry{at: at, seq: seq, slot: s})
			sortModel()
		}
		t.Repeat(map[string]func(*rapid.T){
			"push or reschedule": schedule,
			// fire pops through the hole, as the run loop does, scheduling and cancelling while
			// the hole is open.
			"fire": func(t *rapid.T) {
				if len(model) == 0 {
					t.Skip("empty")
				}
				got := q.openHole()
				if got != model[0] {
					t.Fatalf("fired (%v,%d), want (%v,%d)", got.at, got.seq, model[0].at, model[0].seq)
				}
				model = model[1:]
				now = got.at
				for range rapid.IntRange(0, 3).Draw(t, "schedules") {
					schedule(t)
				}
				if rapid.Bool().Draw(t, "cancel one") {
					s := slots[rapid.IntRange(0, len(slots)-1).Draw(t, "cancelled")]
					q.remove(s)
					removeFromModel(s)
				}
				q.closeHole()
			},
			"remove": func(t *rapid.T) {
				s := slots[rapid.IntRange(0, len(slots)-1).Draw(t, "slot")]
				wasQueued := slices.ContainsFunc(model, func(e entry) bool { return e.slot == s })
				if got := q.remove(s); got != wasQueued {
					t.Fatalf("remove reported %v, model says %v", got, wasQueued)
				}
				removeFromModel(s)
			},
			"filter": func(t *rapid.T) {
				victims := rapid.SliceOfDistinct(rapid.SampledFrom(slots), rapid.ID).Draw(t, "victims")
				doomed := func(s *slot) bool { return slices.Contains(victims, s) }
				q.filter(doomed)
				model = slices.DeleteFunc(model, func(e entry) bool { return doomed(e.slot) })
			},
			"": func(t *rapid.T) {
				if q.hole || q.len() != len(model) {
					t.Fatalf("queue holds %d entries, model %d", q.len(), len(model))
				}
				for i, e := range q.entries {
					if e.slot.index != i {
						t.Fatalf("entry %d has slot index %d", i, e.slot.index)
					}
					if i > 0 && e.before(q.entries[(i-1)/arity]) {
						t.Fatalf("heap order broken at %d", i)
					}
				}
				for _, s := range slots {
					inModel := slices.ContainsFunc(model, func(e entry) bool { return e.slot == s })
					if s.queued() != inModel {
						t.Fatalf("slot queued=%v, model says %v", s.queued(), inModel)
					}
				}
			},
		})
	})
}

func cmpEntry(a, b entry) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}
