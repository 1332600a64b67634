package spacetime

import (
	"fmt"
	"io"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// Run is what the picture shows: a finished trace and the verdict on it.
type Run struct {
	Title      string
	Events     []trace.Event
	Violations []checker.Violation
	// Notes are lines shown under the title (scenario, seed, verdict), as plain text.
	Notes []string
	// Links point at files written beside the page (porcupine's pictures of a history).
	Links []Link
}

// Link is one link in the page's header.
type Link struct {
	Label string
	Href  string
}

// Write writes the page for r to w. It fails only on a write error or on a link that is
// not relative: the page promises never to reach the network, and a link to another host
// would break that promise the moment someone clicks it.
func Write(w io.Writer, r Run) error {
	for _, l := range r.Links {
		if !relativeHref(l.Href) {
			return fmt.Errorf("spacetime: link %q to %q is not a relative path: the page must not reach the network", l.Label, l.Href)
		}
	}
	p, err := newPage(r)
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, p)
}

// relativeHref reports whether href names a file by a relative path: no scheme (http:,
// file:, javascript:) and no authority ("//host").
func relativeHref(href string) bool {
	if href == "" || strings.HasPrefix(href, "//") || strings.HasPrefix(href, `\\`) {
		return false
	}
	// A colon before any slash, '?' or '#' makes the first segment a scheme.
	if i := strings.IndexAny(href, ":/?#"); i >= 0 && href[i] == ':' {
		return false
	}
	return true
}
