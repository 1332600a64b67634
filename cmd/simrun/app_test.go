package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
)

// invocationResult is what one simrun invocation produced.
type invocationResult struct {
	code           int
	stdout, stderr string
}

// testApp returns an app on runner with a fixed build, no terminal and artifacts under a
// temporary directory (unless the test changes directory and wants the default).
func testApp(t *testing.T, runner scenarios.Runner) *app {
	t.Helper()
	return &app{
		runner:      runner,
		builtins:    scenarios.Builtins,
		build:       func() string { return "test-build" },
		cpus:        2,
		invocation:  "simrun",
		artifactDir: defaultArtifactDir,
		// A tenth of the span, to keep the tests quick: bench reports rates.
		standardJob:  func() (simenv.BenchResult, error) { return runStandardJob(standardJobSpan / 10) },
		longRunSpan:  3 * time.Second,
		snapshotSpan: time.Second,
	}
}

func (a *app) invoke(args ...string) invocationResult {
	var stdout, stderr bytes.Buffer
	a.stdout, a.stderr = &stdout, &stderr
	code := a.main(args)
	return invocationResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// inTempDir runs the test in a fresh directory, where ./simrun-artifacts lands.
func inTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonLines decodes each line of out as a JSON object.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	scan := bufio.NewScanner(strings.NewReader(out))
	scan.Buffer(nil, 1<<24)
	for scan.Scan() {
		var m map[string]any
		if err := json.Unmarshal(scan.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", scan.Text(), err)
		}
		lines = append(lines, m)
	}
	return lines
}

// buggyScenario is a scenario file that expects a pass but holds an out-of-model fault, which
// the fake runner turns into an exactly-once violation: a stand-in for a real bug.
const buggyScenario = `{
  "name": "buggy",
  "mode": "aligned",
  "topology": {"kind": "keyed-shuffle", "parallelism": 2},
  "workload": {"kind": "keyed-sum", "records": 60},
  "sink": {"kind": "two-phase-commit"},
  "faults": [
    {"trigger": {"type": "at", "at_ns": 100000000}, "fault": {"kind": "crash.task", "task": "sum-0"}},
    {"trigger": {"type": "at", "at_ns": 200000000}, "fault": {"kind": "data.duplicate", "from": "source-1", "to": "sum-1", "probability": 0.5, "window_ns": 50000000}},
    {"trigger": {"type": "at", "at_ns": 300000000}, "fault": {"kind": "net.delay", "from": "source-0", "to": "sum-1", "delay_ns": 1000000, "window_ns": 50000000}}
  ],
  "expect": {"verdict": "pass"},
  "seeds": "1-6"
}`

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		r := testApp(t, &scenariotest.Fake{}).invoke(args...)
		if r.code != exitOK || !strings.Contains(r.stdout, "usage: simrun") || r.stderr != "" {
			t.Errorf("%v: code %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
		for _, c := range commands {
			if !strings.Contains(r.stdout, "simrun "+c.usage) {
				t.Errorf("usage does not show %q", c.usage)
			}
		}
	}
	r := testApp(t, &scenariotest.Fake{}).invoke("run", "-h")
	if r.code != exitOK || !strings.Contains(r.stdout, "-seed") {
		t.Errorf("run -h: code %d, stdout %q", r.code, r.stdout)
	}
}

func TestList(t *testing.T) {
	a := testApp(t, &scenariotest.Fake{})
	r := a.invoke("list")
	if r.code != exitOK {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	for _, s := range scenarios.Builtins() {
		if !strings.Contains(r.stdout, s.Name) {
			t.Errorf("list does not show %s", s.Name)
		}
	}
	r = a.invoke("list", "-json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	builtins := scenarios.Builtins()
	if len(lines) != len(builtins) {
		t.Fatalf("%d lines for %d scenarios", len(lines), len(builtins))
	}
	for i, line := range lines {
		s, err := scenarios.Parse([]byte(line))
		if err != nil {
			t.Errorf("line %d is not a scenario file: %v", i, err)
		} else if s.Name != builtins[i].Name {
			t.Errorf("line %d is %s, want %s", i, s.Name, builtins[i].Name)
		}
	}
}

func TestEntryPointIsInProcess(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"list"}, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), scenarios.StandardName) {
		t.Errorf("run(list) = %d, %q, %q", code, stdout.String(), stderr.String())
	}
}
