package sim

import (
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"time"
)

// StoreConfig describes a store's normal behaviour.
type StoreConfig struct {
	// Latency is the base time from issuing an operation to its taking effect.
	Latency time.Duration
	// Jitter adds a uniform extra delay in [0, Jitter] per operation, drawn from the store's
	// own stream ("store/" + name).
	Jitter time.Duration
}

// Store is durable key-value storage shared by all hosts, surviving their crashes: the
// simulated checkpoint storage (a distributed file system or an object store). Keys are
// strings and values are byte slices; each value is stored with its length and CRC-32C so
// that a torn or corrupted write is detected when it is read (ErrCorrupt).
//
// Operations are asynchronous; done is called as an event of the issuing host, and an
// operation issued on behalf of a down host is ignored. An operation issued by a host takes
// effect in the store Latency (+ jitter, + any injected extra) later, at its apply instant;
// its completion is then delivered to the issuing host as an event at the same instant.
// Once issued, an operation is in the store's hands: it takes effect even if the issuer
// crashes meanwhile, but its completion is delivered only to the incarnation that issued it
// (deferred while that host is paused, dropped if it crashed). Concurrent operations are
// not ordered beyond their apply instants: like an object store, two writes in flight to
// one key may land in either order, and a caller that needs an order waits for the first
// completion before issuing the next.
type Store struct {
	k       *Kernel
	name    string
	config  StoreConfig
	rand    *Rand
	records map[string]record // looked up by key, never ranged over
	keys    []string          // every key in records, sorted
	// deleting counts the deletes in flight per key, issued and not yet applied.
	deleting map[string]int

	unavailable bool
	faultHook   func(op StoreOp) StoreFault

	spare []*storeOp // finished operations, reused so that steady state does not allocate
}

// record is a stored value as the medium holds it: the bytes that reached it, and the length
// and checksum of the bytes the writer meant to store.
type record struct {
	data   []byte
	length int
	sum    uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (r record) intact() bool {
	return len(r.data) == r.length && crc32.Checksum(r.data, castagnoli) == r.sum
}

// NewStore creates an empty store. The name must be unique among hosts, links and stores.
func (k *Kernel) NewStore(name string, config StoreConfig) *Store {
	if config.Latency < 0 || config.Jitter < 0 {
		panic(fmt.Sprintf("sim: store %s: negative value in %+v", name, config))
	}
	k.claimName(name, "store")
	s := &Store{
		k:        k,
		name:     name,
		config:   config,
		rand:     k.Stream("store/" + name),
		records:  make(map[string]record),
		deleting: make(map[string]int),
	}
	k.stores = append(k.stores, s)
	return s
}

// Stores returns every store in creation order.
func (k *Kernel) Stores() []*Store { return k.stores }

// Name returns the store's name.
func (s *Store) Name() string { return s.name }

// issuable reports whether host h may issue an operation: it must be a host of this kernel
// (anything else is a bug), and an operation from a down host (one that crashed itself in the
// event issuing it) is never issued.
func (s *Store) issuable(h *Host, kind StoreOpKind) bool {
	if h == nil || h.k != s.k {
		panic(fmt.Sprintf("sim: store %s: %s without a host of this kernel", s.name, kind))
	}
	return h.up
}

// Put stores a copy of value under key, replacing what was there, atomically: a reader sees
// the old value or the new one, never a mix (torn and corrupted writes are the exception,
// and are detected). done receives nil, ErrUnavailable or ErrWriteFailed.
func (s *Store) Put(h *Host, key string, value []byte, done func(err error)) {
	if !s.issuable(h, OpPut) {
		return
	}
	op := s.newOp(h, OpPut, key)
	op.value = append(op.value[:0], value...)
	op.donePut = done
	s.issue(op)
}

// PutOwned is Put without the copy: the store keeps value itself, so the caller must not
// change it afterwards (it may keep reading it). For a caller whose contract already says
// written data is not changed, as the engine's does, it saves copying every checkpoint's
// state. A corrupting fault flips its bit in a copy, never in the caller's bytes.
func (s *Store) PutOwned(h *Host, key string, value []byte, done func(err error)) {
	if !s.issuable(h, OpPut) {
		return
	}
	op := s.newOp(h, OpPut, key)
	op.value, op.shared = value, true
	op.donePut = done
	s.issue(op)
}

// PutOwnedIf is PutOwned for a writer whose standing the store checks, as a leader-checked
// high-availability store does: the put lands only if standing() still holds as it reaches
// the store, and is refused with ErrWriteFailed otherwise, leaving the key as it was. So a
// write that a replaced leader left in flight never lands after its successor took over.
func (s *Store) PutOwnedIf(h *Host, key string, value []byte, standing func() bool, done func(err error)) {
	if !s.issuable(h, OpPut) {
		return
	}
	op := s.newOp(h, OpPut, key)
	op.value, op.shared, op.standing = value, true, standing
	op.donePut = done
	s.issue(op)
}

// Get reads the value under key. done receives a copy of it, or ErrNotFound, ErrCorrupt,
// ErrUnavailable or ErrReadFailed.
func (s *Store) Get(h *Host, key string, done func(value []byte, err error)) {
	s.get(h, key, false, done)
}

// GetShared is Get without the copy: done receives the stored bytes themselves, so the
// caller must not change them (it may keep reading them). Stored bytes are never changed
// in place (a write replaces the record, and a corrupting fault flips its bit before the
// record is stored), so what the caller holds stays what it read. For a caller whose
// contract already says read data is not changed, as the engine's does, it saves copying
// every read-back of a checkpoint's metadata.
func (s *Store) GetShared(h *Host, key string, done func(value []byte, err error)) {
	s.get(h, key, true, done)
}

// get issues a read of key whose value is copied for done unless shared.
func (s *Store) get(h *Host, key string, shared bool, done func(value []byte, err error)) {
	if !s.issuable(h, OpGet) {
		return
	}
	op := s.newOp(h, OpGet, key)
	op.readShared = shared
	op.doneGet = done
	s.issue(op)
}

// Delete removes key; deleting a missing key succeeds. done receives nil, ErrUnavailable or
// ErrWriteFailed.
func (s *Store) Delete(h *Host, key string, done func(err error)) {
	if !s.issuable(h, OpDelete) {
		return
	}
	op := s.newOp(h, OpDelete, key)
	op.donePut = done
	s.issue(op)
}

// List reads the keys that start with prefix ("" for all), sorted. done receives them, or
// ErrUnavailable or ErrReadFailed. Listing does not check values: a corrupt value shows up
// when it is read.
func (s *Store) List(h *Host, prefix string, done func(keys []string, err error)) {
	if !s.issuable(h, OpList) {
		return
	}
	op := s.newOp(h, OpList, prefix)
	op.doneList = done
	s.issue(op)
}

// Peek reads key at once, bypassing latency, faults and hosts: for harnesses and checkers
// that inspect the durable state, never for simulated code. It returns a copy, or ErrNotFound
// or ErrCorrupt.
func (s *Store) Peek(key string) ([]byte, error) {
	r, ok := s.records[key]
	if !ok {
		return nil, ErrNotFound
	}
	if !r.intact() {
		return nil, ErrCorrupt
	}
	return slices.Clone(r.data), nil
}

// Keys returns the stored keys starting with prefix, sorted, at once (like Peek).
func (s *Store) Keys(prefix string) []string {
	lo, hi := s.prefixRange(prefix)
	return slices.Clone(s.keys[lo:hi])
}

// Deleting reports whether a delete of key is in flight (issued, not yet applied), at once
// (like Peek): a harness listing the store at the end of a run tells a key on its way out
// from one left behind.
func (s *Store) Deleting(key string) bool { return s.deleting[key] > 0 }

// prefixRange returns the bounds of the keys that start with prefix in the sorted key list.
func (s *Store) prefixRange(prefix string) (lo, hi int) {
	lo, _ = slices.BinarySearch(s.keys, prefix)
	hi = lo
	for hi < len(s.keys) && strings.HasPrefix(s.keys[hi], prefix) {
		hi++
	}
	return lo, hi
}

func (s *Store) write(key string, r record) {
	if _, ok := s.records[key]; !ok {
		i, _ := slices.BinarySearch(s.keys, key)
		s.keys = slices.Insert(s.keys, i, key)
	}
	s.records[key] = r
}

func (s *Store) remove(key string) {
	if _, ok := s.records[key]; !ok {
		return
	}
	delete(s.records, key)
	i, _ := slices.BinarySearch(s.keys, key)
	s.keys = slices.Delete(s.keys, i, i+1)
}
