package sim

// ring is a growable FIFO of values on a circular buffer. Once it has grown to its working
// size, pushing and popping never allocate, which keeps message passing allocation-free.
type ring[T any] struct {
	items []T // len(items) is the capacity, a power of two (or zero)
	head  int
	count int
}

func (r *ring[T]) len() int { return r.count }

// at returns the i-th element from the front.
func (r *ring[T]) at(i int) *T { return &r.items[(r.head+i)&(len(r.items)-1)] }

func (r *ring[T]) front() *T { return r.at(0) }

func (r *ring[T]) pushBack(v T) {
	if r.count == len(r.items) {
		r.grow()
	}
	*r.at(r.count) = v
	r.count++
}

func (r *ring[T]) popFront() T {
	if r.count == 0 {
		panic("sim: pop from an empty ring")
	}
	slot := r.at(0)
	v := *slot
	var zero T
	*slot = zero // let go of whatever the element points to
	r.head = (r.head + 1) & (len(r.items) - 1)
	r.count--
	return v
}

// insertSorted inserts v behind every element e with !less(v, e), walking from the back, so a
// FIFO stays a FIFO among equals. It costs the distance moved; reorder is the only user.
func (r *ring[T]) insertSorted(v T, less func(a, b T) bool) int {
	r.pushBack(v)
	i := r.count - 1
	for i > 0 && less(v, *r.at(i - 1)) {
		*r.at(i) = *r.at(i - 1)
		i--
	}
	*r.at(i) = v
	return i
}

func (r *ring[T]) clear() {
	for r.count > 0 {
		r.popFront()
	}
	r.head = 0
}

func (r *ring[T]) grow() {
	size := max(8, 2*len(r.items))
	items := make([]T, size)
	for i := 0; i < r.count; i++ {
		items[i] = *r.at(i)
	}
	r.items = items
	r.head = 0
}
