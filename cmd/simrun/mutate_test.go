package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/mutate"
)

// TestMutateBadFlags: every bad use of simrun mutate is one line on stderr and exit status
// 2, before anything is built. The test runs in the package's folder, inside the module,
// so that a bad -pkg is judged against the real tree.
func TestMutateBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "mutate: -n must be a positive number of mutants, got 0"},
		{[]string{"-n", "-3"}, "mutate: -n must be a positive number of mutants, got -3"},
		{[]string{"-n", "x"}, `mutate: invalid value "x" for -n`},
		{[]string{"-seed", "-1"}, "must be a non-negative integer"},
		{[]string{"-j", "0"}, "mutate: invalid value \"0\" for -j"},
		{[]string{"-explore", "soon"}, `mutate: invalid value "soon" for -explore`},
		{[]string{"-explore", "-1s"}, "mutate: -explore must not be negative, got -1s"},
		{[]string{"-pkg", "../etc"}, "mutate: -pkg wants package folders of the module"},
		{[]string{"-pkg", "nowhere", "-list"}, "mutate: -pkg: package nowhere:"},
		{[]string{"-pkg", "docs", "-list"}, "mutate: -pkg: package docs has no Go source files"},
		{[]string{"extra"}, `mutate: unexpected argument "extra"`},
		{[]string{"-bogus"}, "mutate: unknown flag -bogus"},
		{[]string{"-id", "protocol/nowhere.go:1:1:delete", "-list"}, `mutate: -id: no mutant "protocol/nowhere.go:1:1:delete"`},
	} {
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"mutate"}, tc.args...), &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if status != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], tc.want) || stdout.Len() > 0 {
			t.Errorf("simrun mutate %s: status %d, stderr %q, stdout %q; want 2 and %q",
				strings.Join(tc.args, " "), status, stderr.String(), stdout.String(), tc.want)
		}
	}
}

// TestMutateList: -list prints the sample without building anything, the same for the same
// seed, one mutant a line with its id and its change.
func TestMutateList(t *testing.T) {
	list := func(seed string) string {
		var stdout, stderr bytes.Buffer
		if status := run([]string{"mutate", "-list", "-n", "5", "-seed", seed, "-pkg", "protocol"}, &stdout, &stderr); status != exitOK {
			t.Fatalf("mutate -list: status %d: %s", status, stderr.String())
		}
		return stdout.String()
	}
	first := list("3")
	if first != list("3") {
		t.Error("the same seed listed two samples")
	}
	if first == list("4") {
		t.Error("seeds 3 and 4 listed the same sample")
	}
	lines := strings.Split(strings.TrimSpace(first), "\n")
	last, _, _ := strings.Cut(lines[4], "  ")
	var stdout, stderr bytes.Buffer
	if status := run([]string{"mutate", "-list", "-id", last, "-pkg", "protocol"}, &stdout, &stderr); status != exitOK || !strings.HasPrefix(stdout.String(), last+"  ") {
		t.Errorf("mutate -list -id %s: status %d, printed %q", last, status, stdout.String())
	}
	if len(lines) != 5 {
		t.Fatalf("listed %d mutants, want 5:\n%s", len(lines), first)
	}
	for _, line := range lines {
		id, change, ok := strings.Cut(line, "  ")
		if !ok || !strings.HasPrefix(id, "protocol/") || strings.Count(id, ":") != 3 || change == "" {
			t.Errorf("a listed mutant reads %q", line)
		}
	}
}

// TestMutateEndToEnd runs one mutant of the protocol through the whole measurement: a
// build with the mutant overlaid, the unit tests, the default sweep. It takes a minute or
// more (two builds and a sweep), so it runs only with CKPTSIM_MUTATE_E2E=1.
func TestMutateEndToEnd(t *testing.T) {
	if os.Getenv("CKPTSIM_MUTATE_E2E") == "" || testing.Short() {
		t.Skip("set CKPTSIM_MUTATE_E2E=1: builds simrun twice and runs the default sweep")
	}
	var stdout, stderr bytes.Buffer
	status := run([]string{"mutate", "-n", "1", "-seed", "1", "-pkg", "protocol", "-explore", "0", "-json", "-keep", t.TempDir()}, &stdout, &stderr)
	if status != exitOK {
		t.Fatalf("mutate: status %d: %s", status, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var out mutate.Outcome
	var summary mutate.Summary
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &out) != nil || json.Unmarshal([]byte(lines[1]), &summary) != nil {
		t.Fatalf("want one outcome and a summary, got:\n%s", stdout.String())
	}
	if !strings.HasPrefix(out.ID, "protocol/") || out.Tests == "" || out.Catch == "" || summary.Mutants != 1 {
		t.Errorf("outcome %+v, summary %+v", out, summary)
	}
}

// TestMutateReportRereadsASample: -report reads what a -json run wrote, its summary line
// recomputed (or a sample cut short before it), and judges it with today's equivalent marks; a file that is not such output is
// bad input.
func TestMutateReportRereadsASample(t *testing.T) {
	dir := t.TempDir()
	lines := `{"id":"protocol/x.go:1:1:delete","package":"protocol","file":"protocol/x.go","line":1,"column":1,"operator":"delete","description":"delete x","tests":"killed","catch":"rule","stage":"sweep","properties":["exactly-once"],"changed":true}
{"id":"engine/bufferpool.go:48:2:delete","package":"engine","file":"engine/bufferpool.go","line":48,"column":2,"operator":"delete","description":"delete put","tests":"killed","catch":"none","changed":false}
{"id":"protocol/y.go:2:2:true","package":"protocol","file":"protocol/y.go","line":2,"column":2,"operator":"true","description":"y -> true","tests":"killed","catch":"panic","changed":true}
{"summary":true,"mutants":3,"equivalent":0,"goal_of":3,"goal_caught":1}
`
	path := writeFile(t, filepath.Join(dir, "sample.jsonl"), lines)
	a := testApp(t, nil)
	r := a.invoke("mutate", "-report", path)
	want := "GOAL: of the 2 mutants the unit tests kill, 1 (50%)"
	if r.code != exitOK || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "equivalent (1)") {
		t.Fatalf("exit %d, want %q and one equivalent mark:\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.jsonl"), "not json\n")
	if r := a.invoke("mutate", "-report", bad); r.code != exitUsage || !strings.Contains(r.stderr, "bad.jsonl:1: not a line of mutate -json") {
		t.Errorf("bad file: exit %d, stderr %q", r.code, r.stderr)
	}
}
