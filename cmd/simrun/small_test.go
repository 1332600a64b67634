package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSmallOnes: simrun version (and -version) names the build; show prints a scenario's
// file and nothing else, so that show NAME > FILE is a scenario file; a misspelt scenario, flag or command gets the nearest name;
// -j's help states its default once.
func TestSmallOnes(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"-version"}} {
		r := testApp(t, nil).invoke(args...)
		if r.code != exitOK || r.stdout != "simrun test-build ("+runtime.Version()+")\n" {
			t.Errorf("%v: exit %d, %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
	r := testApp(t, nil).invoke("show", "pipeline-calm")
	var shown struct{ Name, Description string }
	if err := json.Unmarshal([]byte(r.stdout), &shown); r.code != exitOK || err != nil || shown.Name != "pipeline-calm" || !strings.HasPrefix(shown.Description, "A two-stage") {
		t.Errorf("show: exit %d, %v: stdout is not the scenario file alone\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"run", "-scenario", "standrd", "-seed", "1"}, `(did you mean "standard"?)`},
		{[]string{"run", "-seeds", "1", "-scenario", "standard"}, "(did you mean -seed?)"},
		{[]string{"swep"}, `(did you mean "sweep"?)`},
		{[]string{"show", "pipeline-clam"}, `(did you mean "pipeline-calm"?)`},
	} {
		r := testApp(t, nil).invoke(c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.hint) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want the hint %s", c.args, r.code, r.stderr, c.hint)
		}
	}
	if r := testApp(t, nil).invoke("run", "-scenario", "zzzzzzzzzz", "-seed", "1"); strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a word far from every name got a suggestion: %q", r.stderr)
	}
	r = testApp(t, nil).invoke("sweep", "-h")
	if n := strings.Count(r.stdout, "default"); !strings.Contains(r.stdout, "-j") || strings.Contains(r.stdout, "(default: the number of CPUs) (default") {
		t.Errorf("sweep -h states -j's default twice (%d defaults):\n%s", n, r.stdout)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"standard", "pipeline-calm", "timeout-diamond"}
	for word, want := range map[string]string{"standrd": "standard", "standard": "standard", "pipline-calm": "pipeline-calm", "diamond": "", "x": ""} {
		if got := nearest(word, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestCappedViolationsSayHowManyMore: a run whose property found more violations than are
// kept says how many in all, and "... and N more" under that property's last one; -json has
// the count per property under omitted (control-at-least-once-sink seed 1 duplicates 36
// records and keeps 10).
func TestCappedViolationsSayHowManyMore(t *testing.T) {
	r := realRun("run", "-scenario", "control-at-least-once-sink", "-seed", "1")
	if !strings.Contains(r.stdout, "violations:  36 (10 listed)") || !strings.Contains(r.stdout, "  ... and 26 more exactly-once\n") {
		t.Errorf("no count of the violations left out:\n%s", r.stdout)
	}
	// Under them, the checker's diff of expected against committed counts.
	if !strings.Contains(r.stdout, "  exactly-once, expected (-) against committed (+) counts of the first records that differ:\n") ||
		!strings.Contains(r.stdout, `"source:0:41"`) {
		t.Errorf("no exactly-once diff under the violations:\n%s", r.stdout)
	}
	r = realRun("run", "-scenario", "control-at-least-once-sink", "-seed", "1", "-json")
	if !strings.Contains(r.stdout, `"omitted":{"exactly-once":26}`) || strings.Contains(r.stdout, "against committed") {
		t.Errorf("-json has no omitted count, or a diff (which go-cmp does not keep byte-stable):\n%s", r.stdout)
	}
}

// TestExtractGivesARunnableScenarioFile: extract prints an artifact's scenario as a file,
// renamed and described as extracted, whose run on the artifact's seed has the artifact's
// trace hash; a file that is not an artifact is bad input.
func TestExtractGivesARunnableScenarioFile(t *testing.T) {
	dir := inTempDir(t)
	if r := realRun("run", "-scenario", "control-lost-metadata", "-seed", "2", "-artifacts", "arts"); r.code != exitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	artifact := filepath.Join("arts", "control-lost-metadata-seed2-fail.json")
	r := realRun("extract", artifact)
	if r.code != exitOK || !strings.Contains(r.stdout, `"name": "control-lost-metadata-extracted"`) || !strings.Contains(r.stdout, "Extracted from artifact "+artifact) {
		t.Fatalf("extract: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "x.json"), r.stdout)
	run := realRun("run", "-scenario", "x.json", "-seed", "2", "-json")
	art, err := loadArtifact(artifact)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.stdout, `"trace_hash":"`+art.TraceHash+`"`) {
		t.Errorf("the extracted scenario does not rerun the artifact's case (hash %s):\n%s", art.TraceHash, run.stdout)
	}
	if r := realRun("extract", "x.json"); r.code != exitUsage || !strings.Contains(r.stderr, "not a valid artifact") {
		t.Errorf("extract of a scenario file: exit %d, %q", r.code, r.stderr)
	}
}
