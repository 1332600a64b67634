package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestDrawingsOfANegativeControl: run -html -perfetto on a negative control whose
// completed-checkpoint store is not linearizable writes the space-time page, porcupine's
// picture of the store beside it (linked from the page), and a trace-event file; -json says
// where each went, and replaying the run's artifact draws the same page.
func TestDrawingsOfANegativeControl(t *testing.T) {
	dir := inTempDir(t)
	r := realRun("run", "-scenario", "control-lost-metadata", "-seed", "1", "-html", "run.html", "-perfetto", "run.json", "-json", "-artifacts", "arts")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var out struct {
		HTML      string             `json:"html"`
		Perfetto  string             `json:"perfetto"`
		Porcupine []porcupinePicture `json:"porcupine"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "run."+string(checker.PropDurableVisible)+".html")
	if out.HTML != "run.html" || out.Perfetto != "run.json" || len(out.Porcupine) != 1 ||
		out.Porcupine[0].Property != checker.PropDurableVisible || out.Porcupine[0].Path != "run.durable-before-visible.html" {
		t.Errorf("-json says %+v", out)
	}
	page, err := os.ReadFile(filepath.Join(dir, "run.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<canvas", "control-lost-metadata seed 1", "sink-0", `href="run.durable-before-visible.html"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("porcupine's picture: %v", err)
	}
	var chrome struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &chrome); err != nil || len(chrome.TraceEvents) == 0 {
		t.Errorf("run.json: %v, %d trace events", err, len(chrome.TraceEvents))
	}

	artifacts, _ := filepath.Glob(filepath.Join(dir, "arts", "*.json"))
	if len(artifacts) != 1 {
		t.Fatalf("artifacts: %v", artifacts)
	}
	r = realRun("replay", "-html", "again.html", artifacts[0])
	if r.code != exitOK || !strings.Contains(r.stdout, "again.html (space-time diagram") {
		t.Fatalf("replay: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	again, err := os.ReadFile(filepath.Join(dir, "again.html"))
	if err != nil || !strings.Contains(string(again), "<canvas") {
		t.Errorf("replayed page: %v", err)
	}
}

// TestDrawingsRefuseAnUnwritableDirectory: -html or -perfetto into a directory that does not
// exist is bad input before the run, and leaves nothing behind.
func TestDrawingsRefuseAnUnwritableDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing", "pic")
	for _, flag := range []string{"-html", "-perfetto"} {
		r := realRun("run", "-scenario", "pipeline-calm", "-seed", "1", flag, missing)
		if r.code != exitUsage || !strings.Contains(r.stderr, flag) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", flag, r.code, r.stderr)
		}
	}
	if d, err := reserveDrawings("", ""); d != nil || err != nil {
		t.Errorf("nothing asked for: %v, %v", d, err)
	}
}
