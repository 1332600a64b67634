package spacetime

import (
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// checkpointSpan is one checkpoint from the moment it is asked for (request, or trigger when
// the trace has no request) to its outcome. Outcome is "complete", "abort" or "open": a
// checkpoint the trace never ends is drawn to the end of the run, since a checkpoint that
// neither completes nor aborts is itself a finding.
type checkpointSpan struct {
	CP        uint64 `json:"cp"`
	Start     int64  `json:"start"`
	End       int64  `json:"end"`
	Persist   int64  `json:"persist"` // when its metadata write began; -1 if it never did
	Outcome   string `json:"outcome"`
	Savepoint bool   `json:"savepoint"`
	Stop      bool   `json:"stop"`  // a stop-with-savepoint: if it completes, the job ends
	Drain     bool   `json:"drain"` // with drain: its sources end their input at its trigger
	Reason    string `json:"reason,omitempty"`
	First     int    `json:"first"` // event that opened it
	Last      int    `json:"last"`  // event that ended it; -1 while open
	Row       int    `json:"row"`   // sub-row, so that concurrent checkpoints do not overlap
}

// checkpointSpans collects the checkpoints of a run in the order they open. A checkpoint id
// can open again after it ended (a coordinator that recovers may reuse one), which starts a
// new span.
func checkpointSpans(events []trace.Event, end int64) []checkpointSpan {
	var spans []checkpointSpan
	open := map[uint64]int{} // cp -> index in spans
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindCheckpointRequest, trace.KindCheckpointTrigger:
			k, ok := open[e.CP]
			if !ok {
				k = len(spans)
				open[e.CP] = k
				spans = append(spans, checkpointSpan{CP: e.CP, Start: e.T, Persist: -1, Outcome: "open", First: i, Last: -1})
			}
			if v, _ := e.Attr(trace.AttrSavepoint); v == "true" {
				spans[k].Savepoint = true
			}
			if v, _ := e.Attr(trace.AttrStop); v == "true" {
				spans[k].Stop = true
			}
			if v, _ := e.Attr(trace.AttrDrain); v == "true" {
				spans[k].Drain = true
			}
		case trace.KindCheckpointPersist:
			if k, ok := open[e.CP]; ok {
				spans[k].Persist = e.T
			}
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			k, ok := open[e.CP]
			if !ok {
				// An outcome without a start: drawn as an instant, not dropped.
				k = len(spans)
				spans = append(spans, checkpointSpan{CP: e.CP, Start: e.T, Persist: -1, First: i})
			}
			delete(open, e.CP)
			spans[k].End, spans[k].Last, spans[k].Reason = e.T, i, e.Reason
			spans[k].Outcome = "complete"
			if e.Kind == trace.KindCheckpointAbort {
				spans[k].Outcome = "abort"
			}
		}
	}
	rowEnds := []int64{}
	for k := range spans {
		if spans[k].Last < 0 {
			spans[k].End = end
		}
		spans[k].Row = placeRow(&rowEnds, spans[k].Start, spans[k].End)
	}
	return spans
}

// faultSpan is one injected fault: a band from its start to its end event (the fault event
// with attribute end=true and the same id), or an instant when it has no end.
type faultSpan struct {
	ID      string `json:"id"`
	Fault   string `json:"fault"`
	Label   string `json:"label"` // the fault's parameters, "key=value ..."
	Start   int64  `json:"start"`
	End     int64  `json:"end"`
	Instant bool   `json:"instant"`
	First   int    `json:"first"`
	Last    int    `json:"last"` // -1 for an instant
	Lanes   []int  `json:"lanes"`
	Row     int    `json:"row"`
}

// faultSpans pairs each fault's start and end. Lanes lists the lanes the fault names (its
// task, from and to), shaded more strongly than the rest.
func faultSpans(events []trace.Event, laneIndex map[string]int) []faultSpan {
	var spans []faultSpan
	open := map[string]int{}
	for i := range events {
		e := &events[i]
		if e.Kind != trace.KindFault {
			continue
		}
		id, _ := e.Attr("id")
		if v, _ := e.Attr("end"); v == "true" {
			if k, ok := open[id]; ok {
				delete(open, id)
				spans[k].End, spans[k].Last, spans[k].Instant = e.T, i, false
			}
			continue
		}
		s := faultSpan{ID: id, Fault: e.Fault, Label: faultLabel(e), Start: e.T, End: e.T, Instant: true, First: i, Last: -1, Lanes: []int{}}
		for _, name := range []string{e.Task, e.From, e.To} {
			if l, ok := laneIndex[name]; ok && name != "" {
				s.Lanes = append(s.Lanes, l)
			}
		}
		if id != "" {
			open[id] = len(spans)
		}
		spans = append(spans, s)
	}
	rowEnds := []int64{}
	for k := range spans {
		spans[k].Row = placeRow(&rowEnds, spans[k].Start, spans[k].End)
	}
	return spans
}

// faultLabel describes a fault by its kind and parameters, leaving out the bookkeeping
// attributes every fault event carries, with durations in human units (window_ns=100000000
// reads window=100ms, as simrun's report writes it).
func faultLabel(e *trace.Event) string {
	parts := []string{e.Fault}
	for _, f := range [][2]string{{"task", e.Task}, {"from", e.From}, {"to", e.To}} {
		if f[1] != "" {
			parts = append(parts, f[0]+"="+f[1])
		}
	}
	for _, a := range e.Attrs {
		switch a.Key {
		case "id", "end", "entry":
			continue
		}
		key, value := a.Key, a.Value
		if name, ok := strings.CutSuffix(key, "_ns"); ok {
			if n, err := strconv.ParseInt(value, 10, 64); err == nil {
				key, value = name, time.Duration(n).String()
			}
		}
		parts = append(parts, key+"="+value)
	}
	return strings.Join(parts, " ")
}

// phaseBand is one phase of a run (fault, heal, liveness), from its phase event to the next.
// The "end" phase starts nothing and is kept as an instant so the run's end is marked.
type phaseBand struct {
	Phase string `json:"phase"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Event int    `json:"event"`
}

func phaseBands(events []trace.Event, end int64) []phaseBand {
	var bands []phaseBand
	for i := range events {
		e := &events[i]
		if e.Kind != trace.KindPhase {
			continue
		}
		if n := len(bands); n > 0 && bands[n-1].Phase != "end" {
			bands[n-1].End = e.T
		}
		name, _ := e.Attr(trace.AttrPhase)
		bands = append(bands, phaseBand{Phase: name, Start: e.T, End: e.T, Event: i})
	}
	if n := len(bands); n > 0 && bands[n-1].Phase != "end" {
		bands[n-1].End = end
	}
	return bands
}

// placeRow puts a span [start, end] in the first row free at start and returns that row, so
// that overlapping spans stack instead of hiding one another.
func placeRow(rowEnds *[]int64, start, end int64) int {
	for r, e := range *rowEnds {
		if e < start {
			(*rowEnds)[r] = end
			return r
		}
	}
	*rowEnds = append(*rowEnds, end)
	return len(*rowEnds) - 1
}
