package scenarios

import (
	"encoding/json"
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

// maxCachedReferences bounds the cache; when it is full it starts over.
const maxCachedReferences = 64

type referenceResult struct {
	ref checker.Reference
	err error
}

var references struct {
	sync.Mutex
	byScenario map[string]referenceResult
}

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
	if references.byScenario == nil || len(references.byScenario) >= maxCachedReferences {
		references.byScenario = make(map[string]referenceResult)
	}
	references.byScenario[key] = referenceResult{ref, err}
	return ref, err
}
