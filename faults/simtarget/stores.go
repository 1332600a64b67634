package simtarget

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/sim"
)

// storeOp is what one active effect does to a store.
type storeOp uint8

const (
	storeFail        storeOp = iota + 1 // writes fail: ErrWriteFailed
	storeReadFail                       // reads fail: ErrReadFailed
	storeSlow                           // writes take longer
	storeTorn                           // puts store a prefix: reads see ErrCorrupt
	storeCorrupt                        // puts store a flipped bit: reads see ErrCorrupt
	storeLost                           // writes are acknowledged and have no effect
	storeUnavailable                    // every operation fails: ErrUnavailable
)

// storeRule is one active effect on one store.
type storeRule struct {
	id          faults.EffectID
	op          storeOp
	probability float64
	delay       time.Duration
	prefix      string // only keys that start with it ("" for all)
}

// storeState is the World's view of one store: the effects active on it, in id order.
type storeState struct {
	w     *World
	store *sim.Store
	rules []storeRule
	hook  func(sim.StoreOp) sim.StoreFault // built once
}

func newStoreState(w *World, st *sim.Store) *storeState {
	s := &storeState{w: w, store: st}
	s.hook = s.decide
	return s
}

// apply sets the store's hook and outage flag from the active rules.
func (s *storeState) apply() {
	unavailable, hooked := false, false
	for _, r := range s.rules {
		if r.op == storeUnavailable {
			unavailable = true
		} else {
			hooked = true
		}
	}
	s.store.SetUnavailable(unavailable)
	if hooked {
		s.store.SetFaultHook(s.hook)
	} else {
		s.store.SetFaultHook(nil)
	}
}

// decide is the store's fault hook, asked as each operation is issued. Read failures hit
// gets and lists; every other rule hits writes (puts and deletes) only, and torn and
// corrupt puts only, as a delete has no bytes to damage. Slow rules add up. Probabilistic
// rules are visited in id order, each drawing one number from the World's storage stream,
// until one hits; it decides what goes wrong.
func (s *storeState) decide(op sim.StoreOp) sim.StoreFault {
	var f sim.StoreFault
	write := op.Kind == sim.OpPut || op.Kind == sim.OpDelete
	for _, r := range s.rules {
		if !strings.HasPrefix(op.Key, r.prefix) || write != (r.op != storeReadFail) {
			continue
		}
		var kind sim.StoreFaultKind
		switch r.op {
		case storeReadFail:
			kind = sim.StoreFaultFail
		case storeSlow:
			if r.probability == 0 || s.w.storeRand.Bernoulli(r.probability) {
				f.ExtraLatency += r.delay
			}
			continue
		case storeFail:
			kind = sim.StoreFaultFail
		case storeLost:
			kind = sim.StoreFaultLostAfterAck
		case storeTorn:
			kind = sim.StoreFaultTorn
		case storeCorrupt:
			kind = sim.StoreFaultCorrupt
		default:
			continue
		}
		if (kind == sim.StoreFaultTorn || kind == sim.StoreFaultCorrupt) && op.Kind != sim.OpPut {
			continue
		}
		if f.Kind == sim.StoreFaultNone && s.w.storeRand.Bernoulli(r.probability) {
			f.Kind = kind
		}
	}
	return f
}

func (s *storeState) add(r storeRule) {
	s.rules = append(s.rules, r)
	s.apply()
}

func (s *storeState) remove(id faults.EffectID) {
	s.rules = withoutID(s.rules, id, func(r storeRule) faults.EffectID { return r.id })
	s.apply()
}

func (s *storeState) heal() {
	s.rules = nil
	s.apply()
}

// storesFor returns the named store, or every store for an empty name. An unknown name is a
// bug in the glue (CheckSystem finds it up front) and panics.
func (w *World) storesFor(name string) []*storeState {
	if name == "" {
		return w.stores
	}
	s := w.storeByName[name]
	if s == nil {
		panic(fmt.Sprintf("simtarget: a storage fault names store %q, which the world does not know", name))
	}
	return []*storeState{s}
}

// startOnStores adds r (with id) to the stores store names and records the undo.
func (w *World) startOnStores(id faults.EffectID, store string, r storeRule) {
	stores := w.storesFor(store)
	r.id = id
	for _, s := range stores {
		s.add(r)
	}
	w.begin(id, func() {
		for _, s := range stores {
			s.remove(id)
		}
	})
}

// FailWrites fails puts and deletes with probability until End(id); the writer gets
// sim.ErrWriteFailed and nothing is written.
func (w *World) FailWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	w.startOnStores(id, keys.Store, storeRule{op: storeFail, probability: probability, prefix: keys.Prefix})
}

// FailReads fails gets and lists of keys with probability until End(id); the reader gets
// sim.ErrReadFailed.
func (w *World) FailReads(id faults.EffectID, keys faults.Keys, probability float64) {
	w.startOnStores(id, keys.Store, storeRule{op: storeReadFail, probability: probability, prefix: keys.Prefix})
}

// SlowWrites makes the puts and deletes of keys issued until End(id) take delayNanos longer:
// each with probability, or every one for probability 0.
func (w *World) SlowWrites(id faults.EffectID, keys faults.Keys, delayNanos int64, probability float64) {
	w.startOnStores(id, keys.Store, storeRule{op: storeSlow, delay: time.Duration(delayNanos), probability: probability, prefix: keys.Prefix})
}

// TearWrites acknowledges puts but stores only a prefix, with probability; a read of the key
// returns sim.ErrCorrupt.
func (w *World) TearWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	w.startOnStores(id, keys.Store, storeRule{op: storeTorn, probability: probability, prefix: keys.Prefix})
}

// CorruptWrites acknowledges puts but flips a bit of the stored value, with probability; a
// read of the key returns sim.ErrCorrupt.
func (w *World) CorruptWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	w.startOnStores(id, keys.Store, storeRule{op: storeCorrupt, probability: probability, prefix: keys.Prefix})
}

// MakeUnavailable makes every operation that comes to apply until End(id) fail with
// sim.ErrUnavailable, reads included.
func (w *World) MakeUnavailable(id faults.EffectID, store string) {
	w.startOnStores(id, store, storeRule{op: storeUnavailable})
}

// LoseAckedWrites acknowledges puts and deletes and then drops them, with probability (out of
// model): a later read finds the old value, or sim.ErrNotFound.
func (w *World) LoseAckedWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	w.startOnStores(id, keys.Store, storeRule{op: storeLost, probability: probability, prefix: keys.Prefix})
}
