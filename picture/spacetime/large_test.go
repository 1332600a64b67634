package spacetime

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// largeRun is a wide job's run at the size the page must stay usable at: p sources
// shuffling into p sums, each sum feeding one sink, and checkpoints every 100 ms until the
// trace holds about events events (2p² + 15p per checkpoint: 2,500 at p = 32).
func largeRun(p, events int) Run {
	var b builder
	name := func(op string, i int) string { return op + "-" + strconv.Itoa(i) }
	for cp := uint64(1); len(b.events) < events; cp++ {
		at := float64(cp) * 100
		b.add(at, trace.Event{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: cp})
		for s := range p {
			ts := at + 0.5 + float64(s)*0.01
			b.add(ts, trace.Event{Kind: trace.KindSnapshotTaken, Task: name("source", s), CP: cp})
			for k := range p {
				b.add(ts, trace.Event{Kind: trace.KindBarrierSend, Task: name("source", s), To: name("sum", k), CP: cp})
			}
		}
		for k := range p {
			for s := range p {
				b.add(at+1+float64(k)*0.02+float64(s)*0.001, trace.Event{Kind: trace.KindBarrierRecv, Task: name("sum", k), From: name("source", s), CP: cp})
			}
			b.add(at+1.1+float64(k)*0.02, trace.Event{Kind: trace.KindSnapshotTaken, Task: name("sum", k), CP: cp})
			b.barrier(at+1.1+float64(k)*0.02, name("sum", k), name("sink", k), cp, false)
			b.add(at+2+float64(k)*0.02, trace.Event{Kind: trace.KindSnapshotTaken, Task: name("sink", k), CP: cp})
			b.add(at+2+float64(k)*0.02, trace.Event{Kind: trace.KindSinkPrecommit, Task: name("sink", k), CP: cp, Txn: "t"})
		}
		for _, op := range []string{"source", "sum", "sink"} {
			for k := range p {
				b.add(at+3, trace.Event{Kind: trace.KindSnapshotAck, Task: name(op, k), CP: cp})
			}
		}
		b.add(at+5, trace.Event{Kind: trace.KindCheckpointComplete, Task: "coordinator", CP: cp})
		for _, op := range []string{"source", "sum", "sink"} {
			for k := range p {
				b.add(at+6, trace.Event{Kind: trace.KindNotifyComplete, Task: name(op, k), CP: cp})
			}
		}
		for k := range p {
			b.add(at+7, trace.Event{Kind: trace.KindSinkCommit, Task: name("sink", k), CP: cp, Txn: "t"}, "records", "1")
		}
	}
	last := b.events[len(b.events)-1]
	return Run{
		Title:      fmt.Sprintf("large: %d events on %d tasks", len(b.events), 3*p),
		Events:     b.events,
		Violations: []checker.Violation{{Property: checker.PropExactlyOnce, Message: "late duplicate", Seq: last.Seq, T: last.T, Task: last.Task, CP: last.CP}},
	}
}

// TestBrowserLargeRun loads a 100,000-event run on 96 tasks: the page must start and draw
// the whole run aggregated (fewer marks than events, arrows sampled), which is what keeps it
// quick to redraw. The times are logged, never asserted: they depend on the machine.
func TestBrowserLargeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("large browser run skipped in -short mode")
	}
	browser := startBrowser(t)
	r := largeRun(32, 100_000)
	start := time.Now()
	tb := openPage(t, browser, r)
	loaded := time.Since(start)
	defer tb.checkClean(t)

	if n := len(eval[[]string](t, tb, `spacetime.lanes()`)); n != 97 {
		t.Errorf("%d lanes, want 97", n)
	}
	type stats struct {
		StartupMs, FrameMs                     float64
		EventsInView, Buckets                  int
		ArrowsInView, ArrowsDrawn, ArrowStride int
	}
	get := func() stats {
		m := eval[map[string]float64](t, tb, `spacetime.render()`)
		return stats{m["startupMs"], m["frameMs"], int(m["eventsInView"]), int(m["buckets"]), int(m["arrowsInView"]), int(m["arrowsDrawn"]), int(m["arrowStride"])}
	}
	whole := get()
	t.Logf("%d events: page loaded in %v (first picture at %.0f ms), whole-run frame %.1f ms: %d events in view as %d buckets, %d of %d arrows",
		len(r.Events), loaded.Round(time.Millisecond), whole.StartupMs, whole.FrameMs, whole.EventsInView, whole.Buckets, whole.ArrowsDrawn, whole.ArrowsInView)
	if whole.Buckets >= whole.EventsInView || whole.ArrowStride < 2 || whole.ArrowsDrawn > 1500 {
		t.Errorf("whole run not aggregated: %+v", whole)
	}
	if !eval[bool](t, tb, `spacetime.zoomTo(`+strconv.FormatUint(r.Events[len(r.Events)/2].Seq, 10)+`)`) {
		t.Fatal("zoomTo failed")
	}
	zoomed := get()
	t.Logf("zoomed frame %.1f ms: %d events in view as %d buckets, %d of %d arrows", zoomed.FrameMs, zoomed.EventsInView, zoomed.Buckets, zoomed.ArrowsDrawn, zoomed.ArrowsInView)
	if zoomed.EventsInView >= whole.EventsInView || zoomed.ArrowsDrawn > 1500 {
		t.Errorf("zooming in did not narrow what is drawn: %+v, whole run %+v", zoomed, whole)
	}
}
