package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/picture/perfetto"
	"github.com/ckptsim/ckptsim/picture/spacetime"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// drawings are the pictures of one run that `run` and `replay` write on request: -html FILE,
// the space-time page (spacetime), and -perfetto FILE, the trace-event file that
// ui.perfetto.dev opens (perfetto). Both draw the run's trace, which is kept in memory as the
// run writes it. When durable-before-visible or sink-visibility finds a history that is not
// linearizable, porcupine's picture of it is written beside the page (FILE's name with the
// property before .html) and linked from it. The checkers never open files: simrun decides
// where a picture goes.
type drawings struct {
	htmlPath, perfettoPath string
	trace                  bytes.Buffer
	store, sink            bytes.Buffer // porcupine's pictures, when drawn
}

// drawn says what a run's drawings wrote.
type drawn struct {
	HTML      string             `json:"html,omitempty"`
	Perfetto  string             `json:"perfetto,omitempty"`
	Porcupine []porcupinePicture `json:"porcupine,omitempty"`
}

// porcupinePicture is porcupine's picture of one property's history, and where it went.
type porcupinePicture struct {
	Property checker.Property `json:"property"`
	Path     string           `json:"path"`
}

// reserveDrawings checks, before the run, that each file asked for can be created and is
// one checkPicturePaths accepts beside the command's other files, so that a path simrun
// cannot or should not write is bad input before any work. Without either it returns nil.
func reserveDrawings(htmlPath, perfettoPath string, others ...namedFile) (*drawings, error) {
	if err := checkPicturePaths(htmlPath, perfettoPath, others...); err != nil {
		return nil, err
	}
	for _, c := range []struct{ flag, path string }{{"-html", htmlPath}, {"-perfetto", perfettoPath}} {
		if c.path == "" {
			continue
		}
		f, err := os.CreateTemp(filepath.Dir(c.path), ".simrun-draw-*")
		if err != nil {
			// The probe's own name means nothing to the user: name their path.
			return nil, fmt.Errorf("%s %s: cannot write there: %v", c.flag, c.path, errors.Unwrap(err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	if htmlPath == "" && perfettoPath == "" {
		return nil, nil
	}
	return &drawings{htmlPath: htmlPath, perfettoPath: perfettoPath}, nil
}

// options has the run write its trace to the drawings too, and the checkers draw into them.
func (d *drawings) options(opts *scenarios.RunOptions) {
	if d == nil {
		return
	}
	if opts.Trace != nil {
		opts.Trace = io.MultiWriter(opts.Trace, &d.trace)
	} else {
		opts.Trace = &d.trace
	}
	if d.htmlPath != "" {
		opts.StoreHistoryPicture, opts.SinkVisibilityPicture = &d.store, &d.sink
	}
}

// write draws the run into the files asked for.
func (d *drawings) write(title string, res *scenarios.Result) (drawn, error) {
	_, events, err := trace.ReadAll(&d.trace)
	if err != nil {
		return drawn{}, fmt.Errorf("reading the run's trace back: %v", err)
	}
	return d.draw(spacetime.Run{Title: title, Events: events, Violations: res.Violations})
}

// draw writes run's pictures into the files asked for, with porcupine's beside the page.
func (d *drawings) draw(run spacetime.Run) (drawn, error) {
	var out drawn
	if d.perfettoPath != "" {
		var buf bytes.Buffer
		if err := perfetto.Write(&buf, run.Events, run.Violations); err != nil {
			return out, fmt.Errorf("-perfetto: %v", err)
		}
		if err := os.WriteFile(d.perfettoPath, buf.Bytes(), 0o644); err != nil {
			return out, fmt.Errorf("-perfetto: %v", err)
		}
		out.Perfetto = d.perfettoPath
	}
	if d.htmlPath == "" {
		return out, nil
	}
	for _, c := range []struct {
		picture  *bytes.Buffer
		property checker.Property
	}{
		{&d.store, checker.PropDurableVisible},
		{&d.sink, checker.PropSinkVisibility},
	} {
		if c.picture.Len() == 0 {
			continue
		}
		path := strings.TrimSuffix(d.htmlPath, ".html") + "." + string(c.property) + ".html"
		if err := os.WriteFile(path, c.picture.Bytes(), 0o644); err != nil {
			return out, fmt.Errorf("-html: %v", err)
		}
		out.Porcupine = append(out.Porcupine, porcupinePicture{Property: c.property, Path: path})
		run.Links = append(run.Links, spacetime.Link{
			Label: "porcupine's picture of the " + string(c.property) + " history",
			Href:  filepath.Base(path),
		})
	}
	var buf bytes.Buffer
	if err := spacetime.Write(&buf, run); err != nil {
		return out, fmt.Errorf("-html: %v", err)
	}
	if err := os.WriteFile(d.htmlPath, buf.Bytes(), 0o644); err != nil {
		return out, fmt.Errorf("-html: %v", err)
	}
	out.HTML = d.htmlPath
	return out, nil
}

// print says where the drawings went.
func (o drawn) print(w io.Writer) {
	if o.HTML != "" {
		fmt.Fprintf(w, "%-12s %s (space-time diagram: open it in a browser)\n", "html:", o.HTML)
	}
	for _, p := range o.Porcupine {
		fmt.Fprintf(w, "%-12s %s (porcupine's picture of the %s violation, linked from the page)\n", "", p.Path, p.Property)
	}
	if o.Perfetto != "" {
		fmt.Fprintf(w, "%-12s %s (trace-event JSON: open it in ui.perfetto.dev)\n", "perfetto:", o.Perfetto)
	}
}
