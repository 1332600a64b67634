package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// These tests run simrun through its real entry point on the real simulation: the engine on
// the simulator, the faults package's injector and the checkers.

// realRun calls run as main does.
func realRun(args ...string) invocationResult {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return invocationResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestRealReplayOfANegativeControl is the README's tour end to end: a negative
// control fails as it should (exit 0), leaves an artifact with -artifacts, and replaying the
// artifact reproduces the trace and the violation and exits 0.
func TestRealReplayOfANegativeControl(t *testing.T) {
	dir := t.TempDir()
	r := realRun("run", "-scenario", "control-reorder-aligned", "-seed", "1", "-artifacts", dir)
	if r.code != exitOK || !strings.Contains(r.stdout, "verdict:     fail, as expected (fail (consistent-cut))") {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	path := filepath.Join(dir, "control-reorder-aligned-seed1-fail.json")
	r = realRun("replay", "-json", path)
	if r.code != exitOK {
		t.Fatalf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var got struct {
		Verdict    string `json:"verdict"`
		Violations []struct {
			Property string `json:"property"`
		} `json:"violations"`
		Replay replayCheck `json:"replay"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	caught := false
	for _, v := range got.Violations {
		caught = caught || v.Property == "consistent-cut"
	}
	if got.Verdict != "fail" || !got.Replay.HashMatches || !got.Replay.SameViolations || !caught {
		t.Errorf("replay: %+v", got)
	}
}

// TestRealDefaultJob runs `simrun` as a newcomer does: every built-in over its default seeds
// gives the verdict its scenario expects, and so do the generic part's first seeds. The
// whole generic part (genericSeedCount seeds, some 15 s on two cores and many times that
// under -race) is left to simrun itself; TestDefaultJobSweepsTheCatalogue checks its range.
func TestRealDefaultJob(t *testing.T) {
	inTempDir(t)
	r := realRun("-generic", "1-20")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A slow machine (or -race) gets a progress line on stderr every few seconds; nothing else
	// belongs there.
	if strings.Contains(r.stdout, "UNEXPECTED") || progressLine.ReplaceAllString(r.stderr, "") != "" {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

var progressLine = regexp.MustCompile(`(?m)^simrun: \d+/\d+ runs, \d+ unexpected, [0-9.]+ runs/s(, about \S+ left)?\n`)

func TestRealSweepIsTheSameAtAnyParallelism(t *testing.T) {
	one := realRun("sweep", "-json", "-scenario", "coordinator-failover", "-seeds", "1-4", "-j", "1")
	four := realRun("sweep", "-json", "-scenario", "coordinator-failover", "-seeds", "1-4", "-j", "4")
	if one.code != exitOK || four.code != exitOK {
		t.Fatalf("exit %d and %d: %s %s", one.code, four.code, one.stderr, four.stderr)
	}
	if a, b := wallTime.ReplaceAllString(one.stdout, ""), wallTime.ReplaceAllString(four.stdout, ""); a != b {
		t.Errorf("-j 1 and -j 4 differ:\n%s\n%s", a, b)
	}
}

// TestRealHTMLPictureOfACalmRun: run -html on a run whose histories are linearizable writes
// the page and nothing beside it (no porcupine picture, no reserved file left behind).
func TestRealHTMLPictureOfACalmRun(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "calm.html")
	r := realRun("run", "-scenario", "pipeline-calm", "-seed", "1", "-html", page)
	if r.code != exitOK || !strings.Contains(r.stdout, "html:        "+page+" (space-time diagram") || strings.Contains(r.stdout, "porcupine") {
		t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil || !bytes.Contains(data, []byte("<canvas")) {
		t.Fatalf("page %s: %v, %d bytes", page, err, len(data))
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v, want calm.html alone", names)
	}
}

// TestRealReplayOfAVersion2ArtifactRefused: an artifact written before artifact version 5
// (scenarios/testdata keeps one of version 2) came from an engine whose traces this build
// does not reproduce: replay refuses it, as bad input, in one line naming both versions.
func TestRealReplayOfAVersion2ArtifactRefused(t *testing.T) {
	r := realRun("replay", "../../scenarios/testdata/artifact-v2-control-lost-metadata-seed1-fail.json")
	if r.code != exitUsage {
		t.Fatalf("replay: exit %d, want %d\n%s%s", r.code, exitUsage, r.stdout, r.stderr)
	}
	const want = "artifact.artifact_version: version 2 is refused: this build writes version 5,"
	if !strings.Contains(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("replay says\n%s\nwant one line with %q", r.stderr, want)
	}
}
