package zoo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Module is the module path whose source tree the diffs patch.
const Module = "github.com/ckptsim/ckptsim"

// FindRoot returns the root of the ckptsim source tree that holds dir: the nearest folder
// at or above it whose go.mod declares Module. Planting a bug needs the source, like
// `go run ./cmd/simrun` does.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(data), "\n")
			if strings.TrimSpace(first) == "module "+Module {
				return d, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("zoo: no %s source tree at or above %s: simrun zoo and simrun cover build simrun from the source, so run them inside the module (like go run ./cmd/simrun)", Module, dir)
		}
	}
}

// OverlayFile is the name of the overlay file Overlay and Build write in their directory.
const OverlayFile = "overlay.json"

// Overlay writes the patched copies of the files b touches under dir, with the overlay file
// that maps each original (under root) to its copy, and returns that file's path for
// `go build -overlay`. The source tree is only read. A hunk that does not apply is an error
// that names the bug, the file and the hunk.
func Overlay(root string, b *Bug, dir string) (string, error) {
	replace := map[string]string{}
	for i, p := range b.Patches {
		original := filepath.Join(root, filepath.FromSlash(p.Path))
		src, err := os.ReadFile(original)
		if err != nil {
			return "", fmt.Errorf("zoo: %s: %v", b.ID, err)
		}
		patched, err := p.Apply(string(src))
		if err != nil {
			return "", fmt.Errorf("zoo: %s: %v", b.ID, err)
		}
		copyPath := filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(p.Path)))
		if err := os.WriteFile(copyPath, []byte(patched), 0o644); err != nil {
			return "", err
		}
		replace[original] = copyPath
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, OverlayFile)
	return overlay, os.WriteFile(overlay, data, 0o644)
}

// Build plants b in a copy of simrun: it writes the overlay under dir and runs
// `go build -overlay` in root, and returns the path of the mutated binary in dir. It needs
// a Go toolchain on PATH.
func Build(root string, b *Bug, dir string) (string, error) {
	overlay, err := Overlay(root, b, dir)
	if err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "simrun-"+b.ID)
	cmd := exec.Command("go", "build", "-overlay", overlay, "-o", exe, "./cmd/simrun")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return "", fmt.Errorf("zoo: %s: go build -overlay: %s", b.ID, strings.TrimSpace(stderr.String()))
		}
		return "", fmt.Errorf("zoo: %s: go build needs a Go toolchain on PATH: %v", b.ID, err)
	}
	return exe, nil
}

// Packages returns the packages b's diff touches, as ./DIR patterns in order.
func (b *Bug) Packages() []string {
	var pkgs []string
	for _, p := range b.Patches {
		if pkg := "./" + path.Dir(p.Path); !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// TestPackages runs the tests of the packages b touches with b planted, through the overlay
// Overlay wrote (overlay), and returns the top-level tests that failed, or nil when they
// all passed. An error is a failure to run go test, not a failing test.
func TestPackages(root string, b *Bug, overlay string) ([]string, error) {
	args := append([]string{"test", "-count=1", "-overlay", overlay}, b.Packages()...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	var failed []string
	for _, line := range strings.Split(string(out), "\n") {
		if name, ok := strings.CutPrefix(line, "--- FAIL: "); ok {
			name, _, _ = strings.Cut(name, " ")
			if !strings.Contains(name, "/") && !slices.Contains(failed, name) {
				failed = append(failed, name)
			}
		}
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &exitErr) && len(failed) > 0:
		return failed, nil
	case errors.As(err, &exitErr):
		// No test failed by name: the patched package does not build, or a test binary
		// crashed. Either way the tests caught it; say how.
		return []string{"(build or crash: " + lastLine(string(out)) + ")"}, nil
	}
	return nil, fmt.Errorf("zoo: %s: go test needs a Go toolchain on PATH: %v", b.ID, err)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
