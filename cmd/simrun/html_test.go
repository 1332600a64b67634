package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ckptsim/ckptsim/scenarios"
)

// TestPicturesKeepTheStoreFirst: FILE receives the store's picture when both checkers drew,
// the readers' when only they did, nothing when neither did; no reserved file stays behind.
func TestPicturesKeepTheStoreFirst(t *testing.T) {
	for _, c := range []struct {
		name        string
		store, sink string // what each checker drew ("" nothing)
		want        string // the property FILE shows
	}{
		{"both", "store picture", "sink picture", scenarios.PropertyDurableBeforeVisible},
		{"readers only", "", "sink picture", scenarios.PropertySinkVisibility},
		{"neither", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "pic.html")
			p, err := reservePictures(path)
			if err != nil {
				t.Fatal(err)
			}
			for file, content := range map[string]string{p.store: c.store, p.sink: c.sink} {
				if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := p.keep()
			p.discard()
			if err != nil || got != c.want {
				t.Fatalf("keep: %q, %v; want %q", got, err, c.want)
			}
			data, err := os.ReadFile(path)
			switch {
			case c.want == "" && err == nil:
				t.Errorf("%s written with nothing to draw", path)
			case c.want == scenarios.PropertyDurableBeforeVisible && string(data) != c.store,
				c.want == scenarios.PropertySinkVisibility && string(data) != c.sink:
				t.Errorf("%s holds %q", path, data)
			}
			entries, _ := os.ReadDir(dir)
			if want := map[bool]int{true: 0, false: 1}[c.want == ""]; len(entries) != want {
				t.Errorf("%d files left in the directory, want %d", len(entries), want)
			}
		})
	}
}
