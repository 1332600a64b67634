package sim

import (
	"math"
	"math/bits"
)

// slot is anything the kernel can schedule: a timer, a link's next delivery, a storage
// operation, a notification. It lives inside the object it belongs to, so scheduling never
// allocates. At most one live queue entry refers to a slot at a time; handle names it.
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

// handleRow is what a handle names: the queued slot, or nil once the entry was cancelled (or
// while it is the hole, or when the handle is free), and the instant it is due, for Deadline.
type handleRow struct {
	slot *slot
	at   Time
}

// arity is the number of children per heap node. Four halve the depth of a binary heap;
// with a thousand pending events it measured about a quarter faster than two.
//
// A radix heap (a hierarchical timing wheel of 256 one-nanosecond buckets a level, exact in
// (at, seq), nodes linked by index) was tried in place of the heap: 637 instructions an
// event instead of 707 in the hold model (BenchmarkTimerEventHold1k), but 478 instead of 228
// for a single timer and 729 instead of 477 for a link message, since every event is filed
// two or three times as it cascades down the levels, where a small heap barely moves it.
const arity = 4

// queue is a 4-ary min-heap of entries ordered by (at, seq). It is written out by hand rather
// than with container/heap to avoid interface calls on the hot path.
//
// Position p of the heap is the root for p == 0 and otherwise fams[(p-1)/4][(p-1)%4], so the
// children of position p are exactly fams[p], one array of four. The last family is filled
// up with sentinels, keys after every real one, so every node with children has four: the
// sift down then needs one comparison of p against len(fams) a level, which is also the
// bounds check, and no special case for a short family.
//
// Cancelling is lazy: Stop (and Reset of an armed timer, which cancels and pushes anew) only
// clears the entry's handle row, and the dead entry stays in the heap until it reaches the
// root, where it is dropped without firing, or until dead entries outnumber live ones and a
// linear pass sweeps them all. The heap therefore never needs to know where an entry is, and
// a sift moves entries without writing their positions anywhere: in the hold model that was
// a scattered store and most of the spilled registers of every level. Cancellation is rare
// where it matters (about 100 of 48,500 events in the engine's standard job).
type queue struct {
	root    entry
	fams    [][arity]entry // fams[p] are the children of position p; see above
	n       int            // entries in the heap: live, dead and the hole
	dead    int            // cancelled entries still in the heap
	handles []handleRow    // indexed by handle
	free    []int32        // handles not in use
	// hole is set while the entry being fired still occupies the root as a placeholder (see
	// openHole); holeHandle is its handle, whose row has a nil slot meanwhile.
	hole       bool
	holeHandle int32
}

// sentinel fills the unused places of the last family. Its key is after every real key: no
// real entry has the largest sequence number.
var sentinel = entry{at: math.MaxInt64, seq: math.MaxUint64, handle: -1}

// minDeadToSweep is how many dead entries the heap may hold before any sweep: below it a
// sweep would cost more than the dead entries do.
const minDeadToSweep = 32

// newQueue returns an empty queue with room for capacity entries before it grows.
func newQueue(capacity int) queue {
	return queue{
		root:    sentinel,
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

// len returns the number of live entries: not the dead, nor a hole.
func (q *queue) len() int {
	n := q.n - q.dead
	if q.hole {
		n--
	}
	return n
}

// openHole takes the earliest entry out of the queue for firing but leaves a placeholder with
// its key at the root. If the event schedules something (a timer re-arming itself, a link
// moving on to its next message), push fills the hole with one pass down the heap instead of
// a pass down to remove the root and another up to insert: that halves the cost of the most
// common event. The placeholder's key is the fired one, before every other key queued or to
// be queued, so the heap order holds around it and it stays at the root. The root is live
// (see dropDeadRoots).
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

// closeHole removes the placeholder if nothing filled it, and any dead entries that came up
// to the root. Most events fill the hole and leave no dead entry, so it is written to be
// inlined into the run loop, with the work in tidy.
func (q *queue) closeHole() {
	if q.hole || q.dead > 0 {
		q.tidy()
	}
}

func (q *queue) tidy() {
	if q.hole {
		q.hole = false
		q.pop()
	}
	q.dropDeadRoots()
}

// dropDeadRoots pops dead entries off the root until a live one (or nothing) is there, so
// that min and openHole see the next event to fire. There must be no hole.
func (q *queue) dropDeadRoots() {
	for q.n > 0 && q.handles[q.root.handle].slot == nil {
		q.pop()
		q.dead--
	}
}

// min returns the earliest entry; there must be one, and no hole.
func (q *queue) min() entry { return q.root }

// slotAt returns the slot of the entry at position p (nil for the hole and dead entries).
func (q *queue) slotAt(p int) *slot { return q.handles[q.ref(p).handle].slot }

// at returns the instant a queued slot is due.
func (q *queue) at(s *slot) Time { return q.handles[s.handle].at }

func (q *queue) push(s *slot, at Time, seq uint64) {
	if s.queued() {
		panic("sim: slot pushed twice")
	}
	if q.hole {
		// The hole is at the root (see openHole): the new entry takes its place and handle.
		q.hole = false
		h := q.holeHandle
		q.handles[h] = handleRow{slot: s, at: at}
		s.handle = h
		q.root = entry{at: at, seq: seq, handle: h}
		if len(q.fams) > 0 {
			q.down(0)
		}
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
	q.handles[h] = handleRow{slot: s, at: at}
	p := q.n
	q.n++
	if p > 0 && (p-1)%arity == 0 {
		q.fams = append(q.fams, [arity]entry{sentinel, sentinel, sentinel, sentinel})
	}
	*q.ref(p) = entry{at: at, seq: seq, handle: h}
	q.up(p)
}

// remove cancels s's entry if it is queued, and reports whether it was.
func (q *queue) remove(s *slot) bool {
	if !s.queued() {
		return false
	}
	row := &q.handles[s.handle]
	if row.slot != s {
		panic("sim: queue handle out of step with its slot")
	}
	row.slot = nil
	s.handle = -1
	q.dead++
	if q.hole {
		return true // closeHole tidies up
	}
	q.dropDeadRoots()
	if q.dead > minDeadToSweep && q.dead > q.len() {
		q.filter(func(*slot) bool { return false })
	}
	return true
}

// reschedule moves an already queued slot to a new key: it cancels the old entry and pushes a
// new one.
func (q *queue) reschedule(s *slot, at Time, seq uint64) {
	q.remove(s)
	q.push(s, at, seq)
}

// pop takes the root out of the heap and frees its handle. It is the hole or a dead entry, so
// no slot needs telling.
func (q *queue) pop() {
	q.free = append(q.free, q.root.handle)
	last := q.n - 1
	lastEntry := q.ref(last)
	moved := *lastEntry
	*lastEntry = sentinel
	q.n = last
	if last > 0 && (last-1)%arity == 0 {
		q.fams = q.fams[:len(q.fams)-1] // the last family held only the entry just moved
	}
	if last > 0 {
		q.root = moved
		if len(q.fams) > 0 {
			q.down(0)
		}
	}
}

// filter removes every entry whose slot matches drop, and every dead entry, then restores the
// heap in O(n). It is how a crash discards everything queued for a host, and how dead entries
// are swept: rare, so a linear pass is the right cost. The hole, if open, has no slot and is
// kept; being the earliest entry, it stays at the root.
func (q *queue) filter(drop func(s *slot) bool) {
	kept := make([]entry, 0, q.n)
	for p := range q.n {
		e := *q.ref(p)
		if q.hole && p == 0 {
			kept = append(kept, e)
			continue
		}
		row := &q.handles[e.handle]
		if row.slot == nil {
			q.dead--
		} else if drop(row.slot) {
			row.slot.handle = -1
			row.slot = nil
		} else {
			kept = append(kept, e)
			continue
		}
		q.free = append(q.free, e.handle)
	}
	q.n = 0
	q.root = sentinel
	q.fams = q.fams[:0]
	for p, e := range kept {
		q.n++
		if p > 0 && (p-1)%arity == 0 {
			q.fams = append(q.fams, [arity]entry{sentinel, sentinel, sentinel, sentinel})
		}
		*q.ref(p) = e
	}
	for p := len(q.fams) - 1; p >= 0; p-- { // positions below len(fams) are those with children
		q.down(p)
	}
}

// up moves the entry at position p towards the root.
func (q *queue) up(p int) {
	gap := q.ref(p)
	e := *gap
	for p > 0 {
		parent := (p - 1) / arity
		pe := q.ref(parent)
		if earlier(e, *pe) == 0 {
			break
		}
		*gap = *pe
		gap, p = pe, parent
	}
	*gap = e
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
	fams := q.fams
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
		gap, p = child, arity*p+1+c
	}
	*gap = e
}

// earlier returns 1 if a's key is before b's and 0 otherwise, without a branch: it is the
// borrow out of the 128-bit subtraction (a.at, a.seq) - (b.at, b.seq). Comparing at as
// unsigned is exact because nothing is ever queued before time zero.
func earlier(a, b entry) uint64 {
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return borrow
}
