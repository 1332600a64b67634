package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// TestPicturesKeepTheStoreFirst: FILE receives the store's picture when both checkers drew,
// the readers' when only they did, nothing when neither did; no other file stays behind.
func TestPicturesKeepTheStoreFirst(t *testing.T) {
	for _, c := range []struct {
		name        string
		store, sink string           // what each checker drew ("" nothing)
		want        checker.Property // the property FILE shows
	}{
		{"both", "store picture", "sink picture", checker.PropDurableVisible},
		{"readers only", "", "sink picture", checker.PropSinkVisibility},
		{"neither", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "pic.html")
			p, err := reservePictures(path)
			if err != nil {
				t.Fatal(err)
			}
			p.store.WriteString(c.store)
			p.sink.WriteString(c.sink)
			got, err := p.keep()
			if err != nil || got != c.want {
				t.Fatalf("keep: %q, %v; want %q", got, err, c.want)
			}
			data, err := os.ReadFile(path)
			switch {
			case c.want == "" && err == nil:
				t.Errorf("%s written with nothing to draw", path)
			case c.want == checker.PropDurableVisible && string(data) != c.store,
				c.want == checker.PropSinkVisibility && string(data) != c.sink:
				t.Errorf("%s holds %q", path, data)
			}
			entries, _ := os.ReadDir(dir)
			if want := map[bool]int{true: 0, false: 1}[c.want == ""]; len(entries) != want {
				t.Errorf("%d files left in the directory, want %d", len(entries), want)
			}
		})
	}
}

// TestPicturesRefuseAnUnwritableDirectory: -html into a directory that does not exist is bad
// input before the run.
func TestPicturesRefuseAnUnwritableDirectory(t *testing.T) {
	if _, err := reservePictures(filepath.Join(t.TempDir(), "missing", "pic.html")); err == nil {
		t.Fatal("want an error for a directory that does not exist")
	}
}
