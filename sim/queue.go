package sim

import "math"

// slot is anything the kernel can schedule: a timer, a link's next delivery, a storage
// operation, a notification. It lives inside the object it belongs to, so scheduling never
// allocates. At most one live queue entry refers to a slot at a time; handle names it.
type slot struct {
	handle int32 // the slot's row in the queue's handle table, or -1 when not queued
	owner  *Host // host whose incarnation must be up for run to be called; nil for the kernel
	run    func()
}

func (s *slot) queued() bool { return s.handle >= 0 }

// entry is one scheduled firing in the heap. The key (at, seq) is copied into the entry so
// comparisons read contiguous memory. seq is unique per push, except that a link files its
// front message again with the message's own key, so a live entry's key may equal a dead
// one's (see queue), never another live one's. The entry names its slot by handle rather
// than by pointer: the heap array then holds no pointers, so moving entries up and down
// needs no write barrier, and the garbage collector need not scan it. The engine allocates
// enough that a collection is often under way; on ten virtual seconds of the standard
// scenario, slot pointers in the entries (with the same sifting) cost about 2M fewer
// instructions in the kernel and about 10M more in write barriers (cachegrind).
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

// handleRow is what a handle names: the queued slot (nil once the entry was cancelled, while
// it is being fired, or when the handle is free), when it is due, and which store holds it.
// For an entry in the wheel it also holds the entry's sequence number and the next handle of
// its bucket plus one (the heap keeps its keys in its entries).
type handleRow struct {
	slot    *slot
	at      Time
	seq     uint64 // in the wheel only
	next    int32  // in the wheel only
	inWheel bool
}

// queue orders the kernel's pending events by (at, seq). It keeps them in a 4-ary heap
// (heap.go) and in a wheel of sorted buckets for events due within a few milliseconds
// (wheel.go). The earliest event is the earlier of the wheel's first and the heap's root.
// Both are exact in (at, seq), so which one holds an event never changes the order; the
// choice is about cost.
//
// A small heap is the cheapest queue there is: an event that re-arms itself fills the hole
// its firing left at the root (see openHole) and barely moves, and with a few dozen events
// pending a sift is two or three levels. A heap of a thousand, where a new event sinks five
// levels, costs more than the wheel's constant work. So an event goes to the heap while the
// heap holds fewer than wheelFrom entries, when it is due beyond the wheel's span, and when
// it comes out on top of the heap anyway (before the root, or, filling the hole, before the
// root's children: a harness's near timer over a backlog of far ones); otherwise, since it
// would sink into a big heap, to the wheel.
//
// Cancelling is lazy: Stop (and Reset of an armed timer, which cancels and pushes anew) only
// clears the entry's handle row, and the dead entry stays where it is until it comes first,
// where it is dropped without firing, or until dead entries outnumber live ones and a
// linear pass sweeps them all. Neither store therefore needs to know where an entry is, and
// a sift moves entries without writing their positions anywhere. Cancellation is rare where
// it matters (about 100 of 48,500 events in the engine's standard job).
type queue struct {
	heap      heap
	wheel     wheel
	wheelFrom int // heap size from which events may go to the wheel
	live      int // entries that will fire: not the dead, nor the one being fired
	heapDead  int // cancelled entries still in the heap
	wheelDead int // cancelled entries still in the wheel

	handles []handleRow // indexed by handle
	free    []int32     // handles not in use
	// firing is the handle of the entry being fired, kept for the first push of its event,
	// or -1 (see openHole). hole is set while that entry came from the heap and still
	// occupies its root as a placeholder; linked is its wheel bucket plus one while it came
	// from the wheel and is still the first of that bucket (see unlink), or 0.
	firing int32
	hole   bool
	linked int
}

// defaultWheelFrom is the heap size from which the queue uses its wheel (see queue). In the
// hold model (BenchmarkTimerEventHold1k), 128 left an eighth of the events sinking into a
// heap of 128: 459 instructions and 51 ns an event, against 447 and 48 ns with 32. The
// standard job (about 50 events pending, 110 at most) costs the same with 16, 32 or 128:
// 167.2M to 167.4M instructions a job.
const defaultWheelFrom = 32

// minDeadToSweep is how many dead entries the queue may hold before any sweep: below it a
// sweep would cost more than the dead entries do.
const minDeadToSweep = 32

// newQueue returns an empty queue with room for capacity entries before it grows.
func newQueue(capacity int) queue {
	return queue{
		heap:      newHeap(capacity),
		wheelFrom: defaultWheelFrom,
		handles:   make([]handleRow, 0, capacity),
		free:      make([]int32, 0, capacity),
		firing:    -1,
	}
}

// len returns the number of live entries: not the dead, nor the one being fired.
func (q *queue) len() int { return q.live }

// peek returns the earliest entry and where it is: the wheel bucket it heads, or -1 for the
// heap's root. There must be one, and no event being fired.
func (q *queue) peek() (entry, int) {
	if q.wheel.n == 0 {
		return q.heap.root, -1
	}
	return q.peekWheel()
}

func (q *queue) peekWheel() (entry, int) {
	b := q.wheel.front()
	h := q.wheel.buckets[b].first - 1
	row := &q.handles[h]
	first := entry{at: row.at, seq: row.seq, handle: h}
	if q.heap.n > 0 && earlier(q.heap.root, first) == 1 {
		return q.heap.root, -1
	}
	return first, int(b)
}

// min returns the earliest entry; there must be one, and no event being fired.
func (q *queue) min() entry {
	e, _ := q.peek()
	return e
}

// openHole takes the entry peek returned out of the queue for firing, and keeps its handle
// for the first push of the event: a timer re-arming itself, a link moving on to its next
// message. An entry from the wheel leaves it. One from the heap leaves a placeholder with
// its key at the root, and a push fills that hole with one pass down the heap instead of a
// pass down to remove the root and another up to insert. The placeholder's key is the fired
// one, before every other key queued or to be queued, so the heap order holds around it and
// it stays at the root.
func (q *queue) openHole(e entry, from int) (entry, *slot) {
	row := &q.handles[e.handle]
	s := row.slot
	row.slot, s.handle = nil, -1
	q.firing = e.handle
	q.live--
	q.wheel.advance(e.at)
	if from >= 0 {
		q.linked = from + 1
	} else {
		q.hole = true
	}
	return e, s
}

// unlink takes the entry being fired out of its wheel bucket. openHole leaves that to the
// first thing that needs it (a push, a cancellation, closeHole), so that it stays small
// enough to be inlined into the run loop.
func (q *queue) unlink() {
	q.wheel.popFront(uint(q.linked-1), &q.handles[q.firing])
	q.linked = 0
}

// closeHole ends the firing of an event: if nothing took the fired entry's handle, it takes
// the entry out of its store and frees the handle. Most events take the handle, so it is
// written to be inlined into the run loop, with the work in tidy.
func (q *queue) closeHole() {
	if q.firing >= 0 {
		q.tidy()
	}
}

func (q *queue) tidy() {
	if q.linked != 0 {
		q.unlink()
	}
	if q.hole {
		q.hole = false
		q.heap.pop()
	}
	q.free = append(q.free, q.firing)
	q.firing = -1
	if q.heapDead > 0 && q.heap.n > 0 && q.handles[q.heap.root.handle].slot == nil || q.wheelDead > 0 {
		q.dropDead()
	}
}

// dropDead removes dead entries from the heap's root and the wheel's front until live ones
// (or nothing) are there, so that peek sees the next event to fire. The heap's root is left
// alone while it is the hole.
func (q *queue) dropDead() {
	for q.heapDead > 0 && !q.hole && q.heap.n > 0 && q.handles[q.heap.root.handle].slot == nil {
		q.free = append(q.free, q.heap.root.handle)
		q.heap.pop()
		q.heapDead--
	}
	if q.wheelDead > 0 {
		q.dropDeadInWheel()
	}
}

func (q *queue) dropDeadInWheel() {
	for q.wheelDead > 0 {
		b := q.wheel.front()
		h := q.wheel.buckets[b].first - 1
		row := &q.handles[h]
		if row.slot != nil {
			break
		}
		q.wheel.popFront(b, row)
		q.free = append(q.free, h)
		q.wheelDead--
	}
}

// at returns the instant a queued slot is due.
func (q *queue) at(s *slot) Time { return q.handles[s.handle].at }

// push queues s at (at, seq).
//
// A dead entry can come first only when the first entry leaves its store, so that is when
// the queue looks for one: when the fired entry leaves (here, when a push takes its handle,
// or in tidy) and when an entry is cancelled. Dead entries are common (a cancelled flush
// timer stays in the heap until it comes due) but rarely first, so it looks before calling
// dropDead.
func (q *queue) push(s *slot, at Time, seq uint64) {
	if s.queued() {
		panic("sim: slot pushed twice")
	}
	q.live++
	h := q.firing
	if h < 0 {
		h = q.newHandle()
	} else {
		if q.linked != 0 {
			q.unlink()
			if q.wheelDead > 0 {
				q.dropDead()
			}
		}
		q.firing = -1
	}
	s.handle = h
	row := &q.handles[h]
	row.slot, row.at, row.inWheel = s, at, false
	e := entry{at: at, seq: seq, handle: h}
	if q.hole {
		// The hole is at the heap's root (see openHole): the new entry takes its place,
		// unless it would sink into a big heap and the wheel can take it.
		q.hole = false
		if q.heap.n <= q.wheelFrom || !q.wheel.accepts(at) {
			q.heap.replaceRoot(e)
			if q.heapDead > 0 && q.handles[q.heap.root.handle].slot == nil {
				q.dropDead()
			}
			return
		}
		if q.heap.staysOnTop(e) {
			q.heap.root = e
			return
		}
		q.heap.pop()
		if q.heapDead > 0 && q.heap.n > 0 && q.handles[q.heap.root.handle].slot == nil {
			q.dropDead()
		}
	}
	if q.heap.n >= q.wheelFrom && at > q.heap.root.at && q.wheel.accepts(at) {
		row.seq = seq // only the wheel reads it
		if q.wheel.insert(q.handles, h, row) {
			row.inWheel = true
			return
		}
	}
	q.heap.push(e)
}

func (q *queue) newHandle() int32 {
	if n := len(q.free); n > 0 {
		h := q.free[n-1]
		q.free = q.free[:n-1]
		return h
	}
	if len(q.handles) == math.MaxInt32 {
		panic("sim: more events queued than a handle can name") // MaxPending stops runs long before
	}
	q.handles = append(q.handles, handleRow{})
	return int32(len(q.handles) - 1)
}

// remove cancels s's entry if it is queued, and reports whether it was.
func (q *queue) remove(s *slot) bool {
	if !s.queued() {
		return false
	}
	if q.linked != 0 {
		q.unlink()
	}
	row := &q.handles[s.handle]
	if row.slot != s {
		panic("sim: queue handle out of step with its slot")
	}
	row.slot = nil
	s.handle = -1
	q.live--
	if row.inWheel {
		q.wheelDead++
	} else {
		q.heapDead++
	}
	q.dropDead()
	if dead := q.heapDead + q.wheelDead; dead > minDeadToSweep && dead > q.live {
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

// filter removes every entry whose slot matches drop, and every dead entry, in O(n). It is
// how a crash discards everything queued for a host, and how dead entries are swept: rare,
// so a linear pass is the right cost. The hole, if open, has no slot and is kept; being the
// earliest entry, it stays at the heap's root.
func (q *queue) filter(drop func(s *slot) bool) {
	if q.linked != 0 {
		q.unlink()
	}
	keep := func(h int32) bool {
		row := &q.handles[h]
		if row.slot == nil {
			if row.inWheel {
				q.wheelDead--
			} else {
				q.heapDead--
			}
		} else if drop(row.slot) {
			row.slot.handle = -1
			row.slot = nil
			q.live--
		} else {
			return true
		}
		q.free = append(q.free, h)
		return false
	}
	q.heap.filter(func(e entry) bool { return (q.hole && e.handle == q.firing) || keep(e.handle) })
	q.wheel.filter(q.handles, keep)
}
