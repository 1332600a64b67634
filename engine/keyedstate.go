package engine

import (
	"fmt"
	"slices"
)

// keyedState is an operator's state per key. A snapshot writes the keys in sorted order, so
// the encoding, and with it the digest in snapshot.taken, does not depend on map order.
type keyedState struct {
	values map[string]int64
}

func newKeyedState() *keyedState { return &keyedState{values: make(map[string]int64)} }

func (s *keyedState) get(key string) int64    { return s.values[key] }
func (s *keyedState) put(key string, v int64) { s.values[key] = v }
func (s *keyedState) len() int                { return len(s.values) }

// sortedKeys returns the keys in ascending order.
func (s *keyedState) sortedKeys() []string {
	keys := make([]string, 0, len(s.values))
	for k := range s.values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (s *keyedState) snapshot(w *stateWriter) {
	w.tag("keyed")
	keys := s.sortedKeys()
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		w.string(k)
		w.int(s.values[k])
	}
}

func (s *keyedState) restore(r *stateReader) {
	r.expect("keyed")
	n := r.count()
	s.values = make(map[string]int64, n)
	prev := ""
	for i := 0; i < n && r.err == nil; i++ {
		k, v := r.string(), r.int()
		if i > 0 && k <= prev && r.err == nil {
			r.err = fmt.Errorf("engine: keyed state keys out of order: %q after %q", k, prev)
		}
		s.values[k] = v
		prev = k
	}
}
