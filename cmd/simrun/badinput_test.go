package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

// TestBadInput runs every kind of bad usage and bad input through the real entry point and
// requires exit status 2, exactly one line on stderr that starts with "simrun: ", nothing on
// stdout, no stack trace and no file changed.
func TestBadInput(t *testing.T) {
	dir := inTempDir(t)
	sentinel := "do not overwrite\n"
	existing := writeFile(t, filepath.Join(dir, "existing.txt"), sentinel)
	malformed := writeFile(t, filepath.Join(dir, "malformed.json"), `{"name": "x", "mode": "aligned",`)
	invalid := writeFile(t, filepath.Join(dir, "invalid.json"), strings.Replace(buggyScenario, `"at_ns": 300000000`, `"at_ns": -3`, 1))
	late := writeFile(t, filepath.Join(dir, "late.json"), strings.Replace(buggyScenario, `"at_ns": 300000000`, `"at_ns": 50000000000`, 1))
	notArtifact := writeFile(t, filepath.Join(dir, "scenario-not-artifact.json"), buggyScenario)
	good := goodArtifact(t, dir)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	truncated := writeFile(t, filepath.Join(dir, "truncated.json"), string(data[:len(data)/2]))
	corrupted := writeFile(t, filepath.Join(dir, "corrupted.json"), strings.Replace(string(data), `"trace_hash": "`, `"trace_hash": "zz`, 1))
	passed := writeFile(t, filepath.Join(dir, "passed.json"), passingArtifact(t, data))
	edited := writeFile(t, filepath.Join(dir, "edited.json"), strings.Replace(string(data), `"records": 60`, `"records": 59`, 1))
	unscheduled := writeFile(t, filepath.Join(dir, "unscheduled.json"), withoutScheduleEntry(t, data))

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"run", "-bogus"}, "run: unknown flag -bogus"},
		{"unknown flag of the default job", []string{"-bogus"}, "sweep: unknown flag -bogus"},
		{"flag without value", []string{"run", "-scenario"}, "run: flag -scenario needs a value"},
		{"unknown scenario", []string{"run", "-scenario", "nope", "-seed", "1"}, `unknown scenario "nope"`},
		{"unknown scenario in a sweep", []string{"sweep", "-scenario", "nope"}, `unknown scenario "nope"`},
		{"missing scenario file", []string{"run", "-scenario", "missing.json", "-seed", "1"}, "missing.json: no such file"},
		{"malformed scenario file", []string{"run", "-scenario", malformed, "-seed", "1"}, "malformed.json: scenario: invalid JSON"},
		{"invalid scenario file", []string{"sweep", "-scenario", invalid}, "scenario.faults[2].trigger.at_ns: must be in [0,"},
		{"fault after the fault phase", []string{"run", "-scenario", late, "-seed", "1"},
			"scenario.faults[2].trigger.at_ns: 50s is after the fault phase (limits.fault_phase 3s) and after the run's end (limits.max_virtual_time 13.5s): faults are injected only in the fault phase, so this net.delay would never fire"},
		{"bad input leaves the trace file alone", []string{"run", "-scenario", "nope", "-seed", "1", "-trace", existing}, "unknown scenario"},
		{"missing seed", []string{"run", "-scenario", "standard"}, "run: -seed is required"},
		{"bad seed", []string{"run", "-scenario", "standard", "-seed", "x"}, `invalid value "x" for -seed: must be a non-negative integer`},
		{"negative seed", []string{"run", "-scenario", "standard", "-seed", "-1"}, "must be a non-negative integer"},
		{"seed out of range", []string{"run", "-scenario", "standard", "-seed", "99999999999999999999"}, `invalid value "99999999999999999999" for -seed: out of range: seeds go from 0 to 18446744073709551615`},
		{"seed range out of range", []string{"sweep", "-seeds", "1-99999999999999999999"}, "for -seeds: out of range: seeds go from 0 to 18446744073709551615"},
		{"bad seed range", []string{"sweep", "-seeds", "5-3"}, `invalid value "5-3" for -seeds: the first seed is after the last`},
		{"seed range not numbers", []string{"sweep", "-seeds", "a-b"}, `invalid value "a-b" for -seeds`},
		{"bad shard", []string{"sweep", "-shard", "0/4"}, "want I/N with 1 <= I <= N"},
		{"shard past the count", []string{"sweep", "-shard", "5/4"}, "want I/N with 1 <= I <= N"},
		{"bad parallelism", []string{"sweep", "-j", "0"}, "-j: must be a positive integer"},
		{"bad shard count", []string{"sweep", "-shards", "0"}, "-shards: must be a positive integer"},
		{"shard and shard count", []string{"sweep", "-shard", "1/2", "-shards", "2"}, "sweep: -shard 1/2 and -shards 2: give one"},
		{"shard count without an index", []string{"sweep", "-shards", "3"}, "sweep: -shards 3 gives the shard count but neither JOB_COMPLETION_INDEX"},
		{"sweep output into a missing directory", []string{"sweep", "-scenario", "pipeline-calm", "-o", filepath.Join(dir, "no", "such", "dir", "out.jsonl")}, "sweep: -o " + filepath.Join(dir, "no", "such", "dir", "out.jsonl") + ":"},
		{"sweep output to a directory", []string{"sweep", "-scenario", "pipeline-calm", "-o", dir}, "sweep: -o " + dir + ": is a directory"},
		{"merge without files", []string{"merge"}, "merge: want the sweep -json outputs to merge"},
		{"merge of a missing file", []string{"merge", "gone.jsonl"}, "merge: open gone.jsonl: no such file"},
		{"merge of a scenario file", []string{"merge", invalid}, "merge: " + invalid + " does not end in the summary line of a sweep -json output"},
		{"merge of an artifact", []string{"merge", good}, "merge: " + good + " does not end in the summary line"},
		{"merge flag", []string{"merge", "-yaml", good}, "merge: unknown flag -yaml"},
		{"extra argument", []string{"run", "-scenario", "standard", "-seed", "1", "extra"}, `run: unexpected argument "extra"`},
		{"html in a missing directory", []string{"run", "-scenario", "standard", "-seed", "1", "-html", filepath.Join(dir, "no", "such", "dir", "out.html")}, "cannot write there"},
		{"trace into a missing directory", []string{"run", "-scenario", "standard", "-seed", "1", "-trace", filepath.Join(dir, "no", "such", "dir", "t.jsonl")}, "run: -trace:"},
		{"artifacts dir is a file", []string{"run", "-scenario", "standard", "-seed", "1", "-artifacts", existing}, "-artifacts"},
		{"replay without artifact", []string{"replay"}, "replay: want exactly one artifact file, got 0"},
		{"replay of two artifacts", []string{"replay", good, good}, "got 2 arguments"},
		{"replay of a missing artifact", []string{"replay", "gone.json"}, "gone.json: no such file"},
		{"replay of a directory", []string{"replay", dir}, "is a directory, not a file"},
		{"replay of a truncated artifact", []string{"replay", truncated}, "truncated.json is not a valid artifact: artifact: invalid JSON"},
		{"replay of a corrupted artifact", []string{"replay", corrupted}, "artifact.trace_hash: must be 16 lower-case hex digits (trace hash version 2)"},
		{"replay of an edited artifact", []string{"replay", edited}, "artifact.digest: does not match the artifact's content"},
		{"replay of an artifact missing a scheduled fault", []string{"replay", unscheduled}, "artifact.schedule: differs from artifact.scenario.faults"},
		{"shrink into a missing directory", []string{"shrink", good, "-o", filepath.Join(dir, "no", "such", "dir", "x.json")}, "shrink: -o " + filepath.Join(dir, "no", "such", "dir", "x.json") + ": no directory"},
		{"replay of a scenario file", []string{"replay", notArtifact}, "is not a valid artifact: artifact.name: unknown field"},
		{"shrink of a corrupted artifact", []string{"shrink", corrupted, "-o", existing}, "not a valid artifact"},
		{"shrink of a passing run", []string{"shrink", passed, "-o", existing}, "nothing to shrink"},
		{"shrink to a directory", []string{"shrink", good, "-o", dir}, "is a directory"},
		{"bench argument", []string{"bench", "x"}, `bench: unexpected argument "x"`},
		{"list flag", []string{"list", "-yaml"}, "list: unknown flag -yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshotDir(t, dir)
			var stdout, stderr bytes.Buffer
			code := run(tc.args, &stdout, &stderr)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (stderr %q)", code, exitUsage, stderr.String())
			}
			msg := stderr.String()
			if strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "simrun: ") {
				t.Errorf("stderr is not one line starting with \"simrun: \": %q", msg)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("stderr %q\ndoes not contain %q", msg, tc.want)
			}
			if strings.Contains(msg, "goroutine ") || strings.Contains(msg, ".go:") {
				t.Errorf("stderr has a stack trace: %q", msg)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout is not empty: %q", stdout.String())
			}
			if after := snapshotDir(t, dir); after != before {
				t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshotDir describes every file under dir with its content, to see that nothing changed.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		b.WriteString(path + "=" + string(data) + ";")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// goodArtifact writes a valid artifact of a failing run into dir and returns its path.
func goodArtifact(t *testing.T, dir string) string {
	t.Helper()
	s, err := scenarios.Parse([]byte(buggyScenario))
	if err != nil {
		t.Fatal(err)
	}
	p, res, err := scenarios.Execute(&scenariotest.Fake{}, s, 1, scenarios.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path, err := scenarios.CreateNew(filepath.Join(dir, "good.json"), scenarios.MarshalArtifact(scenarios.NewArtifact(p, res, "test-build")))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// withoutScheduleEntry rewrites an artifact's data with the last entry of its schedule gone
// (the scenario's faults left as they are) and a digest that fits: an artifact whose fields
// disagree, as a hand edit that knew to reseal it would leave.
func withoutScheduleEntry(t *testing.T, data []byte) string {
	t.Helper()
	a, err := scenarios.ParseArtifact(data)
	if err != nil {
		t.Fatal(err)
	}
	a.Schedule.Entries = a.Schedule.Entries[:len(a.Schedule.Entries)-1]
	return string(scenarios.MarshalArtifact(a))
}

// passingArtifact rewrites an artifact's data into one of a run that passed.
func passingArtifact(t *testing.T, data []byte) string {
	t.Helper()
	a, err := scenarios.ParseArtifact(data)
	if err != nil {
		t.Fatal(err)
	}
	a.Verdict, a.Violations = scenarios.VerdictPass, nil
	return string(scenarios.MarshalArtifact(a))
}
