package spacetime

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"
)

// The page is a template (assets/page.html) with the style, the script and the data
// inlined: one file that opens anywhere with nothing beside it.
//
//go:embed assets
var assets embed.FS

// scripts are the parts of the page's script, concatenated in this order into one closure
// so that they share its names without leaking any onto window but the test API.
var scripts = []string{"model.js", "view.js", "marks.js", "draw.js", "channels.js", "interact.js", "api.js"}

var (
	pageTemplate = template.Must(template.ParseFS(assets, "assets/page.html"))
	pageStyle    = template.CSS(mustRead("assets/spacetime.css"))
	pageScript   = template.JS(joinScripts())
)

// page is what the template fills in. The parts a reader needs without the script (lane
// names, the violations, notes and links) are HTML; the script positions and draws.
type page struct {
	Title       string
	Notes       []string
	Links       []Link
	Summary     string
	Lanes       []string
	Checkpoints []uint64
	Violations  []violationItem
	Style       template.CSS
	Script      template.JS
	Data        template.JS
}

type violationItem struct {
	Property, Message, Task, When string
	Seq, CP                       uint64
}

func newPage(r Run) (*page, error) {
	m := newModel(r)
	// encoding/json escapes <, > and & (and U+2028/U+2029) inside strings, so no string of
	// the trace, however it reads, can close the <script> element that holds the data.
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("spacetime: %v", err)
	}
	p := &page{
		Title:   r.Title,
		Notes:   r.Notes,
		Links:   r.Links,
		Lanes:   m.Lanes,
		Summary: fmt.Sprintf("%d events, %d lanes, %d checkpoints, %d faults, %d violations", len(r.Events), len(m.Lanes), len(m.Checkpoints), len(m.Faults), len(r.Violations)),
		Style:   pageStyle,
		Script:  pageScript,
		Data:    template.JS(data),
	}
	if p.Title == "" {
		p.Title = "ckptsim run"
	}
	for _, c := range m.Checkpoints {
		p.Checkpoints = append(p.Checkpoints, c.CP)
	}
	slices.Sort(p.Checkpoints)
	p.Checkpoints = slices.Compact(p.Checkpoints)
	for _, v := range m.Violations {
		p.Violations = append(p.Violations, violationItem{
			Property: v.Property, Message: v.Message, Task: v.Task, CP: v.CP, Seq: v.Seq,
			When: time.Duration(v.T).String(),
		})
	}
	return p, nil
}

func joinScripts() string {
	var b strings.Builder
	b.WriteString("(function () {\n\"use strict\";\n")
	for _, name := range scripts {
		b.WriteString(mustRead("assets/" + name))
		b.WriteString("\n")
	}
	b.WriteString("})();\n")
	return b.String()
}

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}
