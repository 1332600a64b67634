package spacetime

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// reorderControl is the README's negative control, shrunk (testdata/reorder-control.jsonl,
// the trace `simrun replay` wrote of the tour's shrunk artifact): source-0 sent 10 records
// to sum-0 before its snapshot for checkpoint 1, and sum-0 consumed 9 before its own.
func reorderControl(t *testing.T) Run {
	t.Helper()
	f, err := os.Open("testdata/reorder-control.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, events, err := trace.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	res := checker.ConsistentCut(events, checker.Reference{})
	if len(res.Violations) != 1 {
		t.Fatalf("the control's trace has %d consistent-cut violations, want 1: %s", len(res.Violations), res)
	}
	return Run{Title: "control-reorder-aligned, shrunk", Events: events, Violations: res.Violations}
}

// TestChannelStoryOfTheControl: the picture's model tells the violated channel's story:
// both snapshots' counts at every checkpoint and the one record the cut of 1 loses.
func TestChannelStoryOfTheControl(t *testing.T) {
	r := reorderControl(t)
	stories := channelStories(r.Events, r.Violations)
	if len(stories) != 1 || stories[0].From != "source-0" || stories[0].To != "sum-0" || !slices.Equal(stories[0].Violations, []int{0}) {
		t.Fatalf("stories %+v, want source-0->sum-0 told for violation 0", stories)
	}
	row := stories[0].Rows[0]
	if row.CP != 1 || row.Sent != 10 || row.Recv != 9 || row.InFlight != 0 || row.SentSeq == 0 || row.RecvSeq == 0 {
		t.Errorf("checkpoint 1's row %+v, want 10 sent and 9 consumed", row)
	}
	if want := "records #10 sent by source-0 before its snapshot are in neither snapshot: a restore from 1 loses them"; row.Crossing != want {
		t.Errorf("crossing %q, want %q", row.Crossing, want)
	}
}

// TestBrowserShowsTheCause: the README's negative control opens with the violated channel's
// story beside the chart, and a screenshot shows the chart, the violation's mark, the
// rings on the two snapshots of the cut and the legend, all in view; with thirty
// violations the list scrolls on its own and pushes nothing out of view.
func TestBrowserShowsTheCause(t *testing.T) {
	browser := startBrowser(t)
	r := reorderControl(t)
	tb := openPage(t, browser, r)
	defer tb.checkClean(t)
	type channelView struct {
		Name     string     `json:"name"`
		Rows     [][]string `json:"rows"`
		Violated string     `json:"violated"`
		Crossing string     `json:"crossing"`
		Rings    []uint64   `json:"rings"`
	}
	ch := eval[channelView](t, tb, `spacetime.channel()`)
	if ch.Name != "source-0 \u2192 sum-0" || ch.Violated != "1" || len(ch.Rows) == 0 || !slices.Equal(ch.Rows[0], []string{"1", "10", "9", "0", "1"}) {
		t.Errorf("channel panel %+v, want source-0 \u2192 sum-0 with checkpoint 1's row 10 sent, 9 consumed, 1 lost", ch)
	}
	if !strings.Contains(ch.Crossing, "records #10 sent by source-0") || len(ch.Rings) != 2 {
		t.Errorf("channel panel says %q and rings %v, want record #10 named and both snapshots ringed", ch.Crossing, ch.Rings)
	}
	allInView(t, tb, "#body-canvas", "#channel-panel", "#violations-panel", "#legend-panel")

	// What a person sees: the screenshot holds the violation's red ring and the orange
	// rings of the cut's two snapshots where the page says they are.
	shot := screenshot(t, tb)
	rings := eval[[]struct{ X, Y float64 }](t, tb, `spacetime.channel().rings.map(s => spacetime.event(s)).map(e => ({X: e.x, Y: e.y + document.getElementById('body-canvas').getBoundingClientRect().top}))`)
	for _, p := range rings {
		if !colourNear(shot, p.X, p.Y, 12, func(r, g, b uint32) bool { return r > 170 && g > 70 && g < 140 && b < 60 }) {
			t.Errorf("no orange ring in the screenshot around (%.0f, %.0f)", p.X, p.Y)
		}
	}
	m := eval[[]mark](t, tb, `spacetime.violationMarks()`)
	top := eval[float64](t, tb, `document.getElementById('body-canvas').getBoundingClientRect().top`)
	if len(m) != 1 || !colourNear(shot, m[0].X, m[0].Y+top, 8, func(r, g, b uint32) bool { return r > 180 && g < 120 && b < 120 }) {
		t.Errorf("no red violation ring in the screenshot at the mark %+v", m)
	}

	many := r
	for range 29 {
		many.Violations = append(many.Violations, r.Violations[0])
	}
	tb2 := openPage(t, browser, many)
	defer tb2.checkClean(t)
	allInView(t, tb2, "#body-canvas", "#legend-panel", "#channel-panel")
	if !eval[bool](t, tb2, `(() => { const ol = document.getElementById('violations'); return ol.scrollHeight > ol.clientHeight; })()`) {
		t.Error("thirty violations do not scroll in their own list")
	}
}

// allInView fails unless every element the selectors name is shown and lies within the
// window.
func allInView(t *testing.T, tb *tab, selectors ...string) {
	t.Helper()
	for _, sel := range selectors {
		expr := fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight + 0.5 && r.left >= 0 && r.right <= window.innerWidth + 0.5; })()`, sel)
		if !eval[bool](t, tb, expr) {
			t.Errorf("%s is not wholly in view", sel)
		}
	}
}

// screenshot captures the window as a person sees it.
func screenshot(t *testing.T, tb *tab) []byte {
	t.Helper()
	buf, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// colourNear reports whether the screenshot has a pixel that want accepts within radius px
// of (x, y), in CSS pixels.
func colourNear(shot []byte, x, y, radius float64, want func(r, g, b uint32) bool) bool {
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return false
	}
	scale := float64(img.Bounds().Dx()) / 1400 // the window is 1400 CSS pixels wide
	for dy := -radius - 2; dy <= radius+2; dy++ {
		for dx := -radius - 2; dx <= radius+2; dx++ {
			r, g, b, _ := img.At(int((x+dx)*scale), int((y+dy)*scale)).RGBA()
			if want(r>>8, g>>8, b>>8) {
				return true
			}
		}
	}
	return false
}
