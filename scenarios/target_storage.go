package scenarios

import (
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// The engine keeps checkpoint state and metadata in one durable store, under the key
// prefixes below; storage faults name them as two stores (StoreState, StoreMetadata).
var storeKeyPrefixes = map[string]string{StoreState: "state/", StoreMetadata: "meta/"}

// storageEffect is one active storage fault.
type storageEffect struct {
	id          faults.EffectID
	kind        faults.Kind
	store       string // "" for every store
	probability float64
	delay       time.Duration
}

func (e storageEffect) covers(key string) bool {
	return e.store == "" || strings.HasPrefix(key, storeKeyPrefixes[e.store])
}

func (t *simTarget) addStorage(e storageEffect) {
	t.storage = append(t.storage, e)
	t.undo[e.id] = func() {
		t.storage = removeEffect(t.storage, e.id, func(s storageEffect) faults.EffectID { return s.id })
	}
}

func (t *simTarget) FailWrites(id faults.EffectID, store string, probability float64) {
	t.addStorage(storageEffect{id: id, kind: faults.StorageFail, store: store, probability: probability})
}

func (t *simTarget) SlowWrites(id faults.EffectID, store string, delayNanos int64) {
	t.addStorage(storageEffect{id: id, kind: faults.StorageSlow, store: store, delay: time.Duration(delayNanos)})
}

func (t *simTarget) TearWrites(id faults.EffectID, store string, probability float64) {
	t.addStorage(storageEffect{id: id, kind: faults.StorageTorn, store: store, probability: probability})
}

func (t *simTarget) CorruptWrites(id faults.EffectID, store string, probability float64) {
	t.addStorage(storageEffect{id: id, kind: faults.StorageCorrupt, store: store, probability: probability})
}

func (t *simTarget) MakeUnavailable(id faults.EffectID, store string) {
	t.addStorage(storageEffect{id: id, kind: faults.StorageUnavailable, store: store})
}

func (t *simTarget) LoseAckedWrites(id faults.EffectID, store string, probability float64) {
	t.addStorage(storageEffect{id: id, kind: faults.StorageLost, store: store, probability: probability})
}

// storageFault is the store's fault hook: it decides each operation as it is issued, going
// through the active effects in the order they started. Writes (puts and deletes) can fail,
// slow down, tear, corrupt or be lost; reads fail only while the store is unavailable.
func (t *simTarget) storageFault(op sim.StoreOp) sim.StoreFault {
	var decision sim.StoreFault
	write := op.Kind == sim.OpPut || op.Kind == sim.OpDelete
	for _, e := range t.storage {
		if !e.covers(op.Key) {
			continue
		}
		switch e.kind {
		case faults.StorageUnavailable:
			return sim.StoreFault{Kind: sim.StoreFaultFail}
		case faults.StorageSlow:
			if write {
				decision.ExtraLatency += e.delay
			}
			continue
		}
		if !write || decision.Kind != sim.StoreFaultNone {
			continue
		}
		// One draw per matching effect and write, in effect order: deterministic.
		if t.rand.Float64() >= e.probability {
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
