package engine

import "github.com/ckptsim/ckptsim/protocol"

// router picks the output channels of one edge for each record a task emits. Channels are
// indexed by downstream task index.
type router struct {
	partitioning Partitioning
	self         int // this task's index, for Forward
	fanout       int // downstream parallelism
	next         int // Rebalance's round-robin position
	// groups[k] is the downstream index that owns key k of the catalog under Hash: the key
	// groups worked out once, instead of a division per record.
	groups []int32
}

// newRouter routes to fanout downstream tasks; keyGroups is the job's number of key groups
// (Graph.MaxParallelism; 0: as many as downstream tasks).
func newRouter(c *catalog, p Partitioning, self, fanout, keyGroups int) *router {
	// Rebalance starts at the task's own index so that parallel senders do not all hit
	// downstream task 0 first.
	r := &router{partitioning: p, self: self, fanout: fanout, next: self % fanout}
	if p == Hash {
		if keyGroups == 0 {
			keyGroups = fanout
		}
		r.groups = make([]int32, len(c.keys))
		for k := range r.groups {
			g := protocol.KeyGroupOf(c.keyGroup[k], keyGroups)
			r.groups[k] = int32(protocol.OperatorIndexOf(g, keyGroups, fanout))
		}
	}
	return r
}

// targets returns the downstream indices record goes to: the n indices from first on. It
// is a range rather than a callback so that routing a record allocates nothing.
func (r *router) targets(record *rec) (first, n int) {
	switch r.partitioning {
	case Forward:
		return r.self, 1
	case Hash:
		return int(r.groups[record.key]), 1
	case Rebalance:
		i := r.next
		r.next = (r.next + 1) % r.fanout
		return i, 1
	case Broadcast:
		return 0, r.fanout
	}
	panic(invariantf("engine: router with unknown partitioning %s", r.partitioning))
}

// KeyGroup returns the index of the task, out of parallelism, that owns key under Hash
// partitioning in a job of maxParallelism key groups (0: as many as tasks): the task whose
// range holds the key group of FNV-1a of the key.
func KeyGroup(key string, maxParallelism, parallelism int) int {
	if maxParallelism == 0 {
		maxParallelism = parallelism
	}
	return protocol.OperatorIndexOf(protocol.KeyGroupOf(keyHash(key), maxParallelism), maxParallelism, parallelism)
}

// keyHash is the 64-bit FNV-1a hash of key.
func keyHash(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return h
}
