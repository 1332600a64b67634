package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// readPage reads a page a command wrote and requires it to be self-contained: no script,
// style sheet or image fetched from the network.
func readPage(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, remote := range []string{`src="http`, `href="http`, `src="//`, `href="//`, "@import"} {
		if strings.Contains(page, remote) {
			t.Errorf("the page reaches the network (%s)", remote)
		}
	}
	return page
}

// requireTraceEvents requires path to hold trace-event JSON with events.
func requireTraceEvents(t *testing.T, path string) {
	t.Helper()
	var chrome struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &chrome); err != nil || len(chrome.TraceEvents) == 0 {
		t.Errorf("%s: %v, %d trace events", path, err, len(chrome.TraceEvents))
	}
}

// TestCheckDrawsAJudgedTrace: check -html -perfetto on a small trace that fails
// consistent-cut writes a self-contained page with the verdict and the failing property
// under the title, and the trace-event file, and says where both went.
func TestCheckDrawsAJudgedTrace(t *testing.T) {
	inTempDir(t)
	r := realRun("run", "-scenario", "control-reorder-aligned", "-seed", "1", "-trace", "run.jsonl")
	if r.code != exitOK {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = realRun("check", "-scenario", "control-reorder-aligned", "-html", "check.html", "-perfetto", "check.json", "run.jsonl")
	if r.code != exitUnexpected {
		t.Fatalf("check: exit %d, want %d\n%s%s", r.code, exitUnexpected, r.stdout, r.stderr)
	}
	for _, want := range []string{"html:        check.html (space-time diagram", "perfetto:    check.json (trace-event JSON"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	page := readPage(t, "check.html")
	for _, want := range []string{"<canvas", "control-reorder-aligned seed 1", "verdict: fail", "consistent-cut: fail", "judged against scenario control-reorder-aligned"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	requireTraceEvents(t, "check.json")

	r = realRun("check", "-json", "-html", "again.html", "run.jsonl")
	var out struct {
		Verdict string `json:"verdict"`
		HTML    string `json:"html"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.HTML != "again.html" {
		t.Fatalf("check -json: %v, %+v\n%s%s", err, out, r.stdout, r.stderr)
	}
	if page := readPage(t, "again.html"); !strings.Contains(page, "verdict: "+out.Verdict) {
		t.Errorf("the page does not say the verdict %s", out.Verdict)
	}
}

// TestLiveDrawsItsRun: live -html -perfetto on the calm pipeline (about 1.5s of wall clock)
// writes the page, with the live run's verdict, and the trace-event file.
func TestLiveDrawsItsRun(t *testing.T) {
	inTempDir(t)
	r := realRun("live", "-scenario", "pipeline-calm", "-for", "20s", "-html", "live.html", "-perfetto", "live.json")
	if r.code != exitOK || !strings.Contains(r.stdout, "html:        live.html") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	page := readPage(t, "live.html")
	for _, want := range []string{"<canvas", "pipeline-calm seed 1 (simrun live)", "verdict: pass (expected pass)", "a live run for 20s"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	requireTraceEvents(t, "live.json")
}

// TestPicturePathsThatCannotBeMeant: a picture to standard output, two pictures in one file
// or a picture over another file of the command are bad input, refused in one line with
// exit 2 before any work, and the other file is left alone.
func TestPicturePathsThatCannotBeMeant(t *testing.T) {
	inTempDir(t)
	writeFile(t, "trace.jsonl", "")
	writeFile(t, "ref.json", "{}")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"check html to stdout", []string{"check", "-html", "-", "trace.jsonl"}, "check: -html -: a picture is written to a file, not to standard output"},
		{"check perfetto to stdout", []string{"check", "-perfetto", "-", "trace.jsonl"}, "check: -perfetto -: a picture"},
		{"check one file twice", []string{"check", "-html", "p.html", "-perfetto", "./p.html", "trace.jsonl"}, "check: -html and -perfetto both name p.html"},
		{"check over the trace", []string{"check", "-html", "trace.jsonl", "trace.jsonl"}, "check: -html and the trace both name trace.jsonl"},
		{"check over the reference", []string{"check", "-reference", "ref.json", "-perfetto", "ref.json", "trace.jsonl"}, "check: -perfetto and -reference both name ref.json"},
		{"live over the trace", []string{"live", "-scenario", "pipeline-calm", "-for", "1s", "-trace", "out.jsonl", "-html", "out.jsonl"}, "live: -html and -trace both name out.jsonl"},
		{"live to stdout", []string{"live", "-scenario", "pipeline-calm", "-for", "1s", "-perfetto", "-"}, "live: -perfetto -: a picture"},
		{"run to stdout", []string{"run", "-scenario", "pipeline-calm", "-seed", "1", "-html", "-"}, "run: -html -: a picture"},
		{"run over its trace", []string{"run", "-scenario", "pipeline-calm", "-seed", "1", "-trace", "out.jsonl", "-html", "./out.jsonl"}, "run: -html and -trace both name ./out.jsonl"},
		{"run trace over its reference", []string{"run", "-scenario", "pipeline-calm", "-seed", "1", "-trace", "out.jsonl", "-reference-out", "out.jsonl"}, "run: -trace and -reference-out both name out.jsonl"},
		{"run into no directory", []string{"run", "-scenario", "pipeline-calm", "-seed", "1", "-html", "no/such/dir/p.html"}, "run: -html no/such/dir/p.html: cannot write there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := realRun(tc.args...)
			if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Fatalf("exit %d, want %d and one line with %q\nstdout: %s\nstderr: %s", r.code, exitUsage, tc.want, r.stdout, r.stderr)
			}
		})
	}
	for _, kept := range []string{"trace.jsonl", "ref.json"} {
		if data, err := os.ReadFile(kept); err != nil || (kept == "ref.json" && string(data) != "{}") {
			t.Errorf("%s was touched: %q, %v", kept, data, err)
		}
	}
	for _, never := range []string{"-", "out.jsonl", "p.html"} {
		if _, err := os.Stat(never); err == nil {
			t.Errorf("%s was written", never)
		}
	}
}
