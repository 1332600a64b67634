package zoo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
			return "", fmt.Errorf("zoo: no %s source tree at or above %s: planting a bug builds a mutated simrun from the source, so run it inside the module (like go run ./cmd/simrun)", Module, dir)
		}
	}
}

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
	overlay := filepath.Join(dir, "overlay.json")
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
