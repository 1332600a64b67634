package spacetime

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// TestBrowserDrawsTheReadmeNegativeControl renders the page of the README's negative control
// (control-reorder-aligned, seed 3, whose "Draw the run" section draws it with simrun run
// -html) from a real simulated run, as simrun builds it, and checks it in Chromium: it loads
// clean, has a lane for every task of the trace, draws the first violation's mark at its
// event, and zooms there when the violation is clicked.
func TestBrowserDrawsTheReadmeNegativeControl(t *testing.T) {
	browser := startBrowser(t)
	s, err := scenarios.Lookup("control-reorder-aligned")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, res, err := scenarios.Execute(scenarios.NewSimulation(), s, 3, scenarios.RunOptions{Trace: &buf})
	if err != nil {
		t.Fatal(err)
	}
	_, events, err := trace.ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Violations) == 0 {
		t.Fatal("the negative control violated nothing")
	}
	tb := openPage(t, browser, Run{Title: "control-reorder-aligned seed 3", Events: events, Violations: res.Violations})
	defer tb.checkClean(t)

	var tasks []string
	for _, e := range events {
		if e.Task != "" && !slices.Contains(tasks, e.Task) {
			tasks = append(tasks, e.Task)
		}
	}
	lanes := eval[[]string](t, tb, `spacetime.lanes()`)
	for _, task := range tasks {
		if !slices.Contains(lanes, task) {
			t.Errorf("no lane for %s (lanes %q)", task, lanes)
		}
	}

	first := res.Violations[0]
	at := slices.IndexFunc(events, func(e trace.Event) bool { return e.Seq == first.Seq })
	if at < 0 {
		t.Fatalf("violation %v names seq %d, which the trace lacks", first, first.Seq)
	}
	do(t, tb, chromedpClickViolation(first.Seq))
	v := eval[viewRange](t, tb, `spacetime.viewRange()`)
	if float64(events[at].T) < v.T0 || float64(events[at].T) > v.T1 || v.T1-v.T0 > float64(events[len(events)-1].T)/10 {
		t.Errorf("after clicking the violation at t=%d the view is %+v", events[at].T, v)
	}
	marks := eval[[]mark](t, tb, `spacetime.violationMarks()`)
	i := slices.IndexFunc(marks, func(m mark) bool { return m.Seq == first.Seq })
	if i < 0 {
		t.Fatalf("no mark for the violation at seq %d: %+v", first.Seq, marks)
	}
	p := eval[plotBox](t, tb, `spacetime.plot()`)
	wantX := p.Left + (float64(events[at].T)-v.T0)/(v.T1-v.T0)*p.Width
	if m := marks[i]; !m.Shown || math.Abs(m.X-wantX) > 0.5 || (first.Task != "" && m.Lane != first.Task) {
		t.Errorf("mark %+v, want it shown at x %.1f on %s", m, wantX, first.Task)
	}
	if !eval[bool](t, tb, fmt.Sprintf(`spacetime.selected() === %d`, first.Seq)) {
		t.Error("the clicked violation's event is not selected")
	}
}

// chromedpClickViolation clicks the violation with seq in the page's list.
func chromedpClickViolation(seq uint64) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(fmt.Sprintf(`#violations li[data-seq="%d"]`, seq)))
}
