package sim

import (
	"cmp"
	"math"
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

// testQueue returns an empty queue whose wheel takes events whatever the heap's size, or
// that has no wheel, so that tests reach both of its stores with a few events.
func testQueue(withWheel bool) queue {
	q := queue{heap: newHeap(0), firing: -1, wheelFrom: math.MaxInt}
	if withWheel {
		q.wheelFrom = 0
	}
	return q
}

// TestQueueMatchesSortedReference drives the queue and a plain sorted slice with the same
// pushes, removals, reschedules and pops, and requires the same answers and an intact handle
// table after every step.
func TestQueueMatchesSortedReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := testQueue(rapid.Bool().Draw(t, "with a wheel"))
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
			// Delays within a bucket of the wheel, within its span, and past it.
			at := now + Time(rapid.OneOf(rapid.IntRange(0, 20), rapid.IntRange(0, 10<<wheelShift), rapid.IntRange(0, 2*wheelSize<<wheelShift)).Draw(t, "delay"))
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
				got, s := q.openHole(q.peek())
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
			// refile cancels a queued slot and pushes it again with the same key, as a link
			// does with its front message: a dead entry and a live one then share a key.
			"refile": func(t *rapid.T) {
				if len(model) == 0 {
					t.Skip("empty")
				}
				m := model[rapid.IntRange(0, len(model)-1).Draw(t, "refiled")]
				q.remove(m.slot)
				q.push(m.slot, m.at, m.seq)
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
				if q.hole || q.firing >= 0 || q.len() != len(model) {
					t.Fatalf("queue holds %d entries, model %d", q.len(), len(model))
				}
				checkQueue(t, &q)
				for _, e := range queueEntries(&q) {
					s := q.handles[e.handle].slot
					if s == nil {
						continue // dead
					}
					if m := model[slices.IndexFunc(model, func(m queued) bool { return m.slot == s })]; m.at != e.at || m.seq != e.seq {
						t.Fatalf("entry is (%v,%d), the model has (%v,%d)", e.at, e.seq, m.at, m.seq)
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

// queueEntries lists what the queue holds, dead entries and the hole included: the heap's
// entries in position order, then the wheel's bucket by bucket.
func queueEntries(q *queue) []entry {
	var all []entry
	for p := range q.heap.n {
		all = append(all, *q.heap.ref(p))
	}
	if q.wheel.wheelTable == nil {
		return all
	}
	for b := range q.wheel.buckets {
		for h := q.wheel.buckets[b].first; h != 0; h = q.handles[h-1].next {
			row := q.handles[h-1]
			all = append(all, entry{at: row.at, seq: row.seq, handle: h - 1})
		}
	}
	return all
}

// checkQueue asserts the queue's structure outside a hole: the heap's order and layout, the
// wheel's buckets, live first entries in both, and a handle table in which every live
// entry's row names a slot that names the row back, every dead entry's row is empty (and
// q.heapDead and q.wheelDead count them), and every other row is free exactly once.
func checkQueue(t interface{ Fatalf(string, ...any) }, q *queue) {
	used := make([]bool, len(q.handles))
	dead := 0
	inWheel := make(map[int32]bool)
	if q.wheel.wheelTable != nil {
		for b := range q.wheel.buckets {
			for h := q.wheel.buckets[b].first; h != 0; h = q.handles[h-1].next {
				inWheel[h-1] = true
			}
		}
	}
	for _, e := range queueEntries(q) {
		if q.handles[e.handle].inWheel != inWheel[e.handle] {
			t.Fatalf("entry (%v,%d) has inWheel %v", e.at, e.seq, !inWheel[e.handle])
		}
		if used[e.handle] {
			t.Fatalf("handle %d used twice", e.handle)
		}
		used[e.handle] = true
		row := q.handles[e.handle]
		if row.at != e.at || (row.inWheel && row.seq != e.seq) {
			t.Fatalf("entry (%v,%d) has handle %d with row %+v", e.at, e.seq, e.handle, row)
		}
		if row.slot == nil {
			dead++
		} else if row.slot.handle != e.handle {
			t.Fatalf("entry (%v,%d) has handle %d, its slot %d", e.at, e.seq, e.handle, row.slot.handle)
		}
	}
	if dead != q.heapDead+q.wheelDead {
		t.Fatalf("%d dead entries, counted %d", dead, q.heapDead+q.wheelDead)
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
	checkHeap(t, &q.heap)
	if q.heap.n > 0 && q.handles[q.heap.root.handle].slot == nil {
		t.Fatalf("dead entry at the heap's root")
	}
	checkWheel(t, q)
}

// checkHeap asserts the heap's order and layout: exactly the families that hold an entry, the
// rest of the last one filled with sentinels.
func checkHeap(t interface{ Fatalf(string, ...any) }, hp *heap) {
	for p := 1; p < hp.n; p++ {
		if hp.ref(p).before(*hp.ref((p - 1) / arity)) {
			t.Fatalf("heap order broken at %d", p)
		}
	}
	if want := max(hp.n-1+arity-1, 0) / arity; len(hp.fams) != want {
		t.Fatalf("%d entries in %d families, want %d", hp.n, len(hp.fams), want)
	}
	for p := max(hp.n, 1); p <= arity*len(hp.fams); p++ {
		if *hp.ref(p) != sentinel {
			t.Fatalf("position %d, past the last entry, holds %+v", p, *hp.ref(p))
		}
	}
}

// checkWheel asserts the wheel's buckets: each in its place in the span, sorted, with the
// right last element and occupied bit, the count right, and the first entry live.
func checkWheel(t interface{ Fatalf(string, ...any) }, q *queue) {
	w := &q.wheel
	if w.wheelTable == nil {
		if w.n != 0 {
			t.Fatalf("a wheel without buckets holds %d entries", w.n)
		}
		return
	}
	n := 0
	for b := range w.buckets {
		bk := w.buckets[b]
		occupied := w.occupied[b/64]&(1<<(b%64)) != 0
		if occupied != (bk.first != 0) {
			t.Fatalf("bucket %d: occupied bit %v, first %d", b, occupied, bk.first)
		}
		var prev *handleRow
		last := int32(0)
		for h := bk.first; h != 0; h = q.handles[h-1].next {
			row := &q.handles[h-1]
			if !w.accepts(row.at) || w.bucketOf(row.at) != uint(b) {
				t.Fatalf("bucket %d holds (%v,%d), outside the span from %d or in another bucket", b, row.at, row.seq, w.base)
			}
			if prev != nil && rowEarlier(row, prev) {
				t.Fatalf("bucket %d out of order", b)
			}
			prev, last = row, h
			n++
		}
		if bk.last != last {
			t.Fatalf("bucket %d: last %d, want %d", b, bk.last, last)
		}
	}
	if n != w.n {
		t.Fatalf("the wheel holds %d entries, counted %d", n, w.n)
	}
	if w.n > 0 && q.handles[w.buckets[w.front()].first-1].slot == nil {
		t.Fatalf("dead entry at the wheel's front")
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
// minDeadToSweep, and for crowded wheel buckets), and compares every firing with a sorted
// reference. It checks that a cancellation never leaves more dead entries than the sweep
// allows.
func TestQueueSweepsDeadEntries(t *testing.T) {
	random := rand.New(rand.NewPCG(1, 2))
	q := testQueue(true)
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
			// Crowded buckets (more than maxWalk distinct instants in one, so some events go to
			// the heap), the rest of the wheel's span, and past it.
			spans := [...]int{4 << wheelShift, 4 << wheelShift, wheelSize << wheelShift, 3 * wheelSize << wheelShift}
			at := now + Time(random.IntN(spans[random.IntN(len(spans))]))
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
			deadBefore := q.heapDead + q.wheelDead
			cancelled := q.remove(s)
			model = slices.DeleteFunc(model, func(e queued) bool { return e.slot == s })
			if q.heapDead+q.wheelDead < deadBefore {
				sweeps++
			}
			// Only a cancellation adds a dead entry, so it is where the bound is kept; firing
			// may leave more dead than live until time reaches them.
			if dead := q.heapDead + q.wheelDead; cancelled && dead > minDeadToSweep && dead > q.len() {
				t.Fatalf("step %d: %d dead entries beside %d live ones", step, dead, q.len())
			}
		default: // fire
			if len(model) == 0 {
				continue
			}
			got, fired := q.openHole(q.peek())
			if got.at != model[0].at || got.seq != model[0].seq || fired != model[0].slot {
				t.Fatalf("step %d: fired (%v,%d), want (%v,%d)", step, got.at, got.seq, model[0].at, model[0].seq)
			}
			model = model[1:]
			now = got.at
			q.closeHole()
		}
		maxDead = max(maxDead, q.heapDead+q.wheelDead)
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
