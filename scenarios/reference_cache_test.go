package scenarios

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
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
