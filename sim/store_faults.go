package sim

import (
	"fmt"
	"hash/crc32"
	"time"
)

// StoreOp describes an operation as it is issued, for the fault hook to decide on.
type StoreOp struct {
	Store *Store
	Kind  StoreOpKind
	Host  *Host
	Key   string // the prefix, for a list
	Size  int    // bytes written, for a put
}

// StoreFaultKind is what goes wrong with one store operation.
type StoreFaultKind uint8

const (
	// StoreFaultNone: the operation behaves.
	StoreFaultNone StoreFaultKind = iota
	// StoreFaultFail: the operation fails without effect: ErrWriteFailed for a put or delete,
	// ErrReadFailed for a get or list.
	StoreFaultFail
	// StoreFaultTorn: a put is acknowledged but only a prefix of the value reaches the store;
	// reads return ErrCorrupt. Ignored by other operations.
	StoreFaultTorn
	// StoreFaultCorrupt: a put is acknowledged but one bit of the stored value is flipped;
	// reads return ErrCorrupt. Ignored by other operations.
	StoreFaultCorrupt
	// StoreFaultLostAfterAck: a put or delete is acknowledged but has no effect. Out of model
	// on purpose (durable storage that lies), for negative controls. Ignored by reads.
	StoreFaultLostAfterAck
)

func (f StoreFaultKind) String() string {
	switch f {
	case StoreFaultNone:
		return "none"
	case StoreFaultFail:
		return "fail"
	case StoreFaultTorn:
		return "torn"
	case StoreFaultCorrupt:
		return "corrupt"
	case StoreFaultLostAfterAck:
		return "lost-after-ack"
	}
	return fmt.Sprintf("StoreFaultKind(%d)", uint8(f))
}

// StoreFault is the fault hook's decision for one operation.
type StoreFault struct {
	Kind StoreFaultKind
	// ExtraLatency delays the operation (a slow write or read).
	ExtraLatency time.Duration
}

// SetFaultHook installs hook, asked once per operation as it is issued; nil means no faults.
// The hook brings its own randomness (a stream of the faults package) so that turning faults
// on does not shift the store's latency draws.
func (s *Store) SetFaultHook(hook func(op StoreOp) StoreFault) { s.faultHook = hook }

// SetUnavailable makes every operation that comes to apply while it is on fail with
// ErrUnavailable and have no effect: a store outage window.
func (s *Store) SetUnavailable(unavailable bool) { s.unavailable = unavailable }

// Unavailable reports whether the store is in an outage window.
func (s *Store) Unavailable() bool { return s.unavailable }

func crc32Sum(data []byte) uint32 { return crc32.Checksum(data, castagnoli) }
