package sim

import (
	"math"
	"math/bits"
)

// arity is the number of children per heap node. Four halve the depth of a binary heap;
// with a thousand pending events it measured about a quarter faster than two.
const arity = 4

// heap is a 4-ary min-heap of entries ordered by (at, seq): the queue's store for the events
// its wheel does not take (see queue). It is written out by hand rather than with
// container/heap to avoid interface calls on the hot path, and it knows nothing of slots or
// handles: cancelled entries stay in it until the queue pops them (see queue).
//
// Position p of the heap is the root for p == 0 and otherwise fams[(p-1)/4][(p-1)%4], so the
// children of position p are exactly fams[p], one array of four. The last family is filled
// up with sentinels, keys after every real one, so every node with children has four: the
// sift down then needs one comparison of p against len(fams) a level, which is also the
// bounds check, and no special case for a short family.
type heap struct {
	root entry
	fams [][arity]entry // fams[p] are the children of position p; see above
	n    int            // entries in the heap
}

// sentinel fills the unused places of the last family. Its key is after every real key: no
// real entry has the largest sequence number.
var sentinel = entry{at: math.MaxInt64, seq: math.MaxUint64, handle: -1}

func newHeap(capacity int) heap {
	return heap{root: sentinel, fams: make([][arity]entry, 0, capacity/arity)}
}

// ref returns the entry at position p, which must be below n.
func (hp *heap) ref(p int) *entry {
	if p == 0 {
		return &hp.root
	}
	return &hp.fams[uint(p-1)/arity][uint(p-1)%arity]
}

// grow makes room for one more entry and returns its position.
func (hp *heap) grow() int {
	p := hp.n
	hp.n++
	if p > 0 && (p-1)%arity == 0 {
		hp.fams = append(hp.fams, [arity]entry{sentinel, sentinel, sentinel, sentinel})
	}
	return p
}

// push adds e.
func (hp *heap) push(e entry) {
	p := hp.grow()
	*hp.ref(p) = e
	hp.up(p)
}

// replaceRoot puts e in the root's place: one pass down instead of a pop and a push.
func (hp *heap) replaceRoot(e entry) {
	hp.root = e
	if len(hp.fams) > 0 {
		hp.down(0)
	}
}

// staysOnTop reports whether e, put in the root's place, would stay there: whether it is
// before all of the root's children.
func (hp *heap) staysOnTop(e entry) bool {
	if len(hp.fams) == 0 {
		return true
	}
	f := &hp.fams[0]
	return earlier(e, f[0])&earlier(e, f[1])&earlier(e, f[2])&earlier(e, f[3]) == 1
}

// pop removes the root.
func (hp *heap) pop() {
	last := hp.n - 1
	lastEntry := hp.ref(last)
	moved := *lastEntry
	*lastEntry = sentinel
	hp.n = last
	if last > 0 && (last-1)%arity == 0 {
		hp.fams = hp.fams[:len(hp.fams)-1] // the last family held only the entry just moved
	}
	if last > 0 {
		hp.replaceRoot(moved)
	}
}

// filter keeps the entries for which keep is true and restores the heap order in O(n).
func (hp *heap) filter(keep func(e entry) bool) {
	kept := make([]entry, 0, hp.n)
	for p := range hp.n {
		if e := *hp.ref(p); keep(e) {
			kept = append(kept, e)
		}
	}
	hp.n = 0
	hp.root = sentinel
	hp.fams = hp.fams[:0]
	for _, e := range kept {
		*hp.ref(hp.grow()) = e
	}
	for p := len(hp.fams) - 1; p >= 0; p-- { // positions below len(fams) are those with children
		hp.down(p)
	}
}

// up moves the entry at position p towards the root.
func (hp *heap) up(p int) {
	gap := hp.ref(p)
	e := *gap
	for p > 0 {
		parent := int(uint(p-1) / arity)
		pe := hp.ref(parent)
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
func (hp *heap) down(p int) {
	fams := hp.fams
	gap := hp.ref(p)
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
