package scenarios

import (
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/checker"
)

// TestCachedReferenceIsTheScenarios: the cached reference equals a fresh computation, a
// scenario changed in place gets the reference of its new content, and concurrent runs
// (sweeps with -j) share the cache safely.
func TestCachedReferenceIsTheScenarios(t *testing.T) {
	builtin, err := Lookup(StandardName)
	if err != nil {
		t.Fatal(err)
	}
	s := *builtin
	s.Workload.Records = 40
	check := func() {
		t.Helper()
		cfg, err := engineConfig(&s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := reference(&s, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := cachedReference(&s, &cfg)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d records: cached reference differs (-fresh +cached):\n%s", s.Workload.Records, diff)
		}
	}
	check()
	check() // from the cache now
	s.Workload.Records = 30
	check()

	var wg sync.WaitGroup
	for seed := uint64(1); seed <= 4; seed++ {
		wg.Go(func() {
			if _, _, err := Execute(NewSimulation(), &s, seed, RunOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// TestReferenceCarriesThePromises: the reference of every built-in scenario lists what it
// promises, and checker chooses from it exactly what a run of the scenario checks.
func TestReferenceCarriesThePromises(t *testing.T) {
	for _, s := range Builtins() {
		ref, err := ReferenceFor(s)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if got, want := checker.DefaultProperties(ref), PropertiesToCheck(s); !slices.Equal(got, want) {
			t.Errorf("%s: the reference chooses %v, a run checks %v", s.Name, got, want)
		}
	}
}

// TestReferenceCachedOnSecondSight: a scenario's reference is kept only once the scenario
// comes again, so that a generated sweep, whose scenarios never repeat, keeps none.
func TestReferenceCachedOnSecondSight(t *testing.T) {
	s, err := Lookup(StandardName)
	if err != nil {
		t.Fatal(err)
	}
	s.Description = "seen by TestReferenceCachedOnSecondSight alone" // a scenario no other test has run
	cfg, err := engineConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	cached := func() bool {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		references.Lock()
		defer references.Unlock()
		_, ok := references.byScenario[string(data)]
		return ok
	}
	if _, err := cachedReference(s, &cfg); err != nil {
		t.Fatal(err)
	}
	if cached() {
		t.Fatal("a scenario seen once has its reference cached")
	}
	if _, err := cachedReference(s, &cfg); err != nil {
		t.Fatal(err)
	}
	if !cached() {
		t.Fatal("a scenario seen twice has no reference cached")
	}
}
