package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// catalogueKeys are the run keys of every built-in over seeds (each its own when nil).
func catalogueKeys(seeds *scenarios.SeedRange) []string {
	var keys []string
	for _, s := range scenarios.Builtins() {
		r := *s.Seeds
		if seeds != nil {
			r = *seeds
		}
		for seed := r.First; seed <= r.Last; seed++ {
			keys = append(keys, fmt.Sprintf("%s/%d", s.Name, seed))
		}
	}
	return keys
}

// generatedKeys are the run keys of the generic part over first-last.
func generatedKeys(first, last uint64) []string {
	var keys []string
	for seed := first; seed <= last; seed++ {
		keys = append(keys, fmt.Sprintf("%s/%d", generate.Name, seed))
	}
	return keys
}

// TestSweepParts: the default sweep is the catalogue and then the generic part; -scenario
// all takes the catalogue alone and -generated the generic part alone; -seeds replaces
// every part's seeds and -generic the generic part's.
func TestSweepParts(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	two := &scenarios.SeedRange{First: 1, Last: 2}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"-generic", "2-4"}, append(catalogueKeys(nil), generatedKeys(2, 4)...)},
		{[]string{"sweep", "-seeds", "1-2"}, append(catalogueKeys(two), generatedKeys(1, 2)...)},
		{[]string{"-seeds", "1-2", "-generic", "5-5"}, append(catalogueKeys(two), generatedKeys(5, 5)...)},
		{[]string{"sweep", "-scenario", "all"}, catalogueKeys(nil)},
		{[]string{"sweep", "-generated", "-seeds", "3-4"}, generatedKeys(3, 4)},
		{[]string{"-generated", "-generic", "3-4"}, generatedKeys(3, 4)},
		{[]string{"-generated"}, generatedKeys(1, genericSeedCount)},
		{[]string{"sweep", "-scenario", "standard", "-seeds", "1-2"}, []string{"standard/1", "standard/2"}},
	} {
		r := a.invoke(append(tc.args, "-json")...)
		keys, summary := runKeys(t, r.stdout)
		if r.code != exitOK || summary == nil {
			t.Fatalf("%v: exit %d: %s", tc.args, r.code, r.stderr)
		}
		if !slices.Equal(keys, tc.want) {
			t.Errorf("%v: %d runs, want %d (first %v)", tc.args, len(keys), len(tc.want), keys[:min(3, len(keys))])
		}
	}
}

// TestDefaultSweepsGenericFailureReplays: a failure in the default sweep's generic part is
// reported like any other, with what its seed drew, and its artifact replays; the table
// names the generic part's row after its seeds.
func TestDefaultSweepsGenericFailureReplays(t *testing.T) {
	dir := inTempDir(t)
	fake := &scenariotest.Fake{Fails: func(p *scenarios.Plan) []checker.Property {
		if p.Scenario.Name == generate.Name && p.Seed == 3 {
			return []checker.Property{checker.PropExactlyOnce}
		}
		return scenariotest.DefaultFails(p) // the negative controls fail, as they should
	}}
	a := testApp(t, fake)
	r := a.invoke("-generic", "2-4")
	if r.code != exitUnexpected {
		t.Fatalf("exit %d, want %d: %s", r.code, exitUnexpected, r.stderr)
	}
	path := filepath.Join(defaultArtifactDir, "generated-seed3-fail.json")
	for _, want := range []string{
		"UNEXPECTED generated seed 3: fail: violated exactly-once",
		"  drawn: " + generate.Summary(generate.Seed(3)),
		"  replay: simrun replay " + path,
		"\ngenerated 2-4  ",
		"\n1 artifacts in simrun-artifacts",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	asJSON := a.invoke("-generic", "3", "-json")
	if !strings.Contains(asJSON.stderr, "simrun: unexpected fail on generated seed 3; replay with: simrun replay ") {
		t.Errorf("sweep -json says nothing of the generic failure on stderr:\n%s", asJSON.stderr)
	}
	replay := a.invoke("replay", filepath.Join(dir, path))
	if replay.code != exitUnexpected || !strings.Contains(replay.stdout, "trace hash matches the artifact") {
		t.Errorf("replay: exit %d\n%s%s", replay.code, replay.stdout, replay.stderr)
	}
}
