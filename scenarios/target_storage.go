package scenarios

import (
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// The engine keeps checkpoint state and metadata in one durable store, under the key
// prefixes below; storage faults name them as two stores (StoreState, StoreMetadata).
var storeKeyPrefixes = map[string]string{StoreState: engine.StatePrefix, StoreMetadata: "meta/"}

// StoreKeyPrefix is the prefix of the keys of store (StoreState, StoreMetadata) in the
// storage the engine writes, which a storage fault's key names.
func StoreKeyPrefix(store string) string { return storeKeyPrefixes[store] }

// storageHalf carries out storage faults through the store's fault hook, deciding each
// operation as it is issued from the effects in force, in the order they started.
type storageHalf struct {
	rand    *rand.Rand
	effects []storageEffect
}

// storageEffect is one active storage fault.
type storageEffect struct {
	id          faults.EffectID
	kind        faults.Kind
	store       string // "" for every store
	prefix      string // within the store, only keys that start with it ("" for all)
	probability float64
	delay       time.Duration
}

func newStorageHalf(store *sim.Store, r *rand.Rand) *storageHalf {
	h := &storageHalf{rand: r}
	store.SetFaultHook(h.decide)
	return h
}

// covers reports whether the effect hits key: a key of its store (any, for none) whose
// name within that store starts with the effect's prefix. "completed.1" in the metadata
// store is one copy of the completed-checkpoint store; "meta/completed.1" with no store
// names the same.
func (e storageEffect) covers(key string) bool {
	return strings.HasPrefix(key, storeKeyPrefixes[e.store]+e.prefix)
}

func (h *storageHalf) add(e storageEffect) { h.effects = append(h.effects, e) }

func (h *storageHalf) end(id faults.EffectID) {
	h.effects = slices.DeleteFunc(h.effects, func(e storageEffect) bool { return e.id == id })
}

func (h *storageHalf) heal() { h.effects = nil }

// decide is the store's fault hook. Writes (puts and deletes) can fail, slow down, tear,
// corrupt or be lost; reads (gets and lists) can fail; every operation fails while its
// store is unavailable.
func (h *storageHalf) decide(op sim.StoreOp) sim.StoreFault {
	var decision sim.StoreFault
	write := op.Kind == sim.OpPut || op.Kind == sim.OpDelete
	for _, e := range h.effects {
		if !e.covers(op.Key) {
			continue
		}
		if e.kind == faults.StorageReadFail {
			// One draw per matching effect and read, in effect order, like writes below.
			if !write && decision.Kind == sim.StoreFaultNone && h.rand.Float64() < e.probability {
				decision.Kind = sim.StoreFaultFail
			}
			continue
		}
		switch e.kind {
		case faults.StorageUnavailable:
			return sim.StoreFault{Kind: sim.StoreFaultFail}
		case faults.StorageSlow:
			// Every write when no probability is given, so that no number is drawn.
			if write && (e.probability == 0 || h.rand.Float64() < e.probability) {
				decision.ExtraLatency += e.delay
			}
			continue
		}
		if !write || decision.Kind != sim.StoreFaultNone {
			continue
		}
		// One draw per matching effect and write, in effect order: deterministic.
		if h.rand.Float64() >= e.probability {
			continue
		}
		switch e.kind {
		case faults.StorageFail:
			decision.Kind = sim.StoreFaultFail
		case faults.StorageTorn:
			if op.Kind == sim.OpPut {
				decision.Kind = sim.StoreFaultTorn
			}
		case faults.StorageCorrupt:
			if op.Kind == sim.OpPut {
				decision.Kind = sim.StoreFaultCorrupt
			}
		case faults.StorageLost:
			decision.Kind = sim.StoreFaultLostAfterAck
		}
	}
	return decision
}
