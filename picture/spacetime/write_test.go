package spacetime

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

func writePage(t *testing.T, r Run) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.String()
}

// inlineData returns the model the page carries, decoded as the page's script decodes it.
func inlineData(t *testing.T, page string) model {
	t.Helper()
	const open = `<script type="application/json" id="spacetime-data">`
	_, rest, ok := strings.Cut(page, open)
	if !ok {
		t.Fatal("page has no data element")
	}
	raw, _, ok := strings.Cut(rest, "</script>")
	if !ok {
		t.Fatal("data element is not closed")
	}
	var m model
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("inline data is not JSON: %v", err)
	}
	return m
}

func TestWriteIsDeterministic(t *testing.T) {
	r, _ := smallRun()
	first := writePage(t, r)
	for range 3 {
		if got := writePage(t, r); got != first {
			t.Fatal("two writes of the same run differ")
		}
	}
	// Attributes out of key order are the same event: the canonical line sorts them.
	shuffled, _ := smallRun()
	for i := range shuffled.Events {
		a := shuffled.Events[i].Attrs
		for l, h := 0, len(a)-1; l < h; l, h = l+1, h-1 {
			a[l], a[h] = a[h], a[l]
		}
	}
	if writePage(t, shuffled) != first {
		t.Fatal("the page depends on the order of an event's attributes")
	}
}

// networkURL matches what would make a browser reach the network: a URL with a scheme of
// the web, a protocol-relative reference in an attribute or CSS, an @import.
var networkURL = regexp.MustCompile(`(?i)\b(https?|wss?|ftp):|(src|href|action|srcset)\s*=\s*["']?\s*//|url\(|@import`)

func TestWriteReachesNoNetwork(t *testing.T) {
	r, _ := smallRun()
	page := writePage(t, r)
	if m := networkURL.FindString(page); m != "" {
		i := strings.Index(page, m)
		t.Fatalf("page refers to the network: %q in ...%s...", m, page[max(0, i-60):min(len(page), i+60)])
	}
	if !strings.Contains(page, `default-src 'none'`) {
		t.Error("page has no Content-Security-Policy forbidding fetches")
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("page has %d script elements, want 2 (data and code, both inline)", n)
	}
	if strings.Contains(page, "<script src") || strings.Contains(page, "<link rel=\"stylesheet\"") {
		t.Error("page loads a script or style from outside")
	}
}

func TestWriteEscapesTraceStrings(t *testing.T) {
	const hostileTask = `<img src=x onerror="window.pwned=1">-0`
	const hostileMsg = "lost </script><script>window.pwned=1</script> & <!-- \u2028 done"
	r := Run{
		Title: "</title><script>x</script>",
		Events: []trace.Event{
			{Seq: 0, T: 0, Kind: trace.KindTaskRestore, Task: hostileTask},
			{Seq: 1, T: 5, Kind: trace.KindSnapshotDecline, Task: hostileTask, CP: 1, Reason: "</script>"},
		},
		Violations: []checker.Violation{{Property: checker.PropLiveness, Message: hostileMsg, Seq: 1, T: 5, Task: hostileTask, CP: 1}},
		Notes:      []string{"<b>note</b>"},
	}
	page := writePage(t, r)
	if n := strings.Count(strings.ToLower(page), "</script"); n != 2 {
		t.Errorf("page has %d </script, want 2: a trace string closed a script element", n)
	}
	for _, raw := range []string{"<img", "<b>", "<!--", "</title><script>"} {
		if strings.Contains(page, raw) {
			t.Errorf("page carries %q unescaped", raw)
		}
	}
	m := inlineData(t, page)
	if len(m.Violations) != 1 || m.Violations[0].Message != hostileMsg {
		t.Errorf("violation message did not survive the inline data: %+v", m.Violations)
	}
	if m.Lanes[1] != hostileTask || m.Lanes[m.Violations[0].Lane] != hostileTask {
		t.Errorf("lanes %q, violation lane %d: want the hostile task's lane", m.Lanes, m.Violations[0].Lane)
	}
	if !strings.Contains(m.Line[1], `"reason":"</script>"`) {
		t.Errorf("trace line %q lost its reason", m.Line[1])
	}
	if !strings.Contains(page, `data-lane="&lt;img src=x onerror=&#34;window.pwned=1&#34;&gt;-0"`) {
		t.Error("the hostile task's lane label is missing or not escaped as an attribute")
	}
}

func TestWriteRefusesLinksOffThePage(t *testing.T) {
	for _, href := range []string{"https://example.org/x.html", "//example.org/x", "javascript:alert(1)", "file:///etc/passwd", ""} {
		err := Write(&bytes.Buffer{}, Run{Links: []Link{{Label: "x", Href: href}}})
		if err == nil {
			t.Errorf("link %q accepted", href)
		}
	}
	for _, href := range []string{"porcupine-1.html", "./a/b.html", "../run/x.html#top", "/runs/c.html"} {
		if err := Write(&bytes.Buffer{}, Run{Links: []Link{{Label: "x", Href: href}}}); err != nil {
			t.Errorf("relative link %q refused: %v", href, err)
		}
	}
}

func TestWriteEmptyRun(t *testing.T) {
	page := writePage(t, Run{})
	m := inlineData(t, page)
	if len(m.Lanes) != 1 || m.Lanes[0] != coordinatorLane || m.T1 <= m.T0 {
		t.Errorf("empty run: lanes %q, range %d..%d", m.Lanes, m.T0, m.T1)
	}
	if !strings.Contains(page, `id="no-violations"`) || !strings.Contains(page, "<title>ckptsim run</title>") {
		t.Error("empty run page lacks its default title or its empty violation list")
	}
}

func TestWriteListsViolationsAndLinks(t *testing.T) {
	r, bad := smallRun()
	page := writePage(t, r)
	if want := `<li data-seq="` + itoa(r.Events[bad].Seq) + `" data-index="0" data-property="exactly-once"`; !strings.Contains(page, want) {
		t.Errorf("page lacks violation item %s", want)
	}
	if !strings.Contains(page, `href="porcupine-sink.html"`) {
		t.Error("page lacks its link")
	}
	for _, lane := range []string{"coordinator", "source-0", "sum-1", "sink-0", "reader-0"} {
		if !strings.Contains(page, `data-lane="`+lane+`"`) {
			t.Errorf("page lacks lane label %s", lane)
		}
	}
}

func itoa(u uint64) string { b, _ := json.Marshal(u); return string(b) }
