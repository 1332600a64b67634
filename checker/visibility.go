package checker

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/checker/linz"
	"github.com/ckptsim/ckptsim/trace"
)

// SinkVisibility checks that reader clients of the external store see only committed output,
// and output that never shrinks: the history of commits (sink.commit and sink.upsert, adding
// the records they made visible) and reads (sink.read, attr records: how many records the
// reader saw), each lasting from its start attribute to its event, must be linearizable
// against a counter of committed records (linz.CounterModel).
//
// Reads that break bounds every linearization respects (seeing more than was committed or
// being committed, less than was committed before the read began, or less than an earlier
// read saw) are pinned to the sink.read directly. The rest is decided segment by segment:
// wherever no operation is in flight the committed count is known, so the history splits
// there into independent checks. A segment with a single read, the usual case, is decided
// exactly without a search (see singleReadLinearizable); porcupine decides the others. They
// share one budget of model steps (SearchOptions.Steps); running out of it, or of the
// wall-clock safety net, gives the verdict unknown.
//
// The counter tracks how many records are visible, not their values, so a reader that sees
// an upserted record's value go back to an older one while the count stays put is not
// flagged: exactly-once judges the values that end up committed, not what readers saw on the
// way.
//
// A sink.read without its records attribute (well-formed flags it) is left out of the
// history, and a pass with one left out is unknown: that read was not judged.
func SinkVisibility(events []trace.Event, opts SearchOptions) Result {
	h := visibilityHistory(events)
	if h.unreadable == 0 {
		return judgeVisibility(events, h, opts)
	}
	note := fmt.Sprintf("%d sink.read without records (the first at seq %d): not judged", h.unreadable, events[h.firstUnreadable].Seq)
	if len(h.reads) == 0 {
		return unknownResult(PropSinkVisibility, note)
	}
	res := judgeVisibility(events, h, opts)
	res.Note = joinNote(res.Note, note)
	if res.Verdict == VerdictPass {
		res.Verdict = VerdictUnknown
	}
	return res
}

func judgeVisibility(events []trace.Event, h *visibilityData, opts SearchOptions) Result {
	violations := h.readBounds(events)
	res := newResult(PropSinkVisibility, violations)
	if len(h.reads) == 0 {
		return unknownResult(PropSinkVisibility, "no sink.read: no reader of the external store to judge")
	}
	if len(violations) > 0 && opts.Picture == nil {
		return res
	}
	budget := opts.steps()
	var used int64
	deadline := time.Now().Add(opts.timeout())
	for _, seg := range h.segments() {
		// Rendered only for a segment that fails or goes to porcupine: most have one read.
		message := func() string {
			return fmt.Sprintf("reads of the external store around seq %d..%d have no linearization",
				events[seg.first].Seq, events[seg.last].Seq)
		}
		if len(seg.reads) == 1 {
			// Decided without a search (visibility_single.go); porcupine is asked only for
			// the picture of a violation.
			if singleReadLinearizable(seg.base, seg.commits, seg.reads[0]) {
				continue
			}
			res = mergeOutcome(res, linz.Outcome{Result: porcupine.Illegal}, events, seg.lastRead, message())
			if opts.Picture != nil {
				res.Note = joinNote(res.Note, visualize(seg, h.clients, opts, budget-used, time.Until(deadline)))
			}
			return res
		}
		remaining := time.Until(deadline)
		if remaining <= 0 {
			return mergeOutcome(res, linz.Outcome{Result: porcupine.Unknown, TimedOut: true}, events, -1, "")
		}
		if used >= budget {
			return mergeOutcome(res, linz.Outcome{Result: porcupine.Unknown, Steps: budget, OutOfSteps: true}, events, -1, "")
		}
		outcome, err := linz.Run(linz.CounterModel(seg.base), seg.ops, linz.Limits{Steps: budget - used, Timeout: remaining}, opts.Picture, h.clients...)
		used += outcome.Steps
		if outcome.OutOfSteps {
			outcome.Steps = budget // the note names the property's budget, not the segment's rest
		}
		if err != nil {
			res.Note = joinNote(res.Note, err.Error())
		}
		if outcome.Result == porcupine.Illegal && err == nil && opts.Picture != nil {
			res.Note = joinNote(res.Note, pictureNote)
		}
		why := "" // mergeOutcome reads it only for Illegal
		if outcome.Result == porcupine.Illegal {
			why = message()
		}
		res = mergeOutcome(res, outcome, events, seg.lastRead, why)
		if outcome.Result != porcupine.Ok {
			return res
		}
	}
	return res
}

// visualize asks porcupine to draw a segment already known to have no linearization, within
// what is left of the budget, and returns the note that says it was drawn or why
// there is none. The verdict never depends on it.
func visualize(seg visibilitySegment, clients []string, opts SearchOptions, steps int64, timeout time.Duration) string {
	if steps <= 0 || timeout <= 0 {
		return "no visualization: porcupine's budget is spent"
	}
	outcome, err := linz.Run(linz.CounterModel(seg.base), seg.ops, linz.Limits{Steps: steps, Timeout: timeout}, opts.Picture, clients...)
	switch {
	case err != nil:
		return err.Error()
	case outcome.Result != porcupine.Illegal:
		return "no visualization: porcupine could not finish its search within its budget"
	}
	return pictureNote
}

// visibilityOp is one commit or read of the external store.
type visibilityOp struct {
	call, ret int64
	index     int   // the event that ends it
	records   int64 // added by a commit, seen by a read
	read      bool
	client    int
	seq       uint64
}

type visibilityData struct {
	commits []visibilityOp // in trace order, so by return
	reads   []visibilityOp // in trace order
	// unreadable counts the reads without a records attribute, left out of reads.
	unreadable, firstUnreadable int
	// clients names porcupine's clients by id: the sinks and readers they stand for.
	clients []string
}

func visibilityHistory(events []trace.Event) *visibilityData {
	h := &visibilityData{}
	clients := make(map[string]int)
	client := func(task string) int {
		id, ok := clients[task]
		if !ok {
			id = len(clients)
			clients[task] = id
		}
		return id
	}
	out := replayOutput(newTraceIndex(events), nil, false)
	writes := out.storeWrites
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindSinkCommit, trace.KindSinkUpsert:
			w := writes[0]
			writes = writes[1:]
			if w.index != i {
				panic(fmt.Sprintf("checker: store write at index %d, expected %d", w.index, i))
			}
			h.commits = append(h.commits, visibilityOp{
				call: callPos(events, i), ret: returnPos(i), index: i, records: w.records, client: client(e.Task), seq: e.Seq,
			})
		case trace.KindSinkRead:
			seen, ok := intAttr(e, trace.AttrRecords)
			if !ok {
				if h.unreadable == 0 {
					h.firstUnreadable = i
				}
				h.unreadable++
				continue
			}
			h.reads = append(h.reads, visibilityOp{
				call: callPos(events, i), ret: returnPos(i), index: i, records: seen, read: true, client: client(e.Task), seq: e.Seq,
			})
		}
	}
	h.clients = make([]string, len(clients))
	for task, id := range clients {
		h.clients[id] = task
	}
	return h
}

// readBounds pins reads that no linearization can explain.
func (h *visibilityData) readBounds(events []trace.Event) []Violation {
	// committedBefore[k]: records added by the first k commits to return.
	committedBefore := make([]int64, len(h.commits)+1)
	for k, c := range h.commits {
		committedBefore[k+1] = committedBefore[k] + c.records
	}
	byCall := slices.Clone(h.commits)
	slices.SortStableFunc(byCall, func(a, b visibilityOp) int { return cmp.Compare(a.call, b.call) })
	invokedBefore := make([]int64, len(byCall)+1)
	for k, c := range byCall {
		invokedBefore[k+1] = invokedBefore[k] + c.records
	}
	var violations []Violation
	// Reads return in trace order, so the highest count seen by reads returned before a
	// read's call is a prefix maximum over reads[:j].
	highest := make([]int64, len(h.reads)+1)
	highestAt := make([]int, len(h.reads)+1)
	highestAt[0] = -1
	for k, r := range h.reads {
		highest[k+1], highestAt[k+1] = highest[k], highestAt[k]
		if r.records > highest[k] || highestAt[k] < 0 {
			highest[k+1], highestAt[k+1] = r.records, r.index
		}
	}
	for _, r := range h.reads {
		e := &events[r.index]
		returned := sort.Search(len(h.commits), func(k int) bool { return h.commits[k].ret >= r.call })
		invoked := sort.Search(len(byCall), func(k int) bool { return byCall[k].call > r.ret })
		earlier := sort.Search(len(h.reads), func(k int) bool { return h.reads[k].ret >= r.call })
		floor, ceiling := committedBefore[returned], invokedBefore[invoked]
		switch {
		case r.records > ceiling:
			violations = append(violations, violationAt(PropSinkVisibility, e,
				"reader %s saw %d records, but at most %d were committed: uncommitted output is visible",
				e.Task, r.records, ceiling))
		case r.records < floor:
			violations = append(violations, violationAt(PropSinkVisibility, e,
				"reader %s saw %d records after %d had been committed: committed output is missing",
				e.Task, r.records, floor))
		case highestAt[earlier] >= 0 && r.records < highest[earlier]:
			violations = append(violations, violationAt(PropSinkVisibility, e,
				"reader %s saw %d records after a read at seq %d saw %d: the output shrank",
				e.Task, r.records, events[highestAt[earlier]].Seq, highest[earlier]))
		}
	}
	return violations
}

// visibilitySegment is a stretch of the history between quiescent points.
type visibilitySegment struct {
	base        int64 // records committed before it
	commits     []visibilityOp
	reads       []visibilityOp
	ops         []porcupine.Operation
	first, last int // indices of its first and last events
	lastRead    int // index of its last read, where a violation is pinned
}

// segments splits the history where no operation is in flight, keeping the segments that
// hold a read; the others are linearizable whatever they do.
func (h *visibilityData) segments() []visibilitySegment {
	all := append(slices.Clone(h.commits), h.reads...)
	slices.SortStableFunc(all, func(a, b visibilityOp) int { return cmp.Compare(a.call, b.call) })
	var segments []visibilitySegment
	var base, added int64
	var current []visibilityOp
	var reach int64 = -1 // latest return among current's operations
	flush := func() {
		if slices.ContainsFunc(current, func(op visibilityOp) bool { return op.read }) {
			seg := visibilitySegment{base: base, first: current[0].index, last: current[0].index}
			for _, op := range current {
				if op.read {
					seg.reads = append(seg.reads, op)
				} else {
					seg.commits = append(seg.commits, op)
				}
				seg.ops = append(seg.ops, op.operation())
				seg.first = min(seg.first, op.index)
				seg.last = max(seg.last, op.index)
				if op.read {
					seg.lastRead = max(seg.lastRead, op.index)
				}
			}
			segments = append(segments, seg)
		}
		base += added
		added = 0
		current = current[:0]
	}
	for _, op := range all {
		if len(current) > 0 && op.call > reach {
			flush()
		}
		current = append(current, op)
		reach = max(reach, op.ret)
		if !op.read {
			added += op.records
		}
	}
	if len(current) > 0 {
		flush()
	}
	return segments
}

func (op visibilityOp) operation() porcupine.Operation {
	if op.read {
		return porcupine.Operation{ClientId: op.client, Input: linz.CounterRead{}, Output: op.records,
			Call: op.call, Return: op.ret, Metadata: seqLabel(op.seq)}
	}
	return porcupine.Operation{ClientId: op.client, Input: linz.CounterAdd{N: op.records},
		Call: op.call, Return: op.ret, Metadata: seqLabel(op.seq)}
}

// seqLabel is the metadata of a porcupine operation: the seq of the event it stands for,
// shown as "seq N" in porcupine's picture (which prints metadata with %v). It is rendered
// only if a picture is drawn, where a string would be made for every operation searched.
type seqLabel uint64

func (s seqLabel) String() string { return "seq " + strconv.FormatUint(uint64(s), 10) }
