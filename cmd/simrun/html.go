package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckptsim/ckptsim/scenarios"
)

// pictures is `run -html FILE`: porcupine's picture of a history that is not linearizable.
// Two checkers can draw one, durable-before-visible (the completed-checkpoint store) and
// sink-visibility (what the sink's readers saw); each draws into a file of its own, reserved
// next to FILE before the run, and FILE receives the store's picture if there is one, else
// the readers'. A run whose histories are both fine writes no FILE and says so.
type pictures struct {
	path        string
	store, sink string // the reserved files
}

// reservePictures reserves the checkers' files next to path; "" reserves nothing.
func reservePictures(path string) (*pictures, error) {
	if path == "" {
		return nil, nil
	}
	p := &pictures{path: path}
	for _, name := range []*string{&p.store, &p.sink} {
		f, err := os.CreateTemp(filepath.Dir(path), ".simrun-html-*")
		if err != nil {
			p.discard()
			return nil, err
		}
		*name = f.Name()
		if err := f.Close(); err != nil {
			p.discard()
			return nil, err
		}
	}
	return p, nil
}

// options points the run's checkers at the reserved files.
func (p *pictures) options(opts *scenarios.RunOptions) {
	if p != nil {
		opts.StoreHistoryHTML, opts.SinkVisibilityHTML = p.store, p.sink
	}
}

// keep moves the picture to draw to the file asked for. It returns the property drawn, or
// "" when there was nothing to draw. The other reserved file is left for discard.
func (p *pictures) keep() (property string, err error) {
	for _, c := range []struct{ file, property string }{
		{p.store, scenarios.PropertyDurableBeforeVisible},
		{p.sink, scenarios.PropertySinkVisibility},
	} {
		if info, err := os.Stat(c.file); err == nil && info.Size() > 0 {
			return c.property, os.Rename(c.file, p.path)
		}
	}
	return "", nil
}

// discard removes the reserved files that are left; nil pictures (no -html) have none.
func (p *pictures) discard() {
	if p == nil {
		return
	}
	for _, name := range []string{p.store, p.sink} {
		if name != "" {
			os.Remove(name)
		}
	}
}

// printPicture says where the picture went, or that there was none.
func printPicture(a *app, path, property string) {
	if property == "" {
		fmt.Fprintf(a.stdout, "%-12s nothing to draw: the store's and the readers' histories are linearizable (%s not written)\n", "html:", path)
		return
	}
	fmt.Fprintf(a.stdout, "%-12s %s (porcupine's picture of the %s violation)\n", "html:", path, property)
}
