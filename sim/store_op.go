package sim

import (
	"fmt"
	"slices"
)

// StoreOpKind names a store operation.
type StoreOpKind uint8

const (
	OpPut StoreOpKind = iota + 1
	OpGet
	OpDelete
	OpList
)

func (o StoreOpKind) String() string {
	switch o {
	case OpPut:
		return "put"
	case OpGet:
		return "get"
	case OpDelete:
		return "delete"
	case OpList:
		return "list"
	}
	return fmt.Sprintf("StoreOpKind(%d)", uint8(o))
}

// storeOp is one operation in flight. Its slot first fires, unowned, at the apply instant
// (the store acts whatever became of the issuer), then, owned by the issuing host, as the
// completion at the same instant.
type storeOp struct {
	s           *Store
	slot        slot
	kind        StoreOpKind
	host        *Host
	incarnation uint64
	key         string // the prefix, for a list
	value       []byte // what a put writes
	shared      bool   // value is the caller's (PutOwned), not a copy the op may change
	readShared  bool   // a get hands out the stored bytes themselves (GetShared)
	// standing, when set, is asked as a put lands: false refuses it (PutOwnedIf).
	standing func() bool
	fault    StoreFault
	applied  bool

	err    error
	result []byte   // what a get read
	keys   []string // what a list read

	donePut  func(err error) // put and delete
	doneGet  func(value []byte, err error)
	doneList func(keys []string, err error)
}

func (s *Store) newOp(h *Host, kind StoreOpKind, key string) *storeOp {
	var op *storeOp
	if n := len(s.spare); n > 0 {
		op = s.spare[n-1]
		s.spare = s.spare[:n-1]
	} else {
		op = &storeOp{s: s}
		op.slot = slot{handle: -1, run: op.step}
	}
	op.kind, op.host, op.incarnation, op.key = kind, h, h.incarnation, key
	return op
}

func (s *Store) issue(op *storeOp) {
	if s.faultHook != nil {
		op.fault = s.faultHook(StoreOp{Store: s, Kind: op.kind, Host: op.host, Key: op.key, Size: len(op.value)})
		if op.fault.ExtraLatency < 0 {
			panic(fmt.Sprintf("sim: store %s: negative extra latency %v", s.name, op.fault.ExtraLatency))
		}
	}
	if op.kind == OpDelete {
		s.deleting[op.key]++
	}
	latency := s.config.Latency + op.fault.ExtraLatency
	if s.config.Jitter > 0 {
		latency += s.rand.DurationBetween(0, s.config.Jitter)
	}
	op.slot.owner = nil
	s.k.schedule(&op.slot, s.k.now.Add(latency))
}

// step is the operation's event: first the store acts, then the issuer hears about it.
func (op *storeOp) step() {
	if !op.applied {
		op.applied = true
		op.s.apply(op)
		if op.host.up && op.host.incarnation == op.incarnation {
			op.slot.owner = op.host
			op.s.k.schedule(&op.slot, op.s.k.now)
			return
		}
		op.s.release(op) // the issuer crashed: nobody is waiting
		return
	}
	donePut, doneGet, doneList := op.donePut, op.doneGet, op.doneList
	err, result, keys := op.err, op.result, op.keys
	op.s.release(op) // before the callback, which may issue the next operation
	switch {
	case donePut != nil:
		donePut(err)
	case doneGet != nil:
		doneGet(result, err)
	case doneList != nil:
		doneList(keys, err)
	}
}

func (s *Store) apply(op *storeOp) {
	if op.kind == OpDelete {
		if s.deleting[op.key]--; s.deleting[op.key] == 0 {
			delete(s.deleting, op.key)
		}
	}
	switch {
	case s.unavailable:
		op.err = ErrUnavailable
	case op.kind == OpPut:
		op.err = s.applyPut(op)
	case op.kind == OpDelete:
		switch op.fault.Kind {
		case StoreFaultFail:
			op.err = ErrWriteFailed
		case StoreFaultLostAfterAck:
		default:
			s.remove(op.key)
		}
	case op.kind == OpGet:
		op.result, op.err = s.read(op)
	case op.kind == OpList:
		if op.fault.Kind == StoreFaultFail {
			op.err = ErrReadFailed
		} else {
			op.keys = s.Keys(op.key)
		}
	}
	if s.k.observes(EventStoreApply) {
		s.k.observe(Event{Kind: EventStoreApply, Host: op.host, Store: s, Op: op.kind, Key: op.key, Fault: op.fault, Err: op.err})
	}
}

func (s *Store) applyPut(op *storeOp) error {
	data := op.value
	op.value = nil // the record owns the bytes now
	if op.standing != nil && !op.standing() {
		return ErrWriteFailed
	}
	r := record{data: data, length: len(data), sum: crc32Sum(data)}
	switch op.fault.Kind {
	case StoreFaultFail:
		return ErrWriteFailed
	case StoreFaultLostAfterAck:
		return nil
	case StoreFaultTorn:
		if len(data) > 0 {
			r.data = data[:s.rand.IntN(len(data))]
		} else {
			r.sum ^= 1 // nothing to tear: spoil the checksum instead, so it is still detected
		}
	case StoreFaultCorrupt:
		if len(data) > 0 {
			if op.shared {
				data = slices.Clone(data)
				r.data = data
			}
			bit := s.rand.IntN(8 * len(data))
			data[bit/8] ^= 1 << (bit % 8)
		} else {
			r.sum ^= 1
		}
	}
	s.write(op.key, r)
	return nil
}

func (s *Store) read(op *storeOp) ([]byte, error) {
	if op.fault.Kind == StoreFaultFail {
		return nil, ErrReadFailed
	}
	r, ok := s.records[op.key]
	if !ok {
		return nil, ErrNotFound
	}
	if !r.intact() {
		return nil, ErrCorrupt
	}
	if op.readShared {
		return r.data, nil
	}
	return slices.Clone(r.data), nil
}

func (s *Store) release(op *storeOp) {
	if op.slot.queued() {
		panic("sim: releasing a queued store operation")
	}
	spare := op.value[:0]
	if op.shared {
		spare = nil // the caller's bytes, not the op's to append to
	}
	*op = storeOp{s: s, slot: slot{handle: -1, run: op.slot.run}, value: spare}
	s.spare = append(s.spare, op)
}
