package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// runKeys returns "scenario/seed" for each per-run line of sweep -json output, and the
// summary line.
func runKeys(t *testing.T, out string) ([]string, map[string]any) {
	t.Helper()
	var keys []string
	var summary map[string]any
	for _, line := range jsonLines(t, out) {
		if line["summary"] == true {
			summary = line
			continue
		}
		keys = append(keys, fmt.Sprintf("%v/%v", line["scenario"], line["seed"]))
	}
	return keys, summary
}

func TestShardsPartitionTheRange(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	all := a.invoke("sweep", "-json", "-seeds", "3-25", "-scenario", "pipeline-calm")
	whole, _ := runKeys(t, all.stdout)
	if len(whole) != 23 {
		t.Fatalf("%d runs, want 23", len(whole))
	}
	for _, n := range []int{1, 2, 3, 7, 40} {
		var merged []string
		for i := 1; i <= n; i++ {
			r := a.invoke("sweep", "-json", "-seeds", "3-25", "-scenario", "pipeline-calm", "-shard", fmt.Sprintf("%d/%d", i, n))
			if r.code != exitOK {
				t.Fatalf("shard %d/%d: exit %d: %s", i, n, r.code, r.stderr)
			}
			keys, summary := runKeys(t, r.stdout)
			if summary["runs"] != float64(len(keys)) {
				t.Errorf("shard %d/%d: summary says %v runs, printed %d", i, n, summary["runs"], len(keys))
			}
			merged = append(merged, keys...)
		}
		slices.Sort(merged)
		sortedWhole := slices.Sorted(slices.Values(whole))
		if !slices.Equal(merged, sortedWhole) {
			t.Errorf("%d shards cover %v\nwant %v", n, merged, sortedWhole)
		}
	}
}

// TestShardCount checks shardFlag's arithmetic count against counting one by one.
func TestShardCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64Range(1, 50).Draw(t, "n")
		i := rapid.Uint64Range(1, n).Draw(t, "i")
		first := rapid.Uint64Range(0, 500).Draw(t, "first")
		last := first + rapid.Uint64Range(0, 300).Draw(t, "length")
		shard := shardFlag{index: i, count: n}
		var want uint64
		for s := first; s <= last; s++ {
			if shard.contains(s) {
				want++
			}
		}
		if got := shard.countIn(scenarios.SeedRange{First: first, Last: last}); got != want {
			t.Fatalf("countIn = %d, want %d", got, want)
		}
	})
}

var wallTime = regexp.MustCompile(`"wall_ns":\d+`)

func TestSweepOutputDoesNotDependOnParallelism(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	var outputs []string
	for _, j := range []string{"1", "3", "8"} {
		r := a.invoke("sweep", "-json", "-seeds", "1-4", "-j", j)
		if r.code != exitOK {
			t.Fatalf("-j %s: exit %d: %s", j, r.code, r.stderr)
		}
		outputs = append(outputs, wallTime.ReplaceAllString(r.stdout, `"wall_ns":0`))
		text := a.invoke("sweep", "-seeds", "1-4", "-j", j)
		outputs = append(outputs, text.stdout)
	}
	for k := 2; k < len(outputs); k++ {
		if outputs[k] != outputs[k%2] {
			t.Errorf("output %d differs from the -j 1 output:\n%s\nvs\n%s", k, outputs[k], outputs[k%2])
		}
	}
	keys, summary := runKeys(t, outputs[0])
	// -seeds 1-4 replaces every part's seeds: each built-in's and the generic part's.
	if want := 4 * (len(scenarios.Builtins()) + 1); len(keys) != want || summary["runs"] != float64(want) {
		t.Errorf("%d runs (summary %v), want %d", len(keys), summary["runs"], want)
	}
	if summary["unexpected"] != 0.0 || summary["failed"] == 0.0 {
		t.Errorf("summary %v: the fake fails every negative control and nothing else", summary)
	}
}

func TestSweepFailFast(t *testing.T) {
	dir := inTempDir(t)
	writeFile(t, "buggy.json", buggyScenario)
	// Only seeds 3 and 5 of the buggy scenario fail.
	fake := &scenariotest.Fake{Fails: func(p *scenarios.Plan) []checker.Property {
		if p.Seed == 3 || p.Seed == 5 {
			return []checker.Property{checker.PropExactlyOnce}
		}
		return nil
	}}
	for _, j := range []string{"1", "4"} {
		a := testApp(t, fake)
		a.artifactDir = filepath.Join(dir, "artifacts-"+j)
		r := a.invoke("sweep", "-json", "-failfast", "-scenario", "buggy.json", "-seeds", "1-6", "-j", j)
		keys, summary := runKeys(t, r.stdout)
		if r.code != exitUnexpected || !slices.Equal(keys, []string{"buggy/1", "buggy/2", "buggy/3"}) || summary["stopped_early"] != true {
			t.Errorf("-j %s: exit %d, runs %v, summary %v", j, r.code, keys, summary)
		}
		if !strings.Contains(r.stderr, "replay with: simrun replay "+filepath.Join(a.artifactDir, "buggy-seed3-fail.json")) {
			t.Errorf("-j %s: stderr %q lacks the replay command", j, r.stderr)
		}
	}
}

// TestSweepInterrupted: on SIGINT a sweep starts nothing more, says how far it got, prints
// the summary of the runs that ended to standard output (not to -o, whose file never
// exists unless whole, and whose .partial goes) and exits 130.
func TestSweepInterrupted(t *testing.T) {
	dir := inTempDir(t)
	writeFile(t, "buggy.json", buggyScenario)
	a := testApp(t, &scenariotest.Fake{})
	calls := 0
	a.interrupted = func() bool { calls++; return calls > 3 }
	r := a.invoke("sweep", "-scenario", "buggy.json", "-seeds", "1-50", "-j", "1", "-o", "out.txt")
	if r.code != exitInterrupted || r.stderr != "simrun: sweep: interrupted after 3 of 50 runs\n" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "total 3 0 3") {
		t.Errorf("no summary of the 3 runs on stdout:\n%s", r.stdout)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "buggy.json" && e.Name() != defaultArtifactDir { // artifacts are results, kept
			t.Errorf("%s left behind", e.Name())
		}
	}
}

// TestDefaultJobSweepsTheCatalogue: simrun with no arguments prints a row per built-in and
// one for the generic part, generated seeds 1-genericSeedCount, then the total.
func TestDefaultJobSweepsTheCatalogue(t *testing.T) {
	inTempDir(t)
	r := testApp(t, &scenariotest.Fake{}).invoke()
	if r.code != exitOK {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("progress went to stderr although it is not a terminal: %q", r.stderr)
	}
	header := strings.Fields(strings.SplitN(r.stdout, "\n", 2)[0])
	for _, col := range []string{"scenario", "runs", "passed", "failed", "unknown", "limit", "unexpected", "recovery", "checkpoint", "p50", "p99"} {
		if !slices.Contains(header, col) {
			t.Errorf("summary header %v lacks %s", header, col)
		}
	}
	for _, s := range scenarios.Builtins() {
		row := fmt.Sprintf("%s ", s.Name)
		if !strings.Contains(r.stdout, row) {
			t.Errorf("no summary row for %s", s.Name)
		}
	}
	generic := fmt.Sprintf("\ngenerated 1-%d  %d ", genericSeedCount, genericSeedCount)
	if !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), strings.Join(strings.Fields(generic), " ")) {
		t.Errorf("no row %q for the generic part:\n%s", generic, r.stdout)
	}
	if !strings.Contains(r.stdout, "\ntotal ") {
		t.Errorf("no total row:\n%s", r.stdout)
	}
}

func TestSweepOfAnUnexpectedFailurePrintsItsReplay(t *testing.T) {
	inTempDir(t)
	writeFile(t, "buggy.json", buggyScenario)
	r := testApp(t, &scenariotest.Fake{}).invoke("sweep", "-scenario", "buggy.json", "-seeds", "1-2", "-j", "2")
	if r.code != exitUnexpected {
		t.Fatalf("exit %d", r.code)
	}
	for _, want := range []string{
		"UNEXPECTED buggy seed 1: fail: violated exactly-once",
		"replay: simrun replay simrun-artifacts/buggy-seed1-fail.json",
		"replay: simrun replay simrun-artifacts/buggy-seed2-fail.json",
		"2 artifacts in simrun-artifacts",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestSummaryQuantiles(t *testing.T) {
	var s summary
	for i := 1; i <= 100; i++ {
		s.add(&scenarios.Result{Scenario: "x", Verdict: scenarios.VerdictPass, RecoveryNanos: []int64{int64(i) * 1_000_000}, CheckpointNanos: []int64{5_000_000}})
	}
	total := s.total()
	if float64(total.RecoveryP50) != 50.5e6 || float64(total.RecoveryP99) != 99.01e6 || float64(total.CheckpointP50) != 5e6 {
		t.Errorf("p50 %v p99 %v checkpoint p50 %v", total.RecoveryP50, total.RecoveryP99, total.CheckpointP50)
	}
	var out strings.Builder
	s.print(&out)
	if !strings.Contains(out.String(), "50.5ms") || !strings.Contains(out.String(), "99.0ms") {
		t.Errorf("table:\n%s", out.String())
	}
}

// Summary quantiles are whole nanoseconds, so the floating-point interpolation behind them
// (whose last bit may depend on the architecture) shows only at a half nanosecond.
func TestSummaryQuantilesAreWholeNanoseconds(t *testing.T) {
	for _, values := range [][]float64{{1, 2}, {1, 2, 4}, {3, 10, 11, 500, 1_000_001}} {
		p50, p99 := quantiles(values)
		for _, q := range []jsonFloat{p50, p99} {
			if float64(q) != math.Trunc(float64(q)) {
				t.Errorf("quantiles of %v: %v is not a whole number of nanoseconds", values, q)
			}
		}
	}
	if p50, p99 := quantiles([]float64{1, 2, 4}); p50 != 2 || p99 != 4 {
		t.Errorf("quantiles of 1, 2, 4: %v and %v, want 2 and 4 (3.96 rounded)", p50, p99)
	}
}

// TestArtifactsWhereNoneCanBeWritten: an -artifacts directory that cannot be made (a path
// through a file) or written in is bad input before any run, not an artifact lost after one.
func TestArtifactsWhereNoneCanBeWritten(t *testing.T) {
	dir := inTempDir(t)
	writeFile(t, "file", "")
	for _, tc := range []struct{ path, want string }{
		{filepath.Join("file", "arts"), "not a directory"},
		{"/proc/self/arts", "sweep: -artifacts /proc/self/arts: cannot write in /proc/self"}, // not even root writes there
	} {
		fake := &scenariotest.Fake{}
		r := testApp(t, fake).invoke("sweep", "-scenario", "pipeline-calm", "-seeds", "1-2", "-artifacts", tc.path)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || fake.Runs() != 0 {
			t.Errorf("%s: exit %d after %d runs, stderr %q", tc.path, r.code, fake.Runs(), r.stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}
