package spacetime

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// The script and style are inlined into <script> and <style> elements, where html/template
// passes them through as they are: text that would end the element early, or open an HTML
// comment in script data, must never be in them.
func TestAssetsInlineSafely(t *testing.T) {
	for _, c := range []struct{ text, bad string }{
		{string(pageScript), "</script"}, {string(pageScript), "<!--"}, {string(pageStyle), "</style"},
	} {
		if strings.Contains(strings.ToLower(c.text), c.bad) {
			t.Errorf("inlined asset contains %q", c.bad)
		}
	}
}

// Every script in assets is listed in scripts, so none is silently left out of the page.
func TestEveryScriptIsInlined(t *testing.T) {
	files, err := fs.Glob(assets, "assets/*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.Contains(scripts, strings.TrimPrefix(f, "assets/")) {
			t.Errorf("%s is not in scripts", f)
		}
	}
	if len(files) != len(scripts) {
		t.Errorf("%d script files, %d listed", len(files), len(scripts))
	}
}
