package sim

import "math/bits"

// Wheel geometry: 4,096 buckets of 2^wheelShift = 1,024 ns, so the wheel takes the events due
// within about 4.2 ms of the last one fired: a link's latency, a flush timeout, the hold
// model's millisecond.
const (
	wheelShift = 10
	wheelSize  = 4096
)

// wheel holds events that are due soon, in buckets of 2^wheelShift nanoseconds: a timing wheel
// whose buckets are kept sorted by (at, seq), so it gives events in exactly the heap's order.
// Filing an event and taking the earliest are O(1), where a heap of a thousand events moves
// each one through five levels.
//
// The wheel spans wheelSize buckets from base, the bucket of the last event fired. Every
// event in it is due in that span, so bucket numbers taken modulo wheelSize never collide,
// and the earliest event is the first of the first non-empty bucket from base on, found with
// the occupied bitmap. The queue sends events due further ahead to its heap, as it does an
// event whose place is more than maxWalk entries into its bucket and not at its end (many
// distinct instants in one bucket); it compares the wheel's earliest with the heap's root, so the
// split never changes the order.
//
// A radix heap (a hierarchical timing wheel of 256 one-nanosecond buckets a level, exact in
// (at, seq)) was tried instead of the heap: 637 instructions an event instead of 707 in the
// hold model (BenchmarkTimerEventHold1k), but 478 instead of 228 for a single timer and 729
// instead of 477 for a link message, since every event is filed two or three times as it
// cascades down the levels, where a small heap barely moves it. This wheel has one level and
// files an event once, and the queue uses it only beside a big heap.
//
// Buckets are singly linked lists of handles through the queue's handle rows (handleRow.next),
// so filing an event allocates nothing. A bucket holds handle+1 of its first and last events,
// 0 when empty. The arrays have a constant size so that indexing them by a bucket number
// taken modulo wheelSize needs no bounds check; they take 33 KB, allocated when the wheel
// first takes an event, so a kernel that never needs them does not pay for them.
type wheel struct {
	base int64 // the bucket number (at >> wheelShift) of the last event fired
	n    int   // events in the wheel, cancelled ones included
	*wheelTable
}

type wheelTable struct {
	occupied [wheelSize / 64]uint64
	buckets  [wheelSize]bucket
}

type bucket struct{ first, last int32 }

// maxWalk bounds the entries passed to file an event in the middle of its bucket.
const maxWalk = 8

// accepts reports whether an event due at at falls in the wheel's span. at is never before
// the last event fired, nor, therefore, before base's bucket.
func (w *wheel) accepts(at Time) bool {
	return uint64(int64(at)>>wheelShift-w.base) < wheelSize
}

// advance moves base to the bucket of at, the event being fired. Every event in the wheel is
// due at or after it, so none falls out of the span.
func (w *wheel) advance(at Time) { w.base = int64(at) >> wheelShift }

// bucketOf returns the bucket, modulo wheelSize, of an instant.
func (w *wheel) bucketOf(at Time) uint { return uint(int64(at)>>wheelShift) % wheelSize }

// insert files handle h, whose row r holds its key, in its bucket, in order, and reports
// whether it did (false: its place is more than maxWalk entries into the bucket).
func (w *wheel) insert(rows []handleRow, h int32, r *handleRow) bool {
	if w.wheelTable == nil {
		w.wheelTable = new(wheelTable)
	}
	b := w.bucketOf(r.at)
	bk := &w.buckets[b]
	if bk.first == 0 {
		bk.first, bk.last, r.next = h+1, h+1, 0
		w.occupied[b/64] |= 1 << (b % 64)
		w.n++
		return true
	}
	if tail := &rows[bk.last-1]; !rowEarlier(r, tail) {
		// After the bucket's latest: the usual case, since sequence numbers only grow. (The
		// key may equal a dead entry's: a link files its front message again with the
		// message's own key after cancelling it.)
		tail.next, bk.last, r.next = h+1, h+1, 0
		w.n++
		return true
	}
	link := &bk.first // the link to rewrite: the bucket's head, or a row's next
	for range maxWalk {
		if next := &rows[*link-1]; rowEarlier(r, next) {
			r.next, *link = *link, h+1
			w.n++
			return true
		} else {
			link = &next.next
		}
	}
	return false
}

// front returns the bucket that holds the wheel's earliest event. The wheel must not be
// empty. It looks at base's bitmap word, and leaves a search further on to frontAfter.
func (w *wheel) front() uint {
	b := uint(w.base) % wheelSize
	if x := w.occupied[b/64] >> (b % 64); x != 0 {
		return b + uint(bits.TrailingZeros64(x))
	}
	return w.frontAfter(b / 64)
}

// frontAfter returns the first occupied bucket in the bitmap words after word, wrapping.
func (w *wheel) frontAfter(word uint) uint {
	const words = wheelSize / 64
	for i := uint(1); i <= words; i++ {
		// At i == words this is base's word again, whose bits from base on are clear: the
		// bits below are the buckets at the far end of the span.
		wi := (word + i) % words
		if x := w.occupied[wi]; x != 0 {
			return wi*64 + uint(bits.TrailingZeros64(x))
		}
	}
	panic("sim: front of an empty wheel")
}

// popFront unlinks the earliest handle of bucket b, whose row is r.
func (w *wheel) popFront(b uint, r *handleRow) {
	bk := &w.buckets[b%wheelSize]
	bk.first = r.next
	if r.next == 0 {
		bk.last = 0
		w.occupied[b%wheelSize/64] &^= 1 << (b % 64)
	}
	w.n--
}

// filter keeps the handles for which keep is true, in their order.
func (w *wheel) filter(rows []handleRow, keep func(h int32) bool) {
	if w.n == 0 {
		return
	}
	for b := range w.buckets {
		bk := &w.buckets[b]
		if bk.first == 0 {
			continue
		}
		link, last := &bk.first, int32(0)
		for h := bk.first; h != 0; h = rows[h-1].next {
			if keep(h - 1) {
				*link, last = h, h
				link = &rows[h-1].next
			} else {
				w.n--
			}
		}
		*link = 0
		bk.last = last
		if last == 0 {
			w.occupied[b/64] &^= 1 << (b % 64)
		}
	}
}

// rowEarlier reports whether a's key is before b's.
func rowEarlier(a, b *handleRow) bool {
	return earlier(entry{at: a.at, seq: a.seq}, entry{at: b.at, seq: b.seq}) == 1
}
