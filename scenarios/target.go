package scenarios

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/sim"
)

// simTarget is the faults.Target of a run on the simulator, in three parts:
//
//   - the kernel half is faults/simtarget's World: network and data faults on routed links,
//     host crashes and pauses, clock skew, restart delays;
//   - the storage half is ours, because the engine keeps checkpoint state and metadata in one
//     sim store, which fault specs name as two stores (StoreState, StoreMetadata) by key
//     prefix;
//   - the engine half is ours: crashing tasks and the coordinator (and restarting the
//     coordinator, which the engine leaves to the cluster manager), the external store's
//     transaction timeouts and commit failures.
//
// simenv connects hosts, not tasks, so a network fault on the channel from task a to task b
// acts on the sim link between their hosts, and with it on every channel between those hosts.
type simTarget struct {
	simtarget.Target
	storage *storageHalf
	engine  *engineHalf
}

// newSimTarget assembles the target of job, whose graph and channels sys describes.
func newSimTarget(job *simenv.Job, sys faults.System) (*simTarget, error) {
	world, err := simtarget.NewWorld(job.Kernel, simtarget.Config{
		Routes:       routes(job.Env, sys),
		Stores:       []*sim.Store{}, // the storage half owns the store's fault hook
		Classify:     classify,
		StreamPrefix: "scenarios/world",
	})
	if err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	eh := &engineHalf{
		rt: job.Runtime, env: job.Env, k: job.Kernel, world: world,
		rand:        rand.New(job.Kernel.Stream("scenarios/engine-faults")),
		baseTimeout: job.Runtime.Config().Store.TxnTimeout,
	}
	sh := newStorageHalf(job.Env.Storage(), rand.New(job.Kernel.Stream("scenarios/storage-faults")))
	return &simTarget{Target: simtarget.Target{World: world, Engine: eh}, storage: sh, engine: eh}, nil
}

// routes maps every data channel and control link of the system onto the sim link between
// the hosts of its two ends.
func routes(env *simenv.Env, sys faults.System) []simtarget.Route {
	link := func(from, to string) *sim.Link {
		a, b := env.Host(from), env.Host(to)
		for _, l := range a.Outbound() {
			if l.To() == b {
				return l
			}
		}
		panic(fmt.Sprintf("scenarios: no sim link from %s to %s", a.Name(), b.Name()))
	}
	var out []simtarget.Route
	for _, l := range append(append([]faults.Link(nil), sys.Channels...), sys.ControlLinks()...) {
		out = append(out, simtarget.Route{Link: l, Sim: link(l.From, l.To)})
	}
	return out
}

// classify tells the World what an engine message on a sim link is.
func classify(msg any) simtarget.Class {
	_, _, payload, ok := simenv.Unwrap(msg)
	if !ok {
		return simtarget.ClassOther
	}
	switch engine.Classify(payload) {
	case engine.ClassRecords:
		return simtarget.ClassRecord
	case engine.ClassBarrier:
		return simtarget.ClassBarrier
	case engine.ClassTrigger:
		return simtarget.ClassTrigger
	case engine.ClassAck, engine.ClassDecline:
		return simtarget.ClassAck
	case engine.ClassNotify:
		return simtarget.ClassNotify
	}
	return simtarget.ClassOther
}

// BreakChannel breaks the sim links of the channel, as a lost connection: in-flight messages
// are lost and both end hosts' tasks fail. The links are repaired at once, as the restarted
// tasks would reconnect.
func (t *simTarget) BreakChannel(link faults.Link) {
	t.Target.BreakChannel(link)
	for _, l := range t.Kernel().Links() {
		if l.Broken() {
			l.Repair()
		}
	}
}

// DelayRestarts delays the restarts of crashed hosts (the World's) and of failed-over tasks
// (the engine's).
func (t *simTarget) DelayRestarts(id faults.EffectID, delayNanos int64) {
	t.Target.DelayRestarts(id, delayNanos)
	t.engine.rt.SetExtraRestartDelay(t.World.RestartDelay())
}

// End undoes an effect in whichever half started it.
func (t *simTarget) End(id faults.EffectID) {
	t.Target.End(id)
	t.storage.end(id)
	t.engine.rt.SetExtraRestartDelay(t.World.RestartDelay())
}

// Heal ends what is still in force and restarts what is still down: hosts first, then the
// coordinator.
func (t *simTarget) Heal() {
	t.Target.Heal()
	t.storage.heal()
	t.engine.rt.SetExtraRestartDelay(0)
}

// The storage methods are the storage half's, not the World's.

func (t *simTarget) FailWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageFail, store: keys.Store, prefix: keys.Prefix, probability: probability})
}

func (t *simTarget) FailReads(id faults.EffectID, keys faults.Keys, probability float64) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageReadFail, store: keys.Store, prefix: keys.Prefix, probability: probability})
}

func (t *simTarget) SlowWrites(id faults.EffectID, keys faults.Keys, delayNanos int64, probability float64) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageSlow, store: keys.Store, prefix: keys.Prefix, delay: time.Duration(delayNanos), probability: probability})
}

func (t *simTarget) TearWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageTorn, store: keys.Store, prefix: keys.Prefix, probability: probability})
}

func (t *simTarget) CorruptWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageCorrupt, store: keys.Store, prefix: keys.Prefix, probability: probability})
}

func (t *simTarget) MakeUnavailable(id faults.EffectID, store string) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageUnavailable, store: store})
}

func (t *simTarget) LoseAckedWrites(id faults.EffectID, keys faults.Keys, probability float64) {
	t.storage.add(storageEffect{id: id, kind: faults.StorageLost, store: keys.Store, prefix: keys.Prefix, probability: probability})
}

var _ faults.Target = (*simTarget)(nil)
