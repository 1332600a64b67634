package mutate

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// OverlayFile is the name of the overlay file WriteOverlay writes in its directory.
const OverlayFile = "overlay.json"

// WriteOverlay writes the mutated copy of m's file under dir, with the overlay file that
// maps the original (under root) to it, and returns that file's path for `go build
// -overlay` and `go test -overlay`. The source tree is only read, so that builds of other
// mutants, and anyone else's, can run beside it.
func WriteOverlay(root string, m *Mutant, dir string) (string, error) {
	original := filepath.Join(root, filepath.FromSlash(m.File))
	src, err := os.ReadFile(original)
	if err != nil {
		return "", err
	}
	mutated, err := m.Apply(src)
	if err != nil {
		return "", err
	}
	copyPath := filepath.Join(dir, "mutant-"+filepath.Base(m.File))
	if err := os.WriteFile(copyPath, mutated, 0o644); err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]any{"Replace": map[string]string{original: copyPath}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, OverlayFile)
	return overlay, os.WriteFile(overlay, data, 0o644)
}
