package engine

// router picks the output channels of one edge for each record a task emits. Channels are
// indexed by downstream task index.
type router struct {
	partitioning Partitioning
	self         int // this task's index, for Forward
	fanout       int // downstream parallelism
	next         int // Rebalance's round-robin position
}

func newRouter(p Partitioning, self, fanout int) *router {
	// Rebalance starts at the task's own index so that parallel senders do not all hit
	// downstream task 0 first.
	return &router{partitioning: p, self: self, fanout: fanout, next: self % fanout}
}

// route calls send with the downstream index of every channel r goes to.
func (r *router) route(rec *Record, send func(index int)) {
	switch r.partitioning {
	case Forward:
		send(r.self)
	case Hash:
		send(KeyGroup(rec.Key, r.fanout))
	case Rebalance:
		i := r.next
		r.next = (r.next + 1) % r.fanout
		send(i)
	case Broadcast:
		for i := 0; i < r.fanout; i++ {
			send(i)
		}
	default:
		panic("engine: router with unknown partitioning " + r.partitioning.String())
	}
}

// KeyGroup returns the index of the task, out of parallelism, that owns key under Hash
// partitioning: FNV-1a of the key modulo the parallelism.
func KeyGroup(key string, parallelism int) int {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return int(h % uint64(parallelism))
}
