package sim

// slot is anything the kernel can schedule: a timer, a link's next delivery, a storage
// operation, a notification. It lives inside the object it belongs to, so scheduling never
// allocates. At most one queue entry refers to a slot at a time; index says where it is,
// which is what makes cancellation an O(log n) removal instead of lazy garbage.
type slot struct {
	index int   // position in the queue, or -1 when not queued
	owner *Host // host whose incarnation must be up for run to be called; nil for the kernel
	run   func()
}

func (s *slot) queued() bool { return s.index >= 0 }

// entry is one scheduled firing. The key (at, seq) is copied into the entry so comparisons
// read contiguous memory; seq is unique per push, so keys never tie.
type entry struct {
	at   Time
	seq  uint64
	slot *slot
}

func (e entry) before(f entry) bool {
	if e.at != f.at {
		return e.at < f.at
	}
	return e.seq < f.seq
}

// arity is the number of children per heap node. Four halve the depth of a binary heap,
// which matters because every level an entry moves also writes the moved slot's index; with
// a thousand pending events it measured about a quarter faster than two.
const arity = 4

// queue is a 4-ary min-heap of entries ordered by (at, seq) that keeps each slot's index
// current. It is written out by hand rather than with container/heap to avoid interface
// calls on the hot path.
type queue struct {
	entries []entry
	// hole is set while the entry being fired still occupies the root as a placeholder (see
	// openHole); hole's slot stands in for the fired one.
	hole     bool
	holeSlot slot
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
// be queued, so the heap order holds around it.
func (q *queue) openHole() entry {
	top := q.entries[0]
	top.slot.index = -1
	q.holeSlot = slot{index: 0}
	q.entries[0].slot = &q.holeSlot
	q.hole = true
	return top
}

// closeHole removes the placeholder if nothing filled it.
func (q *queue) closeHole() {
	if q.hole {
		q.hole = false
		q.removeAt(q.holeSlot.index)
	}
}

// min returns the earliest entry; there must be one, and no hole.
func (q *queue) min() entry { return q.entries[0] }

func (q *queue) push(e entry) {
	if e.slot.queued() {
		panic("sim: slot pushed twice")
	}
	if q.hole && q.holeSlot.index == 0 {
		q.hole = false
		q.entries[0] = e
		e.slot.index = 0
		q.down(0)
		return
	}
	e.slot.index = len(q.entries)
	q.entries = append(q.entries, e)
	q.up(e.slot.index)
}

// remove takes s out of the queue if it is there, and reports whether it was.
func (q *queue) remove(s *slot) bool {
	if !s.queued() {
		return false
	}
	if q.entries[s.index].slot != s {
		panic("sim: queue index out of step with its slot")
	}
	q.removeAt(s.index)
	return true
}

// reschedule moves an already queued slot to a new key.
func (q *queue) reschedule(s *slot, at Time, seq uint64) {
	i := s.index
	q.entries[i].at = at
	q.entries[i].seq = seq
	if !q.up(i) {
		q.down(i)
	}
}

func (q *queue) removeAt(i int) {
	last := len(q.entries) - 1
	removed := q.entries[i].slot
	if i != last {
		q.entries[i] = q.entries[last]
		q.entries[i].slot.index = i
	}
	q.entries[last] = entry{} // drop the pointer so the garbage collector can see it is gone
	q.entries = q.entries[:last]
	removed.index = -1
	if i != last {
		if !q.up(i) {
			q.down(i)
		}
	}
}

// filter removes every entry whose slot matches drop, then restores the heap in O(n). It is
// how a crash discards everything queued for a host: rare, so a linear pass is the right cost.
func (q *queue) filter(drop func(s *slot) bool) {
	kept := q.entries[:0]
	for _, e := range q.entries {
		if drop(e.slot) {
			e.slot.index = -1
			continue
		}
		kept = append(kept, e)
	}
	for i := len(kept); i < len(q.entries); i++ {
		q.entries[i] = entry{}
	}
	q.entries = kept
	for i := range q.entries {
		q.entries[i].slot.index = i
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
		q.entries[i].slot.index = i
		i = parent
	}
	q.entries[i] = e
	e.slot.index = i
	return i != start
}

func (q *queue) down(i int) {
	n := len(q.entries)
	e := q.entries[i]
	for {
		first := arity*i + 1
		if first >= n {
			break
		}
		child := first
		for c := first + 1; c < min(first+arity, n); c++ {
			if q.entries[c].before(q.entries[child]) {
				child = c
			}
		}
		if !q.entries[child].before(e) {
			break
		}
		q.entries[i] = q.entries[child]
		q.entries[i].slot.index = i
		i = child
	}
	q.entries[i] = e
	e.slot.index = i
}
