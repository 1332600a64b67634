package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/scenarios"
)

// pictures is `run -html FILE`: porcupine's picture of a history that is not linearizable.
// Two checkers can draw one, durable-before-visible (the completed-checkpoint store) and
// sink-visibility (what the sink's readers saw); each draws into a buffer of its own, and
// FILE receives the store's picture if there is one, else the readers'. A run whose
// histories are both fine writes no FILE and says so. The checkers never open files: simrun
// decides where a picture goes.
type pictures struct {
	path        string
	store, sink bytes.Buffer
}

// reservePictures checks, before the run, that FILE's directory takes a file, so that a
// path simrun cannot write is bad input before any work; "" reserves nothing.
func reservePictures(path string) (*pictures, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".simrun-html-*")
	if err != nil {
		return nil, err
	}
	f.Close()
	os.Remove(f.Name())
	return &pictures{path: path}, nil
}

// options points the run's checkers at the buffers.
func (p *pictures) options(opts *scenarios.RunOptions) {
	if p != nil {
		opts.StoreHistoryPicture, opts.SinkVisibilityPicture = &p.store, &p.sink
	}
}

// keep writes the picture to draw to the file asked for. It returns the property drawn, or
// "" when there was nothing to draw (and no file is written).
func (p *pictures) keep() (property checker.Property, err error) {
	for _, c := range []struct {
		picture  *bytes.Buffer
		property checker.Property
	}{
		{&p.store, checker.PropDurableVisible},
		{&p.sink, checker.PropSinkVisibility},
	} {
		if c.picture.Len() > 0 {
			return c.property, os.WriteFile(p.path, c.picture.Bytes(), 0o644)
		}
	}
	return "", nil
}

// printPicture says where the picture went, or that there was none.
func printPicture(a *app, path string, property checker.Property) {
	if property == "" {
		fmt.Fprintf(a.stdout, "%-12s nothing to draw: the store's and the readers' histories are linearizable (%s not written)\n", "html:", path)
		return
	}
	fmt.Fprintf(a.stdout, "%-12s %s (porcupine's picture of the %s violation)\n", "html:", path, property)
}
