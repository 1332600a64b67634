package engine

// fifo is a queue that keeps its backing array: once it has grown to a channel's working
// depth, pushing and popping allocate nothing. Channels fill and drain all the time, and a
// queue that let go of its array whenever it emptied would allocate one per buffer.
type fifo[T any] struct {
	items []T // items[head:] are queued
	head  int
}

func (q *fifo[T]) len() int { return len(q.items) - q.head }

// all returns the queued items, front first; they stay queued.
func (q *fifo[T]) all() []T { return q.items[q.head:] }

func (q *fifo[T]) front() T { return q.items[q.head] }

func (q *fifo[T]) push(v T) {
	if q.head > 0 && len(q.items) == cap(q.items) {
		// Slide the queued items to the front instead of growing.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items = q.items[:n]
		q.head = 0
	}
	q.items = append(q.items, v)
}

func (q *fifo[T]) pop() T {
	var zero T
	v := q.items[q.head]
	q.items[q.head] = zero // let go of what the item points to
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v
}
