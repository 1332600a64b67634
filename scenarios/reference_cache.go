package scenarios

import (
	"encoding/json"
	"hash/maphash"
	"sync"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
)

// The reference of a scenario depends on the scenario alone: every seed reads the same
// input (dataSeed), and the engine configuration is derived from the scenario. A sweep runs
// each scenario over many seeds and the checkers only read the reference, so it is
// computed once per scenario and shared; it was most of the cost of a run of the standard
// scenario. The cache is keyed by the scenario's content, not its address, so that a
// scenario changed in place (shrink makes smaller copies, but callers may do otherwise)
// never sees another's reference, and it is bounded, since shrink makes many variants.
//
// A reference is kept only when its scenario comes a second time. A generated sweep draws a
// new scenario for every seed, so none ever does, and keeping each one (some megabytes of
// expected records) until the cache started over held hundreds of megabytes that every
// garbage collection marked again: a generated sweep at -j 2 peaked at 480 MB. A sweep of
// one scenario over many seeds computes its reference twice and then shares it.

// maxCachedReferences bounds the cache; when it is full it starts over.
const maxCachedReferences = 64

// maxSeenScenarios bounds the set of scenarios seen once; when it is full it starts over.
const maxSeenScenarios = 1024

type referenceResult struct {
	ref checker.Reference
	err error
}

var references struct {
	sync.Mutex
	byScenario map[string]referenceResult
	// seen holds a hash of each scenario asked for once and not cached. A collision only
	// caches a reference early: lookups compare the whole content.
	seen map[uint64]bool
}

// seenSeed seeds the hashes of references.seen. What is cached never changes a result, so
// a seed that differs from run to run is harmless.
var seenSeed = maphash.MakeSeed()

// cachedReference is reference, computed once per scenario content.
func cachedReference(s *Scenario, cfg *engine.Config) (checker.Reference, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return reference(s, cfg) // not expected: scenarios are plain data
	}
	key := string(data)
	references.Lock()
	r, ok := references.byScenario[key]
	references.Unlock()
	if ok {
		return r.ref, r.err
	}
	ref, err := reference(s, cfg)
	references.Lock()
	defer references.Unlock()
	if h := maphash.String(seenSeed, key); !references.seen[h] {
		if references.seen == nil || len(references.seen) >= maxSeenScenarios {
			references.seen = make(map[uint64]bool)
		}
		references.seen[h] = true
		return ref, err
	}
	if references.byScenario == nil || len(references.byScenario) >= maxCachedReferences {
		references.byScenario = make(map[string]referenceResult)
	}
	references.byScenario[key] = referenceResult{ref, err}
	return ref, err
}
