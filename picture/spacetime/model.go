package spacetime

import (
	"slices"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// model is the data the page's script draws from, written inline as JSON. Events are
// stored as columns (one array per field) rather than as objects: for 100,000 events that
// is several times smaller and faster to parse, and the script indexes them by position.
type model struct {
	T0 int64 `json:"t0"` // the run's first and last virtual times
	T1 int64 `json:"t1"`
	// Busy is the time of the last event of the job itself (not a sink read, a phase or a
	// fault's start or end): a run ends with a heal and a liveness phase in which little
	// happens, so the page opens on [T0, Busy] and the fit button shows the whole run.
	Busy  int64    `json:"busy"`
	Lanes []string `json:"lanes"`
	// Lives holds, per lane, the first and last time its line is drawn (laneLives): a
	// rescale starts lanes and ends others.
	Lives []int64  `json:"lives"`
	Kinds []string `json:"kinds"` // the kinds that occur, indexed by Kind below

	Seq  []uint64 `json:"seq"`
	T    []int64  `json:"t"`
	Lane []int    `json:"lane"` // -1 for events on no lane (faults, phases)
	Kind []int    `json:"kind"`
	CP   []uint64 `json:"cp"`
	Line []string `json:"line"` // the canonical trace line, shown on hover

	Arrows      arrows           `json:"arrows"`
	Checkpoints []checkpointSpan `json:"checkpoints"`
	Faults      []faultSpan      `json:"faults"`
	Phases      []phaseBand      `json:"phases"`
	Violations  []violationMark  `json:"violations"`
	// Channels are the stories of the channels violations name (channels.go).
	Channels []channelStory `json:"channels"`
}

// violationMark is a violation placed on the picture: at the event whose seq it names, on
// that event's lane (or on the violation's task when the event has none).
type violationMark struct {
	Property string `json:"property"`
	Message  string `json:"message"`
	Seq      uint64 `json:"seq"`
	T        int64  `json:"t"`
	Task     string `json:"task"`
	CP       uint64 `json:"cp"`
	Event    int    `json:"event"` // index of the event; -1 when the trace lacks that seq
	Lane     int    `json:"lane"`
}

func newModel(r Run) *model {
	events := r.Events
	m := &model{Lanes: laneOrder(events)}
	laneIndex := make(map[string]int, len(m.Lanes))
	for i, name := range m.Lanes {
		laneIndex[name] = i
	}
	kindIndex := map[string]int{}
	n := len(events)
	m.Seq, m.T, m.Lane, m.Kind, m.CP, m.Line = make([]uint64, n), make([]int64, n), make([]int, n), make([]int, n), make([]uint64, n), make([]string, n)
	seqIndex := make(map[uint64]int, n)
	for i := range events {
		e := &events[i]
		k, ok := kindIndex[e.Kind]
		if !ok {
			k = len(m.Kinds)
			kindIndex[e.Kind] = k
			m.Kinds = append(m.Kinds, e.Kind)
		}
		lane := -1
		if e.Kind != trace.KindFault && e.Kind != trace.KindPhase {
			if l, ok := laneIndex[e.Task]; ok && e.Task != "" {
				lane = l
			}
		}
		m.Seq[i], m.T[i], m.Lane[i], m.Kind[i], m.CP[i], m.Line[i] = e.Seq, e.T, lane, k, e.CP, e.String()
		if _, dup := seqIndex[e.Seq]; !dup {
			seqIndex[e.Seq] = i
		}
		if i == 0 || e.T < m.T0 {
			m.T0 = e.T
		}
		if i == 0 || e.T > m.T1 {
			m.T1 = e.T
		}
		if e.Kind != trace.KindSinkRead && e.Kind != trace.KindPhase && e.Kind != trace.KindFault {
			m.Busy = max(m.Busy, e.T)
		}
	}
	// A violation pinned past the last event (an absence that became final) stays in view.
	for k, v := range r.Violations {
		if n == 0 && k == 0 {
			m.T0, m.T1 = v.T, v.T
		}
		m.T0, m.T1 = min(m.T0, v.T), max(m.T1, v.T)
	}
	if m.T1 <= m.T0 {
		// One instant: give the axis a width so that the page can divide by it.
		m.T1 = m.T0 + 1
	}
	for _, v := range r.Violations {
		m.Busy = max(m.Busy, v.T)
	}
	m.Busy = min(max(m.Busy, m.T0+1), m.T1)
	m.Lives = laneLives(events, m.Lanes, m.T0, m.T1)
	m.Arrows = matchArrows(events, laneIndex)
	m.Checkpoints = checkpointSpans(events, m.T1)
	m.Faults = faultSpans(events, laneIndex)
	m.Phases = phaseBands(events, m.T1)
	m.Violations = violationMarks(r.Violations, m, seqIndex, laneIndex)
	m.Channels = nonNil(channelStories(events, r.Violations))
	// JSON writes nil slices as null; the script expects arrays.
	m.Kinds = nonNil(m.Kinds)
	m.Checkpoints, m.Faults, m.Phases = nonNil(m.Checkpoints), nonNil(m.Faults), nonNil(m.Phases)
	m.Arrows.Send, m.Arrows.Recv, m.Arrows.Peer = nonNil(m.Arrows.Send), nonNil(m.Arrows.Recv), nonNil(m.Arrows.Peer)
	return m
}

// violationMarks places each violation at its first offending event, the one its Seq names.
// The list keeps the checker's order, which is the order of the report.
func violationMarks(vs []checker.Violation, m *model, seqIndex map[uint64]int, laneIndex map[string]int) []violationMark {
	marks := make([]violationMark, 0, len(vs))
	for _, v := range vs {
		mk := violationMark{Property: string(v.Property), Message: v.Message, Seq: v.Seq, T: v.T, Task: v.Task, CP: v.CP, Event: -1, Lane: -1}
		if i, ok := seqIndex[v.Seq]; ok {
			mk.Event, mk.T, mk.Lane = i, m.T[i], m.Lane[i]
		}
		if mk.Lane < 0 {
			if l, ok := laneIndex[v.Task]; ok && v.Task != "" {
				mk.Lane = l
			} else {
				mk.Lane = 0 // the coordinator's lane: a violation of the run as a whole
			}
		}
		marks = append(marks, mk)
	}
	return marks
}

func nonNil[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return slices.Clip(s)
}
