package spacetime

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ckptsim/ckptsim/trace"
)

// The browser tests render pages in headless Chromium, the only judge of whether the
// script runs, the lanes appear and the marks land where the events are. They skip, saying
// why, where no Chromium is installed.

func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startBrowser starts one headless Chromium for a test, with a fresh profile and nothing
// that reaches the network on its own (updates, sync, QUIC probes).
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("no Chromium: install Debian's chromium package to run the browser test")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	return ctx
}

// tab is one page open in the browser, with what it reported: console errors and
// warnings, exceptions, and every request it made.
type tab struct {
	ctx      context.Context
	url      string
	mu       sync.Mutex
	problems []string
	requests []string
}

func openPage(t *testing.T, browser context.Context, r Run) *tab {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "run.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx, url: "file://" + file}
	if err := chromedp.Listen(ctx, tb.record); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(tb.url)); err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	return tb
}

func (tb *tab) record(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		tb.problems = append(tb.problems, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, msg))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			tb.problems = append(tb.problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			tb.problems = append(tb.problems, fmt.Sprintf("browser log %s (%s): %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text))
		}
	case *network.EventRequestWillBeSent:
		tb.requests = append(tb.requests, ev.Request.URL)
	}
}

// checkClean fails the test for any problem the page reported and any request other than
// the page itself: the page must load nothing.
func (tb *tab) checkClean(t *testing.T) {
	t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, p := range tb.problems {
		t.Errorf("page reported: %s", p)
	}
	for _, u := range tb.requests {
		if u != tb.url && !strings.HasPrefix(u, "data:") {
			t.Errorf("page requested %s", u)
		}
	}
}

func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// waitFor waits until expr is true in the page: input events are delivered with the next
// animation frame, not when the command that sends them returns.
func waitFor(t *testing.T, tb *tab, expr, what string) {
	t.Helper()
	if _, err := chromedp.Run(tb.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

func do(t *testing.T, tb *tab, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tb.ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// The shapes of the API's answers.
type (
	viewRange struct {
		T0 float64 `json:"t0"`
		T1 float64 `json:"t1"`
	}
	plotBox struct {
		Left  float64 `json:"left"`
		Width float64 `json:"width"`
	}
	mark struct {
		Seq   uint64  `json:"seq"`
		Lane  string  `json:"lane"`
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		Shown bool    `json:"shown"`
	}
	rect struct {
		Left float64 `json:"left"`
		Top  float64 `json:"top"`
	}
)

const visibleLabels = `Array.from(document.querySelectorAll('#labels [data-lane]')).filter(e => e.getClientRects().length > 0).map(e => e.dataset.lane)`

func TestBrowserDrawsRun(t *testing.T) {
	browser := startBrowser(t)
	r, bad := smallRun()
	badEvent := r.Events[bad]
	tb := openPage(t, browser, r)
	defer tb.checkClean(t)

	if !eval[bool](t, tb, `document.documentElement.dataset.ready === "true" && typeof window.spacetime === "object"`) {
		t.Fatal("page did not start")
	}
	if eval[bool](t, tb, `window.pwned !== undefined`) {
		t.Fatal("a violation message ran as script")
	}

	// A lane for every task, coordinator first, operators in dataflow order.
	wantLanes := []string{"coordinator", "source-0", "source-1", "sum-0", "sum-1", "sink-0", "reader-0"}
	if got := eval[[]string](t, tb, `spacetime.lanes()`); !slices.Equal(got, wantLanes) {
		t.Errorf("lanes %q, want %q", got, wantLanes)
	}
	if got := eval[[]string](t, tb, visibleLabels); !slices.Equal(got, wantLanes) {
		t.Errorf("lane labels %q, want %q", got, wantLanes)
	}
	// Each label sits beside its lane's row.
	for _, lane := range wantLanes {
		off := eval[float64](t, tb, fmt.Sprintf(`(() => { const l = document.querySelector('[data-lane=%q]').getBoundingClientRect(), c = document.getElementById('body-canvas').getBoundingClientRect(); return l.top + l.height / 2 - c.top - spacetime.laneY(%q); })()`, lane, lane))
		if math.Abs(off) > 1 {
			t.Errorf("label of %s is %.1f px off its lane", lane, off)
		}
	}

	// The violation's mark is at its event: on the event's lane, at the x of its time.
	checkMark := func(when string) mark {
		t.Helper()
		marks := eval[[]mark](t, tb, `spacetime.violationMarks()`)
		if len(marks) != 1 {
			t.Fatalf("%s: %d violation marks, want 1", when, len(marks))
		}
		m := marks[0]
		v := eval[viewRange](t, tb, `spacetime.viewRange()`)
		p := eval[plotBox](t, tb, `spacetime.plot()`)
		wantX := p.Left + (float64(badEvent.T)-v.T0)/(v.T1-v.T0)*p.Width
		wantY := eval[float64](t, tb, `spacetime.laneY("sink-0")`)
		if m.Seq != badEvent.Seq || m.Lane != "sink-0" || !m.Shown || math.Abs(m.X-wantX) > 0.5 || math.Abs(m.Y-wantY) > 0.5 {
			t.Errorf("%s: mark %+v, want seq %d on sink-0 at x %.1f y %.1f", when, m, badEvent.Seq, wantX, wantY)
		}
		// And it is drawn: the ring around it is red on the canvas.
		red := eval[bool](t, tb, fmt.Sprintf(`[6, 7, 8].some(d => { const [r, g, b] = spacetime.pixel(%f + d, %f); return r > 180 && g < 120 && b < 120; })`, m.X, m.Y))
		if !red {
			t.Errorf("%s: no red ring drawn at the violation mark (%.1f, %.1f)", when, m.X, m.Y)
		}
		return m
	}
	checkMark("at load")

	// Clicking the violation zooms to its event.
	before := eval[viewRange](t, tb, `spacetime.viewRange()`)
	do(t, tb, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#violations li[data-seq="%d"]`, badEvent.Seq))))
	after := eval[viewRange](t, tb, `spacetime.viewRange()`)
	if w0, w1 := before.T1-before.T0, after.T1-after.T0; w1 > w0/10 {
		t.Errorf("clicking the violation left the view %.0f ns wide (was %.0f)", w1, w0)
	}
	if mid := (after.T0 + after.T1) / 2; math.Abs(mid-float64(badEvent.T)) > (after.T1-after.T0)/100 {
		t.Errorf("view %+v is not centred on the violation's event at %d", after, badEvent.T)
	}
	m := checkMark("after clicking the violation")
	if got := eval[uint64](t, tb, `spacetime.selected()`); got != badEvent.Seq {
		t.Errorf("selected seq %d after the click, want %d", got, badEvent.Seq)
	}
	if !eval[bool](t, tb, fmt.Sprintf(`document.querySelector('#violations li[data-seq="%d"]').classList.contains("current")`, badEvent.Seq)) {
		t.Error("the clicked violation is not marked current")
	}

	// Hovering the mark shows the event's trace line.
	// A DOMRect's fields are getters, which do not survive JSON: copy them out.
	c := eval[rect](t, tb, `(r => ({left: r.left, top: r.top}))(document.getElementById('body-canvas').getBoundingClientRect())`)
	do(t, tb, chromedp.MouseEvent(chromedp.MouseMoved, c.Left+m.X, c.Top+m.Y))
	waitFor(t, tb, `!document.getElementById('tip').hidden`, "hovering the violation's mark")
	tip := eval[string](t, tb, `document.getElementById('tip').hidden ? "" : document.getElementById('tip').textContent`)
	if !strings.Contains(tip, fmt.Sprintf(`{"seq":%d,`, badEvent.Seq)) || !strings.Contains(tip, "VIOLATION exactly-once") {
		t.Errorf("hover tip %q lacks the event's line and its violation", tip)
	}
	if got := eval[*uint64](t, tb, fmt.Sprintf(`spacetime.eventAt(%f, %f)`, m.X, m.Y)); got == nil || *got != badEvent.Seq {
		t.Errorf("eventAt the mark = %v, want %d", got, badEvent.Seq)
	}

	// The wheel zooms around the pointer and a drag pans.
	width := func() float64 { v := eval[viewRange](t, tb, `spacetime.viewRange()`); return v.T1 - v.T0 }
	eval[viewRange](t, tb, `spacetime.fit()`)
	w0 := width()
	cx, cy := c.Left+400, c.Top+40
	// The protocol wants both deltas, and leaves out a zero one: a sideways half pixel
	// stands for none.
	do(t, tb, chromedp.MouseEvent(chromedp.MouseWheel, cx, cy, func(p *input.DispatchMouseEventParams) { p.DeltaX, p.DeltaY = 0.5, -400 }))
	waitFor(t, tb, fmt.Sprintf(`(v => v.t1 - v.t0 < %f)(spacetime.viewRange())`, w0*0.9), "zooming in with the wheel")
	v0 := eval[viewRange](t, tb, `spacetime.viewRange()`)
	do(t, tb,
		chromedp.MouseEvent(chromedp.MousePressed, cx, cy, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, cx+60, cy, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, cx+120, cy, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, cx+120, cy, chromedp.ButtonLeft),
	)
	v1 := eval[viewRange](t, tb, `spacetime.viewRange()`)
	p := eval[plotBox](t, tb, `spacetime.plot()`)
	if want := 120 * (v0.T1 - v0.T0) / p.Width; math.Abs((v0.T0-v1.T0)-want) > want/20 {
		t.Errorf("dragging 120 px moved the view by %.0f ns, want %.0f", v0.T0-v1.T0, want)
	}

	// zoomTo goes to any event, and refuses a seq the trace lacks.
	crash := slices.IndexFunc(r.Events, func(e trace.Event) bool { return e.Kind == "task.crash" })
	if !eval[bool](t, tb, fmt.Sprintf(`spacetime.zoomTo(%d)`, r.Events[crash].Seq)) {
		t.Error("zoomTo(crash) failed")
	}
	if v := eval[viewRange](t, tb, `spacetime.viewRange()`); float64(r.Events[crash].T) < v.T0 || float64(r.Events[crash].T) > v.T1 || v.T1-v.T0 > float64(r.Events[len(r.Events)-1].T)/10 {
		t.Errorf("after zoomTo(crash) the view is %+v, crash at %d", v, r.Events[crash].T)
	}
	if eval[bool](t, tb, `spacetime.zoomTo(123456789)`) {
		t.Error("zoomTo of a missing seq succeeded")
	}

	// Filters: by task, then by checkpoint.
	if got := eval[[]string](t, tb, `spacetime.setFilter({task: "sum"}), spacetime.lanes()`); !slices.Equal(got, []string{"sum-0", "sum-1"}) {
		t.Errorf("task filter sum: lanes %q", got)
	}
	if got := eval[[]string](t, tb, visibleLabels); !slices.Equal(got, []string{"sum-0", "sum-1"}) {
		t.Errorf("task filter sum: labels %q", got)
	}
	eval[any](t, tb, `spacetime.setFilter({task: ""})`)
	cp2 := eval[viewRange](t, tb, `spacetime.setFilter({cp: 2}), spacetime.viewRange()`)
	if cp2.T0 > 30e6 || cp2.T1 < 50e6 || cp2.T1-cp2.T0 > 40e6 {
		t.Errorf("checkpoint filter 2 shows %+v, want about 30ms..50ms", cp2)
	}
	eval[any](t, tb, `spacetime.setFilter({cp: null})`)
}
