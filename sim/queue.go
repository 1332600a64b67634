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
//
// Position p of the heap is the root for p == 0 and otherwise fams[(p-1)/4][(p-1)%4], so the
// children of position p are exactly fams[p], one array of four. The last family is filled
// up with sentinels, keys after every real one, so every node with children has four: the
// sift down then needs one comparison of p against len(fams) a level, which is also the
// bounds check, and no special case for a short family.
type queue struct {
	root    entry
	fams    [][arity]entry // fams[p] are the children of position p; see above
	n       int            // entries in the heap, the hole included
	handles []handleRow    // indexed by handle; rows of free handles have a nil slot
	free    []int32        // handles not in use
	// hole is set while the entry being fired still occupies the root as a placeholder (see
	// openHole); holeHandle is its handle, whose row has a nil slot meanwhile.
	hole       bool
	holeHandle int32
}

// sentinel fills the unused places of the last family. Its key is after every real key: no
// real entry has the largest sequence number.
var sentinel = entry{at: math.MaxInt64, seq: math.MaxUint64, handle: -1}

// newQueue returns an empty queue with room for capacity entries before it grows.
func newQueue(capacity int) queue {
	return queue{
		fams:    make([][arity]entry, 0, capacity/arity),
		handles: make([]handleRow, 0, capacity),
		free:    make([]int32, 0, capacity),
	}
}

// ref returns the entry at position p, which must be below n.
func (q *queue) ref(p int) *entry {
	if p == 0 {
		return &q.root
	}
	return &q.fams[(p-1)/arity][(p-1)%arity]
}

// len returns the number of queued entries, not counting a hole.
func (q *queue) len() int {
	if q.hole {
		return q.n - 1
	}
	return q.n
}

// openHole takes the earliest entry out of the queue for firing but leaves a placeholder with
// its key at the root. If the event schedules something (a timer re-arming itself, a link
// moving on to its next message), push fills the hole with one pass down the heap instead of
// a pass down to remove the root and another up to insert: that halves the cost of the most
// common event. The placeholder's key is the fired one, before every other key queued or to
// be queued, so the heap order holds around it and it stays at the root.
func (q *queue) openHole() (entry, *slot) {
	top := q.root
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
func (q *queue) min() entry { return q.root }

// slotAt returns the slot of the entry at position p (nil for the hole).
func (q *queue) slotAt(p int) *slot { return q.handles[q.ref(p).handle].slot }

// at returns the instant a queued slot is due.
func (q *queue) at(s *slot) Time { return q.ref(int(q.handles[s.handle].position)).at }

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
		q.root = entry{at: at, seq: seq, handle: h}
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
	p := q.n
	q.n++
	if p > 0 && (p-1)%arity == 0 {
		q.fams = append(q.fams, [arity]entry{sentinel, sentinel, sentinel, sentinel})
	}
	q.handles[h] = handleRow{slot: s, position: int32(p)}
	*q.ref(p) = entry{at: at, seq: seq, handle: h}
	q.up(p)
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
	p := int(q.handles[s.handle].position)
	e := q.ref(p)
	e.at = at
	e.seq = seq
	if !q.up(p) {
		q.down(p)
	}
}

// removeAt takes out the entry at position p and frees its handle, telling its slot (the
// hole has none).
func (q *queue) removeAt(p int) {
	last := q.n - 1
	e := q.ref(p)
	h := e.handle
	if s := q.handles[h].slot; s != nil {
		s.handle = -1
	}
	q.handles[h].slot = nil
	q.free = append(q.free, h)
	lastEntry := q.ref(last)
	moved := *lastEntry
	*lastEntry = sentinel
	q.n = last
	if last > 0 && (last-1)%arity == 0 {
		q.fams = q.fams[:len(q.fams)-1] // the last family held only the entry just moved
	}
	if p != last {
		*e = moved
		q.handles[moved.handle].position = int32(p)
		if !q.up(p) {
			q.down(p)
		}
	}
}

// filter removes every entry whose slot matches drop, then restores the heap in O(n). It is
// how a crash discards everything queued for a host: rare, so a linear pass is the right cost.
// The hole, if open, has no slot and is kept.
func (q *queue) filter(drop func(s *slot) bool) {
	kept := make([]entry, 0, q.n)
	for p := range q.n {
		e := *q.ref(p)
		row := &q.handles[e.handle]
		if row.slot != nil && drop(row.slot) {
			row.slot.handle = -1
			row.slot = nil
			q.free = append(q.free, e.handle)
			continue
		}
		kept = append(kept, e)
	}
	// The hole, kept, is the earliest entry, so the root stays first.
	q.n = 0
	q.fams = q.fams[:0]
	for p, e := range kept {
		q.n++
		if p > 0 && (p-1)%arity == 0 {
			q.fams = append(q.fams, [arity]entry{sentinel, sentinel, sentinel, sentinel})
		}
		*q.ref(p) = e
		q.handles[e.handle].position = int32(p)
	}
	for p := len(q.fams) - 1; p >= 0; p-- { // positions below len(fams) are those with children
		q.down(p)
	}
}

// up moves the entry at position p towards the root and reports whether it moved.
func (q *queue) up(p int) bool {
	start := p
	gap := q.ref(p)
	e := *gap
	for p > 0 {
		parent := (p - 1) / arity
		pe := q.ref(parent)
		if earlier(e, *pe) == 0 {
			break
		}
		*gap = *pe
		q.handles[gap.handle].position = int32(p)
		gap, p = pe, parent
	}
	*gap = e
	q.handles[e.handle].position = int32(p)
	return p != start
}

// down moves the entry at position p away from the root to where it belongs. Which of four
// siblings is the earliest is a coin toss the branch predictor loses half the time, so a
// family is decided without branches: a tournament of two pairs and a final, each settled by
// a borrow.
//
// It works top-down, comparing the entry with the earliest child at every level. Sifting
// bottom-up (the earliest child moved up all the way to a leaf, then the entry rising) saves
// that comparison, about 10 instructions an event when new events belong near the bottom
// (BenchmarkTimerEventHold1k), but costs 2.6 times the instructions when they belong near
// the top (BenchmarkTimerEventBacklog1k: a near timer over a far backlog, as in a run whose
// harness has armed its fault and phase timers ahead).
func (q *queue) down(p int) {
	fams, handles := q.fams, q.handles
	gap := q.ref(p)
	e := *gap
	for uint(p) < uint(len(fams)) {
		family := &fams[p]
		left := int(earlier(family[1], family[0]))      // 0 or 1
		right := 2 + int(earlier(family[3], family[2])) // 2 or 3
		pickRight := -int(earlier(family[right&3], family[left&3]))
		c := (left ^ ((left ^ right) & pickRight)) & 3
		child := &family[c]
		if earlier(*child, e) == 0 {
			break
		}
		*gap = *child
		handles[gap.handle].position = int32(p)
		gap, p = child, arity*p+1+c
	}
	*gap = e
	handles[e.handle].position = int32(p)
}

// earlier returns 1 if a's key is before b's and 0 otherwise, without a branch: it is the
// borrow out of the 128-bit subtraction (a.at, a.seq) - (b.at, b.seq). Comparing at as
// unsigned is exact because nothing is ever queued before time zero.
func earlier(a, b entry) uint64 {
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return borrow
}
