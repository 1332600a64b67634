package engine

import "fmt"

// keyedState is an operator's state per key, indexed by the key's place in the job's
// catalog: reading and updating a key is an array access, with no hashing of strings. The
// catalog numbers keys in ascending order, so a snapshot writes them sorted by walking the
// indices, and the encoding (with it the digest in snapshot.taken) depends only on the
// state.
type keyedState struct {
	catalog *catalog
	values  []int64 // by key index, grown to the highest key put
	present []bool  // whether the key has a value
	count   int     // keys present
}

func newKeyedState(c *catalog) *keyedState { return &keyedState{catalog: c} }

func (s *keyedState) get(key uint32) int64 {
	if int(key) < len(s.values) {
		return s.values[key]
	}
	return 0
}

func (s *keyedState) put(key uint32, v int64) {
	if int(key) >= len(s.values) {
		// Grow by doubling, but never past the catalog: that bounds the state of a task by
		// the keys the job has.
		n := min(max(int(key)+1, 2*len(s.values), 16), len(s.catalog.keys))
		s.values = append(s.values, make([]int64, n-len(s.values))...)
		s.present = append(s.present, make([]bool, n-len(s.present))...)
	}
	if !s.present[key] {
		s.present[key] = true
		s.count++
	}
	s.values[key] = v
}

func (s *keyedState) len() int { return s.count }

func (s *keyedState) snapshot(w *stateWriter) {
	w.grow(16 + s.count*(s.catalog.maxKeyLen+12))
	w.tag("keyed")
	w.uint(uint64(s.count))
	for k, ok := range s.present {
		if ok {
			w.string(s.catalog.keys[k])
			w.int(s.values[k])
		}
	}
}

func (s *keyedState) restore(r *stateReader) {
	r.expect("keyed")
	n := r.count()
	*s = keyedState{catalog: s.catalog}
	prev := ""
	for i := 0; i < n && r.err == nil; i++ {
		k, v := r.string(), r.int()
		if r.err != nil {
			break
		}
		if i > 0 && k <= prev {
			r.err = fmt.Errorf("engine: keyed state keys out of order: %q after %q", k, prev)
			break
		}
		key, ok := s.catalog.keyOf[k]
		if !ok {
			r.err = fmt.Errorf("engine: keyed state holds %q, which is no key of this job", k)
			break
		}
		s.put(key, v)
		prev = k
	}
}
