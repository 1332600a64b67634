package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// kubernetesEnv is the environment of pod index of an Indexed Job of count completions.
func kubernetesEnv(index, count int) func(string) string {
	env := map[string]string{envJobCompletionIndex: fmt.Sprint(index), envSimrunShards: fmt.Sprint(count)}
	return func(name string) string { return env[name] }
}

// sweepShards runs `sweep -json args` as count shards, each with the environment of an
// Indexed Job's pod, in the current directory, and writes each shard's output to a file
// there; it returns the files' absolute paths.
func sweepShards(t *testing.T, a *app, count int, args ...string) []string {
	t.Helper()
	var paths []string
	for i := range count {
		a.getenv = kubernetesEnv(i, count)
		r := a.invoke(append([]string{"sweep", "-json"}, args...)...)
		if r.code == exitUsage {
			t.Fatalf("shard %d/%d: exit %d: %s", i+1, count, r.code, r.stderr)
		}
		want := fmt.Sprintf("simrun: shard %d/%d (from JOB_COMPLETION_INDEX=%d, SIMRUN_SHARDS=%d): the seeds congruent to %d mod %d\n", i+1, count, i, count, i, count)
		if !strings.HasPrefix(r.stderr, want) {
			t.Errorf("shard %d/%d: stderr %q does not start with %q", i+1, count, r.stderr, want)
		}
		path, err := filepath.Abs(fmt.Sprintf("shard-%d-of-%d.jsonl", i+1, count))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, writeFile(t, path, r.stdout))
	}
	a.getenv = nil
	return paths
}

// chdirNew changes into a new directory under dir, so that each sweep's artifacts land at
// the same relative paths as every other's.
func chdirNew(t *testing.T, dir, name string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(path)
}

// TestMergeOfShardsIsTheWholeSweep: for any number of shards, merging their sweep -json
// outputs prints what the one sweep prints, as text and as JSON (bar each run's wall_ns),
// with its exit status: over the default sweep (the catalogue with its negative controls,
// then the generic part), over generated scenarios alone, and over scenarios with unexpected
// failures and their artifacts.
func TestMergeOfShardsIsTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	buggy := writeFile(t, filepath.Join(dir, "buggy.json"), buggyScenario)
	limited := &scenariotest.Fake{Limit: func(p *scenarios.Plan) bool { return p.Seed%5 == 0 }}
	failsOn5 := &scenariotest.Fake{Fails: func(p *scenarios.Plan) []checker.Property {
		if p.Seed == 5 {
			return []checker.Property{checker.PropConsistentCut}
		}
		return nil
	}}
	for _, tc := range []struct {
		name   string
		runner scenarios.Runner
		args   []string
		code   int
	}{
		{"default sweep", &scenariotest.Fake{}, []string{"-seeds", "1-3"}, exitOK},
		{"default sweep failing in its generic part", failsOn5, []string{"-seeds", "1-2", "-generic", "4-6"}, exitUnexpected},
		{"limits", limited, []string{"-scenario", "pipeline-calm", "-seeds", "1-11"}, exitLimit},
		{"generated", &scenariotest.Fake{}, []string{"-generated", "-seeds", "4-12"}, exitOK},
		{"generated with an unexpected failure", failsOn5, []string{"-generated", "-seeds", "3-9"}, exitUnexpected},
		{"unexpected failures", &scenariotest.Fake{}, []string{"-scenario", buggy, "-seeds", "1-6"}, exitUnexpected},
	} {
		for _, n := range []int{1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%s in %d shards", tc.name, n), func(t *testing.T) {
				a := testApp(t, tc.runner)
				base := t.TempDir()
				chdirNew(t, base, "whole-text")
				wholeText := a.invoke(append([]string{"sweep"}, tc.args...)...)
				chdirNew(t, base, "whole-json")
				wholeJSON := a.invoke(append([]string{"sweep", "-json"}, tc.args...)...)
				chdirNew(t, base, "shards")
				files := sweepShards(t, a, n, tc.args...)
				if wholeText.code != tc.code || wholeJSON.code != tc.code {
					t.Fatalf("the whole sweep exits %d and %d, want %d: %s", wholeText.code, wholeJSON.code, tc.code, wholeJSON.stderr)
				}
				text := a.invoke(append([]string{"merge"}, files...)...)
				if text.code != tc.code || text.stderr != "" {
					t.Errorf("merge: exit %d, want %d; stderr %q", text.code, tc.code, text.stderr)
				}
				if text.stdout != wholeText.stdout {
					t.Errorf("merge prints\n%s\nthe whole sweep\n%s", text.stdout, wholeText.stdout)
				}
				asJSON := a.invoke(append([]string{"merge", "-json"}, files...)...)
				if asJSON.code != tc.code {
					t.Errorf("merge -json: exit %d, want %d: %s", asJSON.code, tc.code, asJSON.stderr)
				}
				if got, want := withoutWallTime(asJSON.stdout), withoutWallTime(wholeJSON.stdout); got != want {
					t.Errorf("merge -json prints\n%s\nthe whole sweep\n%s", got, want)
				}
			})
		}
	}
}

func withoutWallTime(jsonLines string) string {
	return wallTime.ReplaceAllString(jsonLines, `"wall_ns":0`)
}

// TestSweepOutputFile: sweep -o FILE writes what stdout would have shown, puts FILE in place
// whole when the sweep ends, whatever its exit status, leaves nothing else behind, and
// replaces a FILE from an earlier run.
func TestSweepOutputFile(t *testing.T) {
	dir := inTempDir(t)
	writeFile(t, "buggy.json", buggyScenario)
	a := testApp(t, &scenariotest.Fake{})
	a.artifactDir = filepath.Join(dir, "arts")
	for _, args := range [][]string{
		{"sweep", "-scenario", "pipeline-calm", "-seeds", "1-5"},
		{"sweep", "-json", "-scenario", "pipeline-calm", "-seeds", "1-5", "-shard", "2/2"},
		{"sweep", "-scenario", "buggy.json", "-seeds", "1-3"},
	} {
		want := a.invoke(args...)
		os.RemoveAll(a.artifactDir) // so that the artifacts get the same names again
		writeFile(t, "out.txt", "from an earlier run\n")
		got := a.invoke(append(args, "-o", "out.txt")...)
		data, err := os.ReadFile("out.txt")
		if err != nil {
			t.Fatal(err)
		}
		if got.code != want.code || got.stdout != "" || withoutWallTime(string(data)) != withoutWallTime(want.stdout) {
			t.Errorf("%v -o: exit %d (want %d), stdout %q, file\n%s\nwant\n%s", args, got.code, want.code, got.stdout, data, want.stdout)
		}
		if hidden, _ := filepath.Glob(filepath.Join(dir, ".*")); len(hidden) > 0 {
			t.Errorf("%v -o: left %v behind", args, hidden)
		}
		os.RemoveAll(a.artifactDir)
	}
}

// TestMergeOfAPartialMerge: -partial merges what is there, says which shards are missing
// and records the shards it holds, so that its output merges with the missing ones into
// the whole sweep.
func TestMergeOfAPartialMerge(t *testing.T) {
	dir := inTempDir(t)
	a := testApp(t, &scenariotest.Fake{})
	args := []string{"-scenario", "pipeline-calm", "-seeds", "1-12"}
	whole := a.invoke(append([]string{"sweep", "-json"}, args...)...)
	files := sweepShards(t, a, 4, args...)

	r := a.invoke("merge", files[0], files[2])
	if r.code != exitUsage || !strings.Contains(r.stderr, "missing shards 2/4, 4/4 (the files hold 1,3 of 4)") {
		t.Errorf("merge without -partial: exit %d, stderr %q", r.code, r.stderr)
	}
	r = a.invoke("merge", "-partial", files[0], files[2])
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "shards 1,3 of 4 (merge -partial): 2/4, 4/4 missing\n") || !regexp.MustCompile(`\ntotal +6 `).MatchString(r.stdout) {
		t.Errorf("merge -partial: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = a.invoke("merge", "-partial", "-json", files[0], files[2])
	_, summary := runKeys(t, r.stdout)
	if r.code != exitOK || r.stderr != "simrun: shards 1,3 of 4 (merge -partial): 2/4, 4/4 missing\n" || fmt.Sprint(summary["shard"]) != "map[count:4 indexes:[1 3]]" {
		t.Fatalf("merge -partial -json: exit %d, summary shard %v, stderr %q", r.code, summary["shard"], r.stderr)
	}
	partial := writeFile(t, filepath.Join(dir, "partial.jsonl"), r.stdout)
	r = a.invoke("merge", "-json", files[3], partial, files[1])
	if r.code != exitOK || withoutWallTime(r.stdout) != withoutWallTime(whole.stdout) {
		t.Errorf("the partial merge and the missing shards: exit %d\n%s\nwant\n%s", r.code, r.stdout, whole.stdout)
	}
	if r = a.invoke("merge", partial, files[2]); r.code != exitUsage || !strings.Contains(r.stderr, "both hold shard 3/4") {
		t.Errorf("a partial merge with a shard it holds: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestMergeRefuses: everything that would make a merge differ from one sweep over the
// union is bad input: exit status 2 and one line that names the files, nothing on stdout.
func TestMergeRefuses(t *testing.T) {
	dir := inTempDir(t)
	a := testApp(t, &scenariotest.Fake{})
	calm := []string{"-scenario", "pipeline-calm", "-seeds", "1-12"}
	shards := sweepShards(t, a, 3, calm...)
	s1, s2, s3 := shards[0], shards[1], shards[2]
	save := func(name, content string) string { return writeFile(t, filepath.Join(dir, name), content) }
	output := func(a *app, env func(string) string, args ...string) string {
		a.getenv = env
		defer func() { a.getenv = nil }()
		r := a.invoke(append([]string{"sweep", "-json"}, args...)...)
		if r.code == exitUsage {
			t.Fatalf("sweep %v: exit %d: %s", args, r.code, r.stderr)
		}
		return r.stdout
	}

	other := testApp(t, &scenariotest.Fake{})
	other.build = func() string { return "other-build" }
	otherBuild := save("other-build.jsonl", output(other, kubernetesEnv(1, 3), calm...))
	otherSeeds := save("other-seeds.jsonl", output(a, kubernetesEnv(1, 3), "-scenario", "pipeline-calm", "-seeds", "1-13"))
	otherScenario := save("other-scenario.jsonl", output(a, kubernetesEnv(1, 3), "-scenario", "coordinator-failover", "-seeds", "1-12"))
	whole := save("whole.jsonl", output(a, nil, calm...))
	ofFour := save("of-four.jsonl", output(a, kubernetesEnv(1, 4), calm...))
	buggyA := save("buggy.json", buggyScenario)
	fileA := save("file-a.jsonl", output(a, kubernetesEnv(0, 2), "-scenario", buggyA, "-seeds", "1-4", "-artifacts", filepath.Join(dir, "arts")))
	save("buggy.json", strings.Replace(buggyScenario, `"records": 60`, `"records": 61`, 1))
	fileB := save("file-b.jsonl", output(a, kubernetesEnv(1, 2), "-scenario", buggyA, "-seeds", "1-4", "-artifacts", filepath.Join(dir, "arts")))

	data := func(path string) string {
		content, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(content)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(data(s1), "\n"), "\n")
	runLines, summaryLine := lines[:len(lines)-1], lines[len(lines)-1]
	if len(runLines) != 4 {
		t.Fatalf("shard 1/3 of 1-12 holds %d runs, want 4", len(runLines))
	}
	truncated := save("truncated.jsonl", strings.Join(runLines, ""))
	concatenated := save("concatenated.jsonl", data(s1)+data(s2))
	edited := save("edited.jsonl", strings.Join(runLines[1:], "")+summaryLine)
	swapped := save("swapped.jsonl", runLines[1]+runLines[0]+strings.Join(runLines[2:], "")+summaryLine)
	foreign := save("foreign.jsonl", strings.SplitAfter(data(s2), "\n")[0]+data(s1))
	old := save("old.jsonl", regexp.MustCompile(`,"build":.*}`).ReplaceAllString(data(s1), "}"))
	junk := save("junk.jsonl", "not json\n"+data(s1))
	badVerdict := save("bad-verdict.jsonl", strings.Replace(data(s1), `"verdict":"pass"`, `"verdict":"maybe"`, 1))
	text := a.invoke("sweep", "-scenario", "pipeline-calm", "-seeds", "1-3")
	textOutput := save("text.txt", text.stdout)
	empty := save("empty.jsonl", "")

	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"no files", nil, "merge: want the sweep -json outputs to merge"},
		{"different builds", []string{s1, otherBuild, s3}, "and " + otherBuild + " come from different builds (test-build, other-build)"},
		{"different seed ranges", []string{s1, otherSeeds, s3}, "are outputs of different sweeps: pipeline-calm over seeds 1-12 in one and 1-13 in the other"},
		{"different scenarios", []string{s1, otherScenario, s3}, "are outputs of different sweeps: scenario 1 is pipeline-calm in one and coordinator-failover in the other"},
		{"different files of one name", []string{fileA, fileB}, fileA + " and " + fileB + " are outputs of different sweeps: buggy is a different scenario in each"},
		{"the same shard twice", []string{s1, s2, s2, s3}, s2 + " and " + s2 + " both hold shard 2/3: their runs overlap"},
		{"the whole sweep twice", []string{whole, whole}, "both hold the whole sweep: their runs overlap"},
		{"the whole sweep and a shard", []string{s1, whole}, whole + " holds the whole sweep and " + s1 + " shard 1/3 of it: their runs overlap"},
		{"different shard counts", []string{s1, ofFour}, s1 + " is shard 1/3 and " + ofFour + " shard 2/4"},
		{"a missing shard", []string{s1, s3}, "missing shards 2/3 (the files hold 1,3 of 3)"},
		{"a truncated output", []string{truncated, s2, s3}, truncated + " does not end in the summary line of a sweep -json output"},
		{"concatenated outputs", []string{concatenated, s3}, concatenated + ":6: a line after the summary line of line 5"},
		{"an edited output", []string{edited, s2, s3}, edited + " holds 3 runs, 0 unexpected, but its summary line counts 4"},
		{"runs out of order", []string{swapped, s2, s3}, swapped + ":2: pipeline-calm seed 3 is out of sweep order"},
		{"a run of another shard", []string{foreign, s2, s3}, foreign + ":1: pipeline-calm seed 1 is not in shard 1/3"},
		{"an output without build or plan", []string{old, s2, s3}, old + " records no build or plan"},
		{"a line that is not JSON", []string{junk, s2, s3}, junk + ":1: not a line of sweep -json output"},
		{"a run with an unknown verdict", []string{badVerdict, s2, s3}, badVerdict + ":1: pipeline-calm seed 3: verdict \"maybe\""},
		{"text output", []string{textOutput}, textOutput + " does not end in the summary line"},
		{"an empty file", []string{empty}, empty + " does not end in the summary line"},
		{"a missing file", []string{s1, filepath.Join(dir, "gone.jsonl")}, "gone.jsonl: no such file"},
		{"a directory", []string{dir}, dir + " is a directory"},
		{"an unknown flag", []string{"-parital", s1}, "merge: unknown flag -parital (did you mean -partial?)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshotDir(t, dir)
			r := a.invoke(append([]string{"merge"}, tc.files...)...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "simrun: ") || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q\nis not one line with %q", r.stderr, tc.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout is not empty: %q", r.stdout)
			}
			if after := snapshotDir(t, dir); after != before {
				t.Error("merge changed files")
			}
		})
	}
	// The three shards themselves merge.
	if r := a.invoke("merge", s3, s1, s2); r.code != exitOK {
		t.Errorf("the three shards in any order: exit %d: %s", r.code, r.stderr)
	}
}

// TestShardedSweepSaysWhichShard: a sweep says which shard it ran and where that came from,
// first in its text and in its JSON summary line, and records the build and the plan that
// merge compares.
func TestShardedSweepSaysWhichShard(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	a.getenv = func(name string) string {
		return map[string]string{envSlurmTaskID: "6", envSlurmTaskMin: "4", envSlurmTaskCount: "3", envSlurmTaskMax: "8", envSlurmTaskStep: "2"}[name]
	}
	r := a.invoke("sweep", "-scenario", "pipeline-calm", "-seeds", "1-12")
	first, _, _ := strings.Cut(r.stdout, "\n")
	if want := "shard 2/3 (from SLURM_ARRAY_TASK_ID=6, SLURM_ARRAY_TASK_MIN=4, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=2): the seeds congruent to 1 mod 3"; r.code != exitOK || first != want {
		t.Errorf("exit %d, first line %q, want %q", r.code, first, want)
	}
	r = a.invoke("sweep", "-json", "-scenario", "pipeline-calm", "-seeds", "1-12")
	keys, summary := runKeys(t, r.stdout)
	if !slices.Equal(keys, []string{"pipeline-calm/1", "pipeline-calm/4", "pipeline-calm/7", "pipeline-calm/10"}) {
		t.Errorf("shard 2/3 ran %v", keys)
	}
	for field, want := range map[string]string{
		"shard": "map[count:3 indexes:[2] source:SLURM_ARRAY_TASK_ID=6, SLURM_ARRAY_TASK_MIN=4, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_STEP=2]",
		"build": "test-build",
		"plan":  "[map[digest:" + planDigest(t, "pipeline-calm") + " scenario:pipeline-calm seeds:1-12]]",
		"runs":  "4",
	} {
		if got := fmt.Sprint(summary[field]); got != want {
			t.Errorf("summary %s = %s, want %s", field, got, want)
		}
	}
	// An explicit -shard wins, and the output says so.
	r = a.invoke("sweep", "-scenario", "pipeline-calm", "-seeds", "1-12", "-shard", "1/4")
	if !strings.HasPrefix(r.stdout, "shard 1/4 (from -shard 1/4): the seeds congruent to 0 mod 4\n") {
		t.Errorf("-shard: %s", r.stdout)
	}
	// Bad values in the environment are bad usage.
	a.getenv = kubernetesEnv(3, 3)
	r = a.invoke("sweep", "-scenario", "pipeline-calm")
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "simrun: sweep: JOB_COMPLETION_INDEX=3 is not below the shard count (SIMRUN_SHARDS=3)") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func planDigest(t *testing.T, name string) string {
	t.Helper()
	s, err := scenarios.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return (&sweepSpec{scenarios: []*scenarios.Scenario{s}}).plan()[0].Digest
}

// TestBatchEngineShardsMergeIntoTheWholeSweep is the batch engines end to end: a built
// simrun runs as the three pods of a Kubernetes Indexed Job and as the three tasks of a
// Slurm array, each a separate process that takes its shard from its environment, and
// simrun merge of their outputs prints what one process sweeping everything prints, with
// its exit status: 1 for the scenario with unexpected failures, whose replay lines and
// artifacts count match too, and 0 for the one without.
func TestBatchEngineShardsMergeIntoTheWholeSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds simrun")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "simrun")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	buggy := writeFile(t, filepath.Join(dir, "buggy.json"), buggyScenario)
	for _, engine := range []struct {
		name string
		args []string
		envs [][]string // one per shard
		code int
		// toFile has each shard write its output with -o, as the Kubernetes manifest in
		// deploy/ does, rather than to stdout.
		toFile bool
	}{
		{
			name:   "kubernetes",
			args:   []string{"-scenario", buggy, "-seeds", "1-12", "-artifacts", "arts"},
			envs:   [][]string{{"JOB_COMPLETION_INDEX=0", "SIMRUN_SHARDS=3"}, {"JOB_COMPLETION_INDEX=1", "SIMRUN_SHARDS=3"}, {"JOB_COMPLETION_INDEX=2", "SIMRUN_SHARDS=3"}},
			code:   exitUnexpected,
			toFile: true,
		},
		{
			name: "slurm",
			args: []string{"-scenario", "coordinator-failover", "-seeds", "1-12"},
			envs: [][]string{
				{"SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_COUNT=3"},
				{"SLURM_ARRAY_TASK_ID=2", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_COUNT=3"},
				{"SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_COUNT=3"},
			},
			code: exitOK,
		},
	} {
		t.Run(engine.name, func(t *testing.T) {
			base := filepath.Join(dir, engine.name)
			simrun := func(workDir string, env []string, args ...string) invocationResult {
				t.Helper()
				if err := os.MkdirAll(workDir, 0o755); err != nil {
					t.Fatal(err)
				}
				return runExe(t, exe, workDir, env, args...)
			}
			sweep := append([]string{"sweep", "-j", "1"}, engine.args...)
			var files []string
			shardDir := filepath.Join(base, "shards")
			for i, env := range engine.envs {
				path := filepath.Join(shardDir, fmt.Sprintf("shard-%d.jsonl", i+1))
				args := append(sweep, "-json")
				if engine.toFile {
					args = append(args, "-o", filepath.Base(path))
				}
				r := simrun(shardDir, env, args...)
				if r.code != engine.code && r.code != exitOK {
					t.Fatalf("shard %d: exit %d: %s", i+1, r.code, r.stderr)
				}
				if engine.toFile {
					if r.stdout != "" {
						t.Errorf("shard %d wrote to stdout with -o: %q", i+1, r.stdout)
					}
					data, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					r.stdout = string(data)
				} else {
					writeFile(t, path, r.stdout)
				}
				_, summary := runKeys(t, r.stdout)
				if source := fmt.Sprint(summary["shard"]); !strings.Contains(source, fmt.Sprintf("indexes:[%d]", i+1)) || !strings.Contains(source, env[0]) {
					t.Errorf("shard %d: summary shard %s", i+1, source)
				}
				files = append(files, path)
			}
			if hidden, _ := filepath.Glob(filepath.Join(shardDir, ".*.partial")); len(hidden) > 0 {
				t.Errorf("-o left %v behind", hidden)
			}
			wholeText := simrun(filepath.Join(base, "whole-text"), nil, sweep...)
			wholeJSON := simrun(filepath.Join(base, "whole-json"), nil, append(sweep, "-json")...)
			mergedText := simrun(base, nil, append([]string{"merge"}, files...)...)
			mergedJSON := simrun(base, nil, append([]string{"merge", "-json"}, files...)...)
			for _, r := range []invocationResult{wholeText, wholeJSON, mergedText, mergedJSON} {
				if r.code != engine.code {
					t.Fatalf("exit %d, want %d: %s", r.code, engine.code, r.stderr)
				}
			}
			if mergedText.stdout != wholeText.stdout {
				t.Errorf("merge prints\n%s\none process prints\n%s", mergedText.stdout, wholeText.stdout)
			}
			if got, want := withoutWallTime(mergedJSON.stdout), withoutWallTime(wholeJSON.stdout); got != want {
				t.Errorf("merge -json prints\n%s\none process prints\n%s", got, want)
			}
			if engine.code == exitUnexpected && !strings.Contains(mergedText.stdout, "replay: simrun replay arts/buggy-seed") {
				t.Errorf("merge does not print the replay commands:\n%s", mergedText.stdout)
			}
		})
	}
}

// runExe runs the simrun binary exe in workDir with env added to an environment cleared of
// every batch engine's variables, so that the test means the same inside a Slurm job.
func runExe(t *testing.T, exe, workDir string, env []string, args ...string) invocationResult {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = workDir
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != envJobCompletionIndex && name != envSimrunShards && !strings.HasPrefix(name, "SLURM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", exe, args, err)
	}
	return invocationResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}
