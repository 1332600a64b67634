package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// queued is one scheduled firing in the reference model: a plain sorted slice of these.
type queued struct {
	at   Time
	seq  uint64
	slot *slot
}

// TestQueueMatchesSortedReference drives the hand-written heap and a plain sorted slice with
// the same pushes, removals, reschedules and pops, and requires the same answers and an
// intact handle table after every step.
func TestQueueMatchesSortedReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		slots := make([]*slot, 12)
		for i := range slots {
			slots[i] = &slot{handle: -1}
		}
		var model []queued // sorted by (at, seq)
		var seq uint64
		sortModel := func() { slices.SortFunc(model, cmpQueued) }
		removeFromModel := func(s *slot) {
			model = slices.DeleteFunc(model, func(e queued) bool { return e.slot == s })
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
				q.push(s, at, seq)
			}
			model = append(model, queued{at: at, seq: seq, slot: s})
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
				got, s := q.openHole()
				if got.at != model[0].at || got.seq != model[0].seq || s != model[0].slot {
					t.Fatalf("fired (%v,%d), want (%v,%d)", got.at, got.seq, model[0].at, model[0].seq)
				}
				model = model[1:]
				now = got.at
				// The event may crash a host (a filter, often of the fired slot's own host)
				// before or after it schedules, and may cancel.
				crash := func(t *rapid.T) {
					victims := rapid.SliceOfDistinct(rapid.SampledFrom(slots), rapid.ID).Draw(t, "crashed")
					if rapid.Bool().Draw(t, "fired slot crashed too") && !slices.Contains(victims, s) {
						victims = append(victims, s)
					}
					q.filter(func(v *slot) bool { return slices.Contains(victims, v) })
					model = slices.DeleteFunc(model, func(e queued) bool { return slices.Contains(victims, e.slot) })
				}
				crashFirst := rapid.IntRange(0, 2).Draw(t, "crash") // 0: none, 1: before scheduling, 2: after
				if crashFirst == 1 {
					crash(t)
				}
				for range rapid.IntRange(0, 3).Draw(t, "schedules") {
					schedule(t)
				}
				if crashFirst == 2 {
					crash(t)
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
				wasQueued := slices.ContainsFunc(model, func(e queued) bool { return e.slot == s })
				if got := q.remove(s); got != wasQueued {
					t.Fatalf("remove reported %v, model says %v", got, wasQueued)
				}
				removeFromModel(s)
			},
			"filter": func(t *rapid.T) {
				victims := rapid.SliceOfDistinct(rapid.SampledFrom(slots), rapid.ID).Draw(t, "victims")
				doomed := func(s *slot) bool { return slices.Contains(victims, s) }
				q.filter(doomed)
				model = slices.DeleteFunc(model, func(e queued) bool { return doomed(e.slot) })
			},
			"": func(t *rapid.T) {
				if q.hole || q.len() != len(model) {
					t.Fatalf("queue holds %d entries, model %d", q.len(), len(model))
				}
				checkQueue(t, &q)
				for i := range q.n {
					e := *q.ref(i)
					if q.slotAt(i) == nil {
						continue // dead
					}
					if m := model[slices.IndexFunc(model, func(m queued) bool { return m.slot == q.slotAt(i) })]; m.at != e.at || m.seq != e.seq {
						t.Fatalf("entry %d is (%v,%d), the model has (%v,%d)", i, e.at, e.seq, m.at, m.seq)
					}
				}
				for _, s := range slots {
					inModel := slices.ContainsFunc(model, func(e queued) bool { return e.slot == s })
					if s.queued() != inModel {
						t.Fatalf("slot queued=%v, model says %v", s.queued(), inModel)
					}
				}
			},
		})
	})
}

func cmpQueued(a, b queued) int {
	switch {
	case a.at != b.at:
		return cmp.Compare(a.at, b.at)
	default:
		return cmp.Compare(a.seq, b.seq)
	}
}

// checkQueue asserts the queue's structure outside a hole: heap order, a live root, and a
// handle table in which every live entry's row names a slot that names the row back, every
// dead entry's row is empty (and q.dead counts them), and every other row is free exactly
// once.
func checkQueue(t interface{ Fatalf(string, ...any) }, q *queue) {
	used := make([]bool, len(q.handles))
	dead := 0
	for i := range q.n {
		e := *q.ref(i)
		if i > 0 && e.before(*q.ref((i - 1) / arity)) {
			t.Fatalf("heap order broken at %d", i)
		}
		if used[e.handle] {
			t.Fatalf("handle %d used twice", e.handle)
		}
		used[e.handle] = true
		row := q.handles[e.handle]
		if row.slot == nil {
			if i == 0 {
				t.Fatalf("dead entry at the root")
			}
			dead++
			continue
		}
		if row.slot.handle != e.handle || row.at != e.at {
			t.Fatalf("entry %d has handle %d with row %+v", i, e.handle, row)
		}
	}
	if dead != q.dead {
		t.Fatalf("%d dead entries, counted %d", dead, q.dead)
	}
	for _, h := range q.free {
		if used[h] || q.handles[h].slot != nil {
			t.Fatalf("handle %d is free and in use (or freed twice)", h)
		}
		used[h] = true
	}
	if i := slices.Index(used, false); i >= 0 {
		t.Fatalf("handle %d is neither used nor free", i)
	}
	checkFamilies(t, q)
}

// checkFamilies asserts the heap's layout: exactly the families that hold an entry, the rest
// of the last one filled with sentinels.
func checkFamilies(t interface{ Fatalf(string, ...any) }, q *queue) {
	if want := max(q.n-1+arity-1, 0) / arity; len(q.fams) != want {
		t.Fatalf("%d entries in %d families, want %d", q.n, len(q.fams), want)
	}
	for p := max(q.n, 1); p <= arity*len(q.fams); p++ {
		if *q.ref(p) != sentinel {
			t.Fatalf("position %d, past the last entry, holds %+v", p, *q.ref(p))
		}
	}
}

// TestEarlierAgreesWithBefore checks the branchless comparison the heap sifts with against
// the plain one, with times and sequence numbers drawn towards the edges where a borrow
// could go astray: zero, equal values, and the largest time and sequence number.
func TestEarlierAgreesWithBefore(t *testing.T) {
	edgy := func(most uint64) *rapid.Generator[uint64] {
		return rapid.OneOf(rapid.Uint64Range(0, 3), rapid.Uint64Range(most-3, most), rapid.Uint64Range(0, most))
	}
	keys := rapid.Custom(func(t *rapid.T) entry {
		return entry{at: Time(edgy(uint64(Never)).Draw(t, "at")), seq: edgy(^uint64(0)).Draw(t, "seq")}
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := keys.Draw(t, "a"), keys.Draw(t, "b")
		if rapid.Bool().Draw(t, "same time") {
			b.at = a.at
		}
		if got, want := earlier(a, b) == 1, a.before(b); got != want {
			t.Fatalf("earlier((%d,%d), (%d,%d)) = %v, before says %v", a.at, a.seq, b.at, b.seq, got, want)
		}
	})
}

// TestQueueSweepsDeadEntries drives the queue the way a busy run with many cancellations
// would, with more slots than the rapid test draws (enough for dead entries to pass
// minDeadToSweep), and compares every firing with a sorted reference. It checks that a
// cancellation never leaves more dead entries than the sweep allows.
func TestQueueSweepsDeadEntries(t *testing.T) {
	random := rand.New(rand.NewPCG(1, 2))
	var q queue
	slots := make([]*slot, 300)
	for i := range slots {
		slots[i] = &slot{handle: -1}
	}
	var model []queued
	var seq uint64
	var now Time
	sweeps, maxDead := 0, 0
	for step := range 200_000 {
		s := slots[random.IntN(len(slots))]
		switch op := random.IntN(10); {
		case op < 5: // schedule or reschedule
			at := now + Time(random.IntN(1000))
			seq++
			if s.queued() {
				q.reschedule(s, at, seq)
				model = slices.DeleteFunc(model, func(e queued) bool { return e.slot == s })
			} else {
				q.push(s, at, seq)
			}
			model = append(model, queued{at: at, seq: seq, slot: s})
			slices.SortFunc(model, cmpQueued)
		case op < 8: // cancel
			deadBefore := q.dead
			cancelled := q.remove(s)
			model = slices.DeleteFunc(model, func(e queued) bool { return e.slot == s })
			if q.dead < deadBefore {
				sweeps++
			}
			// Only a cancellation adds a dead entry, so it is where the bound is kept; firing
			// may leave more dead than live until time reaches them.
			if cancelled && q.dead > minDeadToSweep && q.dead > q.len() {
				t.Fatalf("step %d: %d dead entries beside %d live ones", step, q.dead, q.len())
			}
		default: // fire
			if len(model) == 0 {
				continue
			}
			got, fired := q.openHole()
			if got.at != model[0].at || got.seq != model[0].seq || fired != model[0].slot {
				t.Fatalf("step %d: fired (%v,%d), want (%v,%d)", step, got.at, got.seq, model[0].at, model[0].seq)
			}
			model = model[1:]
			now = got.at
			q.closeHole()
		}
		maxDead = max(maxDead, q.dead)
		if q.len() != len(model) {
			t.Fatalf("step %d: queue holds %d live entries, model %d", step, q.len(), len(model))
		}
		if step%1000 == 0 {
			checkQueue(t, &q)
		}
	}
	if sweeps == 0 || maxDead <= minDeadToSweep {
		t.Fatalf("the test never swept (%d sweeps, at most %d dead): it tests nothing", sweeps, maxDead)
	}
}
