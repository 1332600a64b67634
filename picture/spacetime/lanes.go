package spacetime

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// coordinatorLane is the task name the schema gives the checkpoint coordinator. It always
// has a lane, the first, even in a trace where it emits nothing: a reader looks for it there.
const coordinatorLane = "coordinator"

// laneOrder returns the lanes of the picture: the coordinator, then every task, grouped by
// operator and ordered by subtask index within one ("sum-2" before "sum-10").
//
// Operators come in the order their first event appears in the trace, not by name: a run
// starts its sources first and its sinks last, so the lanes read in dataflow order
// (source, sum, sink) where sorting by name would give sink, source, sum. The order is a
// function of the trace alone, so the page stays deterministic.
func laneOrder(events []trace.Event) []string {
	type lane struct {
		name, op string
		index    int // -1 when the name has no "-N" suffix
		first    int // position of the operator's first event
	}
	opFirst := map[string]int{}
	seen := map[string]bool{coordinatorLane: true}
	var lanes []lane
	add := func(name string, pos int) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		op, index := splitTask(name)
		if _, ok := opFirst[op]; !ok {
			opFirst[op] = pos
		}
		lanes = append(lanes, lane{name: name, op: op, index: index})
	}
	for i := range events {
		e := &events[i]
		if e.Kind == trace.KindFault || e.Kind == trace.KindPhase {
			// Harness events name links and hosts, not tasks that run.
			continue
		}
		add(e.Task, i)
		if isSend(e.Kind) || isRecv(e.Kind) {
			add(e.From, i)
			add(e.To, i)
		}
	}
	for i := range lanes {
		lanes[i].first = opFirst[lanes[i].op]
	}
	slices.SortFunc(lanes, func(a, b lane) int {
		return cmp.Or(
			cmp.Compare(a.first, b.first),
			cmp.Compare(a.op, b.op),
			cmp.Compare(a.index, b.index),
			cmp.Compare(a.name, b.name),
		)
	})
	names := make([]string, 0, len(lanes)+1)
	names = append(names, coordinatorLane)
	for _, l := range lanes {
		names = append(names, l.name)
	}
	return names
}

// splitTask splits a task id "op-N" into its operator and subtask index; a name without a
// numeric suffix is an operator of its own with index -1.
func splitTask(name string) (op string, index int) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name, -1
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || name[i+1] == '+' {
		return name, -1
	}
	return name[:i], n
}

// isSend and isRecv recognise the two ends of a message: barrier.send/recv,
// record.send/recv, and any later kind named the same way (a cancel marker, a control
// message), so that a new message kind is drawn as arrows without a change here.
func isSend(kind string) bool { return strings.HasSuffix(kind, ".send") }
func isRecv(kind string) bool { return strings.HasSuffix(kind, ".recv") }

// laneLives returns, per lane, the virtual times its line runs between, as pairs: the whole
// run, but for a task that a rescale started (its line begins at its first event) or did
// away with (its line ends at its last one), so that the picture shows the job's tasks
// change.
func laneLives(events []trace.Event, lanes []string, t0, t1 int64) []int64 {
	first := map[string]int{} // index of each task's first event
	last := map[string]int64{}
	firstRescale := -1
	var final map[string]bool // the last rescale's tasks
	for i := range events {
		e := &events[i]
		if e.Kind == trace.KindJobResubmit {
			if list, ok := e.Attr(trace.AttrTasks); ok {
				if firstRescale < 0 {
					firstRescale = i
				}
				final = map[string]bool{}
				for _, t := range strings.Fields(list) {
					final[t] = true
				}
			}
		}
		if _, seen := first[e.Task]; !seen {
			first[e.Task] = i
		}
		last[e.Task] = e.T
	}
	lives := make([]int64, 0, 2*len(lanes))
	for _, name := range lanes {
		start, end := t0, t1
		if final != nil && name != trace.CoordinatorTask {
			if i := first[name]; i > firstRescale {
				start = events[i].T
			}
			if !final[name] {
				end = last[name]
			}
		}
		lives = append(lives, start, end)
	}
	return lives
}
