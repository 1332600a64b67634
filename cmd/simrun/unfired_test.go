package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// neverFiresScenario is a small pipeline whose second fault waits for the 500th
// snapshot.ack of map1-0, which its 150 records never produce; its first fires at 500ms.
// EXTRA is where a test adds to its expectation.
const neverFiresScenario = `{
  "name": "never-fires",
  "mode": "aligned",
  "topology": {"kind": "pipeline", "parallelism": 2, "stages": 2},
  "workload": {"kind": "pass-through", "records": 150, "record_interval": "10ms"},
  "sink": {"kind": "idempotent"},
  "faults": [
    {"trigger": {"type": "at", "at_ns": 500000000}, "fault": {"kind": "crash.task", "task": "map1-1"}},
    {"trigger": {"type": "nth", "nth": 500, "kind": "snapshot.ack", "task": "map1-0"}, "fault": {"kind": "crash.task", "task": "map1-0"}}
  ],
  "expect": {"verdict": "pass"EXTRA}
}`

const unfiredLine = "faults[1] crash.task task=map1-0 when nth=500 on=snapshot.ack task=map1-0"

func writeNeverFires(t *testing.T, extra string) string {
	t.Helper()
	return writeFile(t, "never-fires.json", strings.Replace(neverFiresScenario, "EXTRA", extra, 1))
}

// run names the fault that never fired under the count of injections.
func TestRealRunNamesTheFaultsThatNeverFired(t *testing.T) {
	inTempDir(t)
	path := writeNeverFires(t, "")
	r := realRun("run", "-scenario", path, "-seed", "1")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"verdict:     pass, as expected", "injected:    1 of 2 faults\nnever fired: " + unfiredLine + "\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// sweep -json gives each run its faults_unfired and the summary the runs with one; the
// table has a column for them.
func TestRealSweepCountsRunsWithUnfiredFaults(t *testing.T) {
	inTempDir(t)
	path := writeNeverFires(t, "")
	r := realRun("sweep", "-json", "-scenario", path, "-seeds", "1-2", "-j", "1")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 2 runs and a summary, got:\n%s", r.stdout)
	}
	for _, line := range lines[:2] {
		var run struct {
			FaultsUnfired []int `json:"faults_unfired"`
		}
		if err := json.Unmarshal([]byte(line), &run); err != nil || len(run.FaultsUnfired) != 1 || run.FaultsUnfired[0] != 1 {
			t.Errorf("run line %s: faults_unfired %v (%v), want [1]", line, run.FaultsUnfired, err)
		}
	}
	var summary struct {
		Unfired    *int `json:"unfired"`
		Unexpected int  `json:"unexpected"`
	}
	if err := json.Unmarshal([]byte(lines[2]), &summary); err != nil || summary.Unfired == nil || *summary.Unfired != 2 || summary.Unexpected != 0 {
		t.Errorf("summary %s: want unfired 2 and nothing unexpected", lines[2])
	}
	text := realRun("sweep", "-scenario", path, "-seeds", "1-2", "-j", "1")
	table := strings.Split(text.stdout, "\n")
	header, row := strings.Fields(table[0]), strings.Fields(table[1])
	if len(header) < 8 || header[7] != "unfired" || len(row) < 8 || row[0] != "never-fires" || row[7] != "2" {
		t.Errorf("table lacks an unfired column counting 2:\n%s", text.stdout)
	}
}

// With expect.every_fault_fires, each run with a fault that never fired is unexpected: exit
// 1, counted, and the fault named.
func TestRealSweepRequiringEveryFaultToFire(t *testing.T) {
	inTempDir(t)
	path := writeNeverFires(t, `, "every_fault_fires": true`)
	r := realRun("sweep", "-scenario", path, "-seeds", "1-2", "-j", "1")
	if r.code != exitUnexpected {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, exitUnexpected, r.stdout, r.stderr)
	}
	want := "UNEXPECTED never-fires seed 1: pass: never fired (expect.every_fault_fires): " + unfiredLine
	if !strings.Contains(r.stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, r.stdout)
	}
	if !strings.Contains(r.stdout, "\ntotal ") || !strings.Contains(r.stdout, "replay: simrun replay") {
		t.Errorf("no total row or replay command:\n%s", r.stdout)
	}
}
