package zoo

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryBugAppliesToTheTree: every zoo diff applies to the source as it is now, and the
// patched file differs from it. A diff gone stale fails here first, naming its hunk.
func TestEveryBugAppliesToTheTree(t *testing.T) {
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bugs := append(Bugs(), Controls()...)
	var ids []string
	for _, b := range bugs {
		ids = append(ids, b.ID)
		if _, err := Overlay(root, b, t.TempDir()); err != nil {
			t.Error(err)
		}
	}
	for _, id := range []string{"commit-on-abort", "forget-channel-state", "skip-state-restore", "source-offset-ahead"} {
		if !slices.Contains(ids, id) {
			t.Errorf("the zoo lacks %s: it has %v", id, ids)
		}
	}
	if _, err := Lookup("off-by-two"); err == nil || !strings.Contains(err.Error(), `no bug "off-by-two" (the zoo has alignment-deadline-off-by-one, commit-on-abort`) {
		t.Errorf("Lookup of an unknown bug: %v", err)
	}
}

// TestForgottenOutputChannelStateBreaksTheCut plants forget-channel-state through the real
// mechanism (go build -overlay into a temporary directory) and runs the mutated simrun on
// scenarios/testdata/forgotten-output-state.json, whose unaligned barriers overtake records
// in a slowed sender's output queue. The correct engine passes these seeds
// (TestOutputChannelStateKeepsTheCut in package scenarios); with the records forgotten the
// loss must show as an inconsistent cut, not only as lost output.
func TestForgottenOutputChannelStateBreaksTheCut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutated simrun")
	}
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	readSources(t, root)
	b, err := Lookup("forget-channel-state")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe, err := Build(root, b, dir)
	if err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join(root, "scenarios", "testdata", "forgotten-output-state.json")
	cmd := exec.Command(exe, "sweep", "-scenario", scenario, "-seeds", "10-11", "-json", "-j", "2", "-artifacts", dir)
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("mutated simrun: exit %d (%v), want 1: the correct engine's scenario fails\n%s", code, err, out)
	}
	caught := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			Seed       uint64 `json:"seed"`
			Violations []struct {
				Property string `json:"property"`
			} `json:"violations"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for _, v := range r.Violations {
			if v.Property == "consistent-cut" {
				caught++
				break
			}
		}
	}
	if caught != 2 {
		t.Errorf("consistent-cut violated on %d of seeds 10-11, want both:\n%s", caught, out)
	}
	// The source tree is untouched: the overlay replaced files only in the build.
	if data, err := os.ReadFile(filepath.Join(root, "engine", "overtake.go")); err != nil || !strings.Contains(string(data), "ps.data.output[out] = append(ps.data.output[out], overtaken...)") {
		t.Errorf("engine/overtake.go changed (%v)", err)
	}
}

// TestOverlayRefusesAStaleBug: a bug whose file has changed under it stops the build with
// the bug, the file and the hunk named, and writes no overlay.
func TestOverlayRefusesAStaleBug(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "engine", "restore.go"), []byte("package engine\n\nfunc restore() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := Lookup("skip-state-restore")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = Overlay(root, b, dir)
	if err == nil || !strings.HasPrefix(err.Error(), "zoo: skip-state-restore: engine/restore.go: hunk 1 (@@ ") || !strings.Contains(err.Error(), "the diff is stale") {
		t.Errorf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "overlay.json")); err == nil {
		t.Error("an overlay was written for a bug that does not apply")
	}
}

// readSources reads every Go file and go.mod of the module. This package imports nothing
// of the module, so go test would cache a result that depends on code it builds in a
// subprocess; a file the test itself reads is part of the cache key, so after this a change
// anywhere in the source reruns the test.
func readSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			_, err = os.ReadFile(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPackagesCatchFlink2427: the protocol's own tests, run with FLINK-2427 planted through
// the overlay, fail (the sweeps do not see it; see docs/zoo.md).
func TestPackagesCatchFlink2427(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test in a subprocess")
	}
	root, err := FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	readSources(t, root)
	b, err := Lookup("newer-barrier-keeps-older-alignment")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Packages(); !slices.Equal(got, []string{"./protocol"}) {
		t.Errorf("packages %v", got)
	}
	dir := t.TempDir()
	overlay, err := Overlay(root, b, dir)
	if err != nil {
		t.Fatal(err)
	}
	failed, err := TestPackages(root, b, overlay)
	if err != nil || !slices.Contains(failed, "TestScripts") {
		t.Errorf("failed %v (%v), want TestScripts among them", failed, err)
	}
}
