package sim

import (
	"math"
	"math/bits"
)

// slot is anything the kernel can schedule: a timer, a link's next delivery, a storage
// operation, a notification. It lives inside the object it belongs to, so scheduling never
// allocates. At most one queue entry refers to a slot at a time; handle names it, which is
// what makes cancellation an O(log n) removal instead of lazy garbage.
type slot struct {
	handle int32 // the slot's row in the queue's handle table, or -1 when not queued
	owner  *Host // host whose incarnation must be up for run to be called; nil for the kernel
	run    func()
}

func (s *slot) queued() bool { return s.handle >= 0 }

// entry is one scheduled firing. The key (at, seq) is copied into the entry so comparisons
// read contiguous memory; seq is unique per push, so keys never tie. The entry names its
// slot by handle rather than by pointer: the heap array then holds no pointers, so moving
// entries up and down needs no write barrier, and the garbage collector need not scan it.
// The engine allocates enough that a collection is often under way; on ten virtual seconds
// of the standard scenario, slot pointers in the entries (with the same sifting) cost about
// 2M fewer instructions in the kernel and about 10M more in write barriers (cachegrind).
type entry struct {
	at     Time
	seq    uint64
	handle int32
}

func (e entry) before(f entry) bool {
	if e.at != f.at {
		return e.at < f.at
	}
	return e.seq < f.seq
}

// handleRow is a queued slot and its position in the heap. Keeping positions here instead
// of in the slots means a sift writes only to two dense arrays, never to the scattered
// objects that own the slots.
type handleRow struct {
	slot     *slot
	position int32
}

// arity is the number of children per heap node. Four halve the depth of a binary heap,
// which matters because every level an entry moves also writes the moved slot's position;
// with a thousand pending events it measured about a quarter faster than two.
//
// A radix heap (a hierarchical timing wheel of 256 one-nanosecond buckets a level, exact in
// (at, seq), nodes linked by index) was tried in place of the heap: 637 instructions an
// event instead of 707 in the hold model (BenchmarkTimerEventHold1k), but 478 instead of 228
// for a single timer and 729 instead of 477 for a link message, since every event is filed
// two or three times as it cascades down the levels, where a small heap barely moves it.
const arity = 4

// queue is a 4-ary min-heap of entries ordered by (at, seq) that keeps each slot's position
// current. It is written out by hand rather than with container/heap to avoid interface
// calls on the hot path.
type queue struct {
	entries []entry
	handles []handleRow // indexed by handle; rows of free handles have a nil slot
	free    []int32     // handles not in use
	// hole is set while the entry being fired still occupies the root as a placeholder (see
	// openHole); holeHandle is its handle, whose row has a nil slot meanwhile.
	hole       bool
	holeHandle int32
}

// newQueue returns an empty queue with room for capacity entries before it grows.
func newQueue(capacity int) queue {
	return queue{
		entries: make([]entry, 0, capacity),
		handles: make([]handleRow, 0, capacity),
		free:    make([]int32, 0, capacity),
	}
}

// len returns the number of queued entries, not counting a hole.
func (q *queue) len() int {
	if q.hole {
		return len(q.entries) - 1
	}
	return len(q.entries)
}

// openHole takes the earliest entry out of the queue for firing but leaves a placeholder with
// its key at the root. If the event schedules something (a timer re-arming itself, a link
// moving on to its next message), push fills the hole with one pass down the heap instead of
// a pass down to remove the root and another up to insert: that halves the cost of the most
// common event. The placeholder's key is the fired one, before every other key queued or to
// be queued, so the heap order holds around it and it stays at the root.
func (q *queue) openHole() (entry, *slot) {
	top := q.entries[0]
	row := &q.handles[top.handle]
	s := row.slot
	row.slot = nil
	s.handle = -1
	q.hole = true
	q.holeHandle = top.handle
	return top, s
}

// closeHole removes the placeholder if nothing filled it.
func (q *queue) closeHole() {
	if q.hole {
		q.hole = false
		q.removeAt(0)
	}
}

// min returns the earliest entry; there must be one, and no hole.
func (q *queue) min() entry { return q.entries[0] }

// slotAt returns the slot of the entry at position i (nil for the hole).
func (q *queue) slotAt(i int) *slot { return q.handles[q.entries[i].handle].slot }

// at returns the instant a queued slot is due.
func (q *queue) at(s *slot) Time { return q.entries[q.handles[s.handle].position].at }

func (q *queue) push(s *slot, at Time, seq uint64) {
	if s.queued() {
		panic("sim: slot pushed twice")
	}
	if q.hole {
		// The hole is at the root (see openHole): the new entry takes its place and handle.
		q.hole = false
		h := q.holeHandle
		q.handles[h].slot = s
		s.handle = h
		q.entries[0] = entry{at: at, seq: seq, handle: h}
		q.down(0)
		return
	}
	var h int32
	if n := len(q.free); n > 0 {
		h = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		if len(q.handles) == math.MaxInt32 {
			panic("sim: more events queued than a handle can name") // MaxPending stops runs long before
		}
		h = int32(len(q.handles))
		q.handles = append(q.handles, handleRow{})
	}
	s.handle = h
	i := len(q.entries)
	q.handles[h] = handleRow{slot: s, position: int32(i)}
	q.entries = append(q.entries, entry{at: at, seq: seq, handle: h})
	q.up(i)
}

// remove takes s out of the queue if it is there, and reports whether it was.
func (q *queue) remove(s *slot) bool {
	if !s.queued() {
		return false
	}
	row := q.handles[s.handle]
	if row.slot != s {
		panic("sim: queue handle out of step with its slot")
	}
	q.removeAt(int(row.position))
	return true
}

// reschedule moves an already queued slot to a new key.
func (q *queue) reschedule(s *slot, at Time, seq uint64) {
	i := int(q.handles[s.handle].position)
	q.entries[i].at = at
	q.entries[i].seq = seq
	if !q.up(i) {
		q.down(i)
	}
}

// removeAt takes out the entry at position i and frees its handle, telling its slot (the
// hole has none).
func (q *queue) removeAt(i int) {
	last := len(q.entries) - 1
	h := q.entries[i].handle
	if s := q.handles[h].slot; s != nil {
		s.handle = -1
	}
	q.handles[h].slot = nil
	q.free = append(q.free, h)
	if i != last {
		q.entries[i] = q.entries[last]
		q.handles[q.entries[i].handle].position = int32(i)
	}
	q.entries = q.entries[:last]
	if i != last {
		if !q.up(i) {
			q.down(i)
		}
	}
}

// filter removes every entry whose slot matches drop, then restores the heap in O(n). It is
// how a crash discards everything queued for a host: rare, so a linear pass is the right cost.
// The hole, if open, has no slot and is kept.
func (q *queue) filter(drop func(s *slot) bool) {
	kept := q.entries[:0]
	for _, e := range q.entries {
		row := &q.handles[e.handle]
		if row.slot != nil && drop(row.slot) {
			row.slot.handle = -1
			row.slot = nil
			q.free = append(q.free, e.handle)
			continue
		}
		kept = append(kept, e)
	}
	q.entries = kept
	for i, e := range q.entries {
		q.handles[e.handle].position = int32(i)
	}
	if n := len(q.entries); n > 1 {
		for i := (n - 2) / arity; i >= 0; i-- { // (n-2)/arity is the last node with a child
			q.down(i)
		}
	}
}

// up moves entry i towards the root and reports whether it moved.
func (q *queue) up(i int) bool {
	start := i
	e := q.entries[i]
	for i > 0 {
		parent := (i - 1) / arity
		if !e.before(q.entries[parent]) {
			break
		}
		q.entries[i] = q.entries[parent]
		q.handles[q.entries[i].handle].position = int32(i)
		i = parent
	}
	q.entries[i] = e
	q.handles[e.handle].position = int32(i)
	return i != start
}

// down moves entry i away from the root to where it belongs. Which of four siblings is the
// earliest is a coin toss the branch predictor loses half the time, so a full family is
// decided without branches: a tournament of two pairs and a final, each settled by a borrow.
//
// It works top-down, comparing entry i with the earliest child at every level. Sifting
// bottom-up (the earliest child moved up all the way to a leaf, then entry i rising) saves
// that comparison, about 10 instructions an event when new events belong near the bottom
// (BenchmarkTimerEventHold1k), but costs 2.6 times the instructions when they belong near
// the top (BenchmarkTimerEventBacklog1k: a near timer over a far backlog, as in a run whose
// harness has armed its fault and phase timers ahead).
func (q *queue) down(i int) {
	entries, handles := q.entries, q.handles
	n := len(entries)
	e := entries[i]
	gap := &entries[i] // entries[i], as a pointer, so that moving a child up needs no bounds check
	for {
		first := arity*i + 1
		if first >= n {
			break
		}
		if first+arity > n { // a family of fewer than four
			child := first
			for c := first + 1; c < n; c++ {
				if entries[c].before(entries[child]) {
					child = c
				}
			}
			if entries[child].before(e) {
				*gap = entries[child]
				handles[gap.handle].position = int32(i)
				gap, i = &entries[child], child
			}
			break
		}
		family := entries[first : first+arity : first+arity]
		left := int(earlier(family[1], family[0]))      // 0 or 1
		right := 2 + int(earlier(family[3], family[2])) // 2 or 3
		pickRight := -int(earlier(family[right&3], family[left&3]))
		c := (left ^ ((left ^ right) & pickRight)) & 3
		child := &family[c]
		if !child.before(e) {
			break
		}
		*gap = *child
		handles[child.handle].position = int32(i)
		gap, i = child, first+c
	}
	*gap = e
	handles[e.handle].position = int32(i)
}

// earlier returns 1 if a's key is before b's and 0 otherwise, without a branch: it is the
// borrow out of the 128-bit subtraction (a.at, a.seq) - (b.at, b.seq). Comparing at as
// unsigned is exact because nothing is ever queued before time zero.
func earlier(a, b entry) uint64 {
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return borrow
}
