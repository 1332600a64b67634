package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
	"github.com/ckptsim/ckptsim/scenarios/scenariotest"
)

func TestShrinkCommand(t *testing.T) {
	inTempDir(t)
	writeFile(t, "buggy.json", buggyScenario)
	a := testApp(t, &scenariotest.Fake{})
	if r := a.invoke("run", "-scenario", "buggy.json", "-seed", "2"); r.code != exitUnexpected {
		t.Fatalf("run exit %d", r.code)
	}
	original := filepath.Join(defaultArtifactDir, "buggy-seed2-fail.json")
	before, err := os.ReadFile(original)
	if err != nil {
		t.Fatal(err)
	}

	r := a.invoke("shrink", original)
	if r.code != exitOK {
		t.Fatalf("shrink exit %d: %s", r.code, r.stderr)
	}
	shrunk := filepath.Join(defaultArtifactDir, "buggy-seed2-fail.shrunk.json")
	for _, want := range []string{"faults:      3 -> 1", "input:       60 -> 10", "data.duplicate", "wrote:       " + shrunk, "replay:      simrun replay " + shrunk} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("shrink output lacks %q:\n%s", want, r.stdout)
		}
	}
	if after, _ := os.ReadFile(original); string(after) != string(before) {
		t.Error("shrink changed its input")
	}
	small := readArtifact(t, shrunk)
	if len(small.Schedule.Entries) != 1 || small.Scenario.Workload.Records != scenariotest.MinFailingInput || small.ShrunkFrom != original {
		t.Errorf("shrunk artifact: %d faults, %d records, from %q", len(small.Schedule.Entries), small.Scenario.Workload.Records, small.ShrunkFrom)
	}

	// Shrinking again never overwrites the first result.
	if r := a.invoke("shrink", original); r.code != exitOK || !strings.Contains(r.stdout, "buggy-seed2-fail.shrunk-2.json") {
		t.Errorf("second shrink: exit %d:\n%s", r.code, r.stdout)
	}
	// -o names the one file shrink may overwrite; the flag may follow the argument.
	out := writeFile(t, "mine.json", "old")
	if r := a.invoke("shrink", original, "-o", out); r.code != exitOK {
		t.Fatalf("shrink -o: exit %d: %s", r.code, r.stderr)
	}
	readArtifact(t, out)

	// The shrunk case is still the bug: its replay reproduces and exits 1.
	r = a.invoke("replay", "-json", shrunk)
	var got struct {
		scenarios.Result
		Replay replayCheck `json:"replay"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if r.code != exitUnexpected || !got.Replay.HashMatches || got.Violations[0].Property != checker.PropExactlyOnce {
		t.Errorf("replay of the shrunk bug: exit %d, %+v", r.code, got.Replay)
	}
}

func TestShrinkOfAFixedBug(t *testing.T) {
	dir := t.TempDir()
	path := goodArtifact(t, dir)
	fixed := &scenariotest.Fake{Fails: func(*scenarios.Plan) []checker.Property { return nil }}
	r := testApp(t, fixed).invoke("shrink", path)
	if r.code != exitUnexpected || !strings.Contains(r.stderr, "does not reproduce") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func readArtifact(t *testing.T, path string) *scenarios.Artifact {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := scenarios.ParseArtifact(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

func TestBench(t *testing.T) {
	fake := &scenariotest.Fake{}
	r := testApp(t, fake).invoke("bench", "-json", "-seeds", "3")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var b benchResult
	if err := json.Unmarshal([]byte(r.stdout), &b); err != nil {
		t.Fatal(err)
	}
	if b.Scenario != scenarios.StandardName || b.Seeds != 3 || b.Events == 0 || b.EventsPerSecond <= 0 || b.SeedsPerSecond <= 0 || b.VirtualPerWall <= 0 {
		t.Errorf("bench result %+v", b)
	}
	if b.StandardJob == nil || b.LongRun == nil {
		t.Fatalf("bench measured no standard job or long run: %s", r.stdout)
	}
	if j := b.StandardJob; j.VirtualNanos != int64(standardJobSpan/10) || j.Records < 7000 || j.Messages == 0 || j.KernelEvents < j.Messages || j.MessagesPerSecond <= 0 || j.WallNanos <= 0 || j.VirtualPerWall <= 0 || j.RecordsPerSecond <= 0 {
		t.Errorf("standard job result %+v", j)
	}
	if m := b.LongRun; m.VirtualNanos != (3*time.Second).Nanoseconds() || m.TraceEvents == 0 || m.TraceBytes < int64(m.TraceEvents) ||
		m.FirstLiveHeap == 0 || m.PeakLiveHeap < max(m.FirstLiveHeap, m.LastLiveHeap) || m.StoreRows == 0 {
		t.Errorf("long run result %+v", m)
	}
	if len(b.Snapshots) != 4 || b.Snapshots[3].BytesPerCheckpoint <= 0 || b.Snapshots[3].BytesPerCheckpoint >= b.Snapshots[2].BytesPerCheckpoint {
		t.Errorf("snapshot comparison %+v: want incremental snapshots of many keys to write less than full ones", b.Snapshots)
	}
	if b.Jobs != 2 || b.SeedsPerSecondOneJob <= 0 || b.Scaling <= 0 {
		t.Errorf("bench at the default -j (the app's 2 CPUs) and at -j 1: %+v", b)
	}
	if want := 1 + 3*2; fake.Runs() != int64(want) {
		t.Errorf("%d runs, want %d: one untimed seed, then the standard scenario's 3 seeds at -j 2 and -j 1", fake.Runs(), want)
	}
	r = testApp(t, fake).invoke("bench", "-seeds", "2", "-j", "2")
	if r.code != exitOK || !strings.Contains(r.stdout, "events/s") || !strings.Contains(r.stdout, "virtual s/wall s") || !strings.Contains(r.stdout, "seeds/s") ||
		!strings.Contains(r.stdout, "standard job alone") || !strings.Contains(r.stdout, "records/s") || !strings.Contains(r.stdout, "live heap") ||
		!strings.Contains(r.stdout, "bytes/checkpoint") {
		t.Errorf("text bench: exit %d:\n%s", r.code, r.stdout)
	}
}

// TestBenchGenerated: bench -generated times the generic part's seeds, at -j N and -j 1
// after one untimed seed, and measures nothing else.
func TestBenchGenerated(t *testing.T) {
	fake := &scenariotest.Fake{}
	r := testApp(t, fake).invoke("bench", "-generated", "-json", "-seeds", "4")
	var b benchResult
	if err := json.Unmarshal([]byte(r.stdout), &b); r.code != exitOK || err != nil {
		t.Fatalf("exit %d (%v): %s%s", r.code, err, r.stdout, r.stderr)
	}
	if b.Scenario != generate.Name || b.Seeds != 4 || b.SeedsPerSecond <= 0 || b.SeedsPerSecondOneJob <= 0 || b.StandardJob != nil || b.LongRun != nil {
		t.Errorf("bench -generated %+v", b)
	}
	if want := 1 + 4*2; fake.Runs() != int64(want) {
		t.Errorf("%d runs, want %d", fake.Runs(), want)
	}
	r = testApp(t, fake).invoke("bench", "-generated", "-seeds", "2", "-j", "1")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "the generic part: generated, seeds 1-2, -j 1") || strings.Contains(r.stdout, "standard job") {
		t.Errorf("text bench -generated: exit %d:\n%s", r.code, r.stdout)
	}
}
