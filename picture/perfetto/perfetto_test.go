package perfetto_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/picture/perfetto"
	"github.com/ckptsim/ckptsim/trace"
)

const ms = int64(1_000_000)

// run builds a trace the way a recorder does: seq in order of the events.
func run(events ...trace.Event) []trace.Event {
	for i := range events {
		events[i].Seq = uint64(i)
	}
	return events
}

func attrs(kv ...string) []trace.Attr {
	var out []trace.Attr
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, trace.Attr{Key: kv[i], Value: kv[i+1]})
	}
	return out
}

func phase(t int64, name string) trace.Event {
	return trace.Event{T: t, Kind: trace.KindPhase, Attrs: attrs(trace.AttrPhase, name)}
}

func coord(t int64, kind string, cp uint64) trace.Event {
	return trace.Event{T: t, Kind: kind, Task: "coordinator", CP: cp}
}

func at(t int64, kind, task string, cp uint64) trace.Event {
	return trace.Event{T: t, Kind: kind, Task: task, CP: cp}
}

func send(t int64, from, to string, cp uint64) trace.Event {
	return trace.Event{T: t, Kind: trace.KindBarrierSend, Task: from, To: to, CP: cp}
}

func recv(t int64, to, from string, cp uint64) trace.Event {
	return trace.Event{T: t, Kind: trace.KindBarrierRecv, Task: to, From: from, CP: cp}
}

// representative is a small job, two sources feeding a join feeding a sink, through what a
// simulated run shows: a completed checkpoint with alignment at the join, a savepoint and a
// checkpoint in flight at once (one declined at the join while the other's snapshot is
// still open), a barrier a windowed network fault drops, a task crash and failover, a
// coordinator crash with a checkpoint in flight, one checkpoint left unfinished, a storage
// fault that never ends, and the phases.
func representative() ([]trace.Event, []checker.Violation) {
	events := run(
		at(0, trace.KindTaskRestore, "src-0", 0),
		at(0, trace.KindTaskRestore, "src-1", 0),
		at(0, trace.KindTaskRestore, "join-0", 0),
		at(0, trace.KindTaskRestore, "sink-0", 0),
		phase(0, "fault"),

		// checkpoint 1: aligned at join-0 from 10.5ms to 11ms.
		coord(10*ms, trace.KindCheckpointTrigger, 1),
		at(10*ms+100_000, trace.KindSnapshotTaken, "src-0", 1),
		send(10*ms+100_000, "src-0", "join-0", 1),
		at(10*ms+200_000, trace.KindSnapshotTaken, "src-1", 1),
		send(10*ms+200_000, "src-1", "join-0", 1),
		at(10*ms+300_000, trace.KindSnapshotAck, "src-0", 1),
		at(10*ms+400_000, trace.KindSnapshotAck, "src-1", 1),
		recv(10*ms+500_000, "join-0", "src-0", 1),
		recv(11*ms, "join-0", "src-1", 1),
		at(11*ms, trace.KindSnapshotTaken, "join-0", 1),
		send(11*ms, "join-0", "sink-0", 1),
		recv(11*ms+400_000, "sink-0", "join-0", 1),
		at(11*ms+450_000, trace.KindSnapshotTaken, "sink-0", 1), // one input: no alignment
		trace.Event{T: 11*ms + 500_000, Kind: trace.KindSinkPrecommit, Task: "sink-0", CP: 1, Txn: "sink-0.t1"},
		at(11*ms+600_000, trace.KindSnapshotAck, "join-0", 1),
		at(11*ms+800_000, trace.KindSnapshotAck, "sink-0", 1),
		coord(12*ms, trace.KindCheckpointPersist, 1),
		coord(12*ms+500_000, trace.KindCheckpointComplete, 1),
		at(12*ms+600_000, trace.KindNotifyComplete, "src-0", 1),
		at(12*ms+600_000, trace.KindNotifyComplete, "src-1", 1),
		at(12*ms+700_000, trace.KindNotifyComplete, "join-0", 1),
		at(12*ms+800_000, trace.KindNotifyComplete, "sink-0", 1),
		trace.Event{T: 13 * ms, Kind: trace.KindSinkCommit, Task: "sink-0", CP: 1, Txn: "sink-0.t1", Attrs: attrs(trace.AttrRecords, "4", trace.AttrStart, "12900000")},

		// savepoint 2 (20ms-24ms) and checkpoint 3 (21ms-26ms) overlap without nesting.
		trace.Event{T: 20 * ms, Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 2, Attrs: attrs(trace.AttrSavepoint, "true")},
		at(20*ms+100_000, trace.KindSnapshotTaken, "src-0", 2),
		send(20*ms+100_000, "src-0", "join-0", 2),
		at(20*ms+100_000, trace.KindSnapshotTaken, "src-1", 2),
		send(20*ms+100_000, "src-1", "join-0", 2),
		at(20*ms+200_000, trace.KindSnapshotAck, "src-0", 2),
		at(20*ms+200_000, trace.KindSnapshotAck, "src-1", 2),
		recv(20*ms+500_000, "join-0", "src-0", 2),
		coord(21*ms, trace.KindCheckpointTrigger, 3),
		trace.Event{T: 21 * ms, Kind: trace.KindFault, Fault: "net.drop", From: "src-1", To: "join-0", Attrs: attrs("entry", "1", "id", "7", "message", "barrier", "window_ns", "5000000")},
		at(21*ms+100_000, trace.KindSnapshotTaken, "src-0", 3),
		send(21*ms+100_000, "src-0", "join-0", 3),
		at(21*ms+100_000, trace.KindSnapshotTaken, "src-1", 3),
		send(21*ms+100_000, "src-1", "join-0", 3), // dropped
		recv(21*ms+500_000, "join-0", "src-1", 2),
		at(21*ms+500_000, trace.KindSnapshotTaken, "join-0", 2),
		send(21*ms+500_000, "join-0", "sink-0", 2),
		recv(22*ms, "join-0", "src-0", 3),
		recv(22*ms+100_000, "sink-0", "join-0", 2),
		at(22*ms+100_000, trace.KindSnapshotTaken, "sink-0", 2),
		at(22*ms+300_000, trace.KindSnapshotAck, "sink-0", 2),
		at(23*ms+500_000, trace.KindSnapshotAck, "join-0", 2),
		coord(23*ms+800_000, trace.KindCheckpointPersist, 2),
		coord(24*ms, trace.KindCheckpointComplete, 2),
		trace.Event{T: 25*ms + 500_000, Kind: trace.KindSnapshotDecline, Task: "join-0", CP: 3, Reason: "alignment-timeout"},
		trace.Event{T: 26 * ms, Kind: trace.KindFault, Fault: "net.drop", From: "src-1", To: "join-0", Attrs: attrs("end", "true", "entry", "1", "id", "7", "message", "barrier", "window_ns", "5000000")},
		trace.Event{T: 26 * ms, Kind: trace.KindCheckpointAbort, Task: "coordinator", CP: 3, Reason: "declined"},
		at(26*ms+100_000, trace.KindNotifyAbort, "src-0", 3),

		// A task crash and the failover to checkpoint 2.
		trace.Event{T: 30 * ms, Kind: trace.KindFault, Fault: "crash.task", Task: "join-0", Attrs: attrs("entry", "2", "id", "8")},
		trace.Event{T: 30 * ms, Kind: trace.KindTaskCrash, Task: "join-0", Reason: "fault"},
		trace.Event{T: 31 * ms, Kind: trace.KindJobFailover, Task: "coordinator", CP: 2, Reason: "task-failure"},
		at(35*ms, trace.KindTaskRestore, "src-0", 2),
		at(35*ms, trace.KindTaskRestore, "src-1", 2),
		at(35*ms, trace.KindTaskRestore, "join-0", 2),
		at(35*ms, trace.KindTaskRestore, "sink-0", 2),

		// A coordinator crash with checkpoint 4 in flight.
		coord(38*ms, trace.KindCheckpointTrigger, 4),
		trace.Event{T: 40 * ms, Kind: trace.KindFault, Fault: "storage.torn", Attrs: attrs("entry", "3", "id", "9", "probability", "0.5", "store", "metadata", "window_ns", "100000000")},
		trace.Event{T: 40 * ms, Kind: trace.KindFault, Fault: "crash.coordinator", Task: "coordinator", Attrs: attrs("entry", "4", "id", "10")},
		coord(40*ms, trace.KindCoordinatorCrash, 0),
		coord(45*ms, trace.KindCoordinatorRecover, 2),
		trace.Event{T: 45 * ms, Kind: trace.KindJobFailover, Task: "coordinator", CP: 2, Reason: "coordinator-recovery"},

		// Checkpoint 5 never ends.
		phase(50*ms, "heal"),
		coord(52*ms, trace.KindCheckpointTrigger, 5),
		at(53*ms, trace.KindSnapshotTaken, "src-0", 5),
		phase(55*ms, "liveness"),
		at(58*ms, trace.KindTaskFinish, "src-1", 0),
		phase(60*ms, "end"),
	)
	commit := slices.IndexFunc(events, func(e trace.Event) bool { return e.Kind == trace.KindSinkCommit })
	violations := []checker.Violation{
		{Property: checker.PropExactlyOnce, Message: `record "src-0:4" duplicated: committed 2 times, expected 1`, Seq: uint64(commit), T: 13 * ms, Task: "sink-0", CP: 1},
		{Property: checker.PropLiveness, Message: "no checkpoint completed after the liveness phase began", Seq: uint64(len(events) - 1), T: 60 * ms},
	}
	return events, violations
}

// out is one parsed element of traceEvents.
type out struct {
	Name    string          `json:"name"`
	Cat     string          `json:"cat"`
	Ph      string          `json:"ph"`
	Ts      json.Number     `json:"ts"`
	Dur     json.Number     `json:"dur"`
	Pid     int             `json:"pid"`
	Tid     int             `json:"tid"`
	S       string          `json:"s"`
	BindID  string          `json:"bind_id"`
	FlowOut bool            `json:"flow_out"`
	FlowIn  bool            `json:"flow_in"`
	ID      json.RawMessage `json:"id"`
	Args    map[string]any  `json:"args"`
}

type file struct {
	TraceEvents     []out          `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	Metadata        map[string]any `json:"metadata"`

	threads map[string]int // thread_name -> tid
	names   map[int]string
}

func write(t *testing.T, events []trace.Event, violations []checker.Violation) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := perfetto.Write(&buf, events, violations); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

func decode(t *testing.T, raw []byte) *file {
	t.Helper()
	if !json.Valid(raw) {
		t.Fatalf("output is not valid JSON:\n%s", raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if f.TraceEvents == nil {
		t.Fatal("no traceEvents array")
	}
	f.threads = map[string]int{}
	f.names = map[int]string{}
	for _, e := range f.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			name, _ := e.Args["name"].(string)
			if _, dup := f.threads[name]; dup {
				t.Errorf("thread name %q given twice", name)
			}
			f.threads[name] = e.Tid
			f.names[e.Tid] = name
		}
	}
	return &f
}

// nanos parses a ts or dur, microseconds as a decimal, back to exact nanoseconds.
func nanos(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 {
		t.Fatalf("%s has more than nanosecond precision", n)
	}
	frac += strings.Repeat("0", 3-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad number %q", n)
	}
	v := w*1000 + f
	if neg {
		v = -v
	}
	return v
}

func (f *file) find(pred func(e out) bool) []out {
	var res []out
	for _, e := range f.TraceEvents {
		if pred(e) {
			res = append(res, e)
		}
	}
	return res
}

func (f *file) named(name string) []out {
	return f.find(func(e out) bool { return e.Name == name })
}

func argNum(t *testing.T, e out, key string) int64 {
	t.Helper()
	n, ok := e.Args[key].(json.Number)
	if !ok {
		t.Fatalf("%s: arg %s is %v, not a number", e.Name, key, e.Args[key])
	}
	v, err := n.Int64()
	if err != nil {
		t.Fatalf("%s: arg %s: %v", e.Name, key, err)
	}
	return v
}

func TestWriteIsTraceEventJSONObjectFormat(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	if f.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit = %q, want ns", f.DisplayTimeUnit)
	}
	if f.Metadata == nil {
		t.Error("no metadata object")
	}
	known := map[string]bool{"X": true, "i": true, "M": true}
	for _, e := range f.TraceEvents {
		if !known[e.Ph] {
			t.Errorf("event %q has phase %q; only X, i and M are written", e.Name, e.Ph)
		}
		if e.Pid != 1 {
			t.Errorf("event %q has pid %d, want 1", e.Name, e.Pid)
		}
		if _, ok := f.names[e.Tid]; !ok {
			t.Errorf("event %q on tid %d, which has no thread_name", e.Name, e.Tid)
		}
		switch e.Ph {
		case "X":
			if e.Ts == "" || e.Dur == "" {
				t.Errorf("complete event %q lacks ts or dur", e.Name)
			} else if nanos(t, e.Dur) < 0 {
				t.Errorf("complete event %q has dur %s < 0", e.Name, e.Dur)
			}
		case "i":
			if e.S != "t" && e.S != "g" {
				t.Errorf("instant %q has scope %q", e.Name, e.S)
			}
			if e.Ts == "" {
				t.Errorf("instant %q lacks ts", e.Name)
			}
		case "M":
			if e.Name != "process_name" && e.Name != "thread_name" && e.Name != "thread_sort_index" {
				t.Errorf("unexpected metadata event %q", e.Name)
			}
		}
		if (e.FlowIn || e.FlowOut) && (e.Ph != "X" || e.BindID == "") {
			t.Errorf("flow on %q: phase %q, bind_id %q", e.Name, e.Ph, e.BindID)
		}
	}
	if p := f.named("process_name"); len(p) != 1 || p[0].Args["name"] != "job" {
		t.Errorf("process_name events: %+v", p)
	}
}

func TestEveryTaskHasANamedTrackCoordinatorFirst(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	for _, e := range events {
		for _, name := range []string{e.Task, e.From, e.To} {
			if _, ok := f.threads[name]; name != "" && !ok {
				t.Errorf("task %q has no thread_name", name)
			}
		}
	}
	if tid := f.threads["coordinator"]; tid != 1 {
		t.Errorf("coordinator is tid %d, want 1", tid)
	}
	sortIndex := map[int]int64{}
	for _, e := range f.named("thread_sort_index") {
		sortIndex[e.Tid] = argNum(t, e, "sort_index")
	}
	var order []string
	for tid := 1; tid <= len(f.names); tid++ {
		name, ok := f.names[tid]
		if !ok {
			t.Fatalf("tids are not 1..%d: %v", len(f.names), f.names)
		}
		if sortIndex[tid] != int64(tid) {
			t.Errorf("%s: thread_sort_index %d, tid %d", name, sortIndex[tid], tid)
		}
		order = append(order, name)
	}
	want := []string{"coordinator", "coordinator #2", "phases", "faults", "src-0", "src-1", "join-0", "join-0 #2", "sink-0"}
	if !slices.Equal(order, want) {
		t.Errorf("tracks in order %q, want %q", order, want)
	}
}

func TestTaskOrderFamiliesThenNatural(t *testing.T) {
	events := run(
		send(0, "source-10", "sum-10", 1),
		send(0, "source-2", "sum-2", 1),
		at(0, trace.KindTaskRestore, "sum-1", 0),
		at(0, trace.KindTaskRestore, "sink-0", 0),
	)
	f := decode(t, write(t, events, nil))
	var order []string
	for tid := 1; tid <= len(f.names); tid++ {
		order = append(order, f.names[tid])
	}
	want := []string{"coordinator", "source-2", "source-10", "sum-1", "sum-2", "sum-10", "sink-0"}
	if !slices.Equal(order, want) {
		t.Errorf("tracks in order %q, want %q", order, want)
	}
}

// TestDurationEventsNest replays each thread the way Perfetto's importer does (a slice ends
// at ts+dur and is popped when an event at or after its end arrives) and requires every
// slice and instant to nest in the slice open on its thread: the trace-event format forbids
// overlapping duration events on one thread. It also requires ts to be monotone per thread.
func TestDurationEventsNest(t *testing.T) {
	events, violations := representative()
	checkNesting(t, decode(t, write(t, events, violations)))
}

func checkNesting(t *testing.T, f *file) {
	t.Helper()
	type open struct {
		name       string
		start, end int64
	}
	stacks := map[int][]open{}
	last := map[int]int64{}
	for _, e := range f.TraceEvents {
		if e.Ph != "X" && !(e.Ph == "i" && e.S == "t") {
			continue
		}
		start := nanos(t, e.Ts)
		end := start
		if e.Ph == "X" {
			end += nanos(t, e.Dur)
		}
		if l, ok := last[e.Tid]; ok && start < l {
			t.Errorf("%s: %q at %d after an event at %d", f.names[e.Tid], e.Name, start, l)
		}
		last[e.Tid] = start
		st := stacks[e.Tid]
		for len(st) > 0 && st[len(st)-1].end <= start {
			st = st[:len(st)-1]
		}
		if len(st) > 0 {
			top := st[len(st)-1]
			if end > top.end {
				t.Errorf("%s: %q [%d,%d] overlaps %q [%d,%d] without nesting", f.names[e.Tid], e.Name, start, end, top.name, top.start, top.end)
			}
			if end > start && start == top.start {
				t.Errorf("%s: %q and %q start together at %d", f.names[e.Tid], e.Name, top.name, start)
			}
		}
		if e.Ph == "X" {
			st = append(st, open{e.Name, start, end})
		}
		stacks[e.Tid] = st
	}
}

func TestBarrierFlowsPairSendAndReceive(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	outs := map[string]out{}
	ins := map[string]out{}
	for _, e := range f.TraceEvents {
		if e.FlowOut {
			if _, dup := outs[e.BindID]; dup {
				t.Errorf("two flow starts with id %s", e.BindID)
			}
			outs[e.BindID] = e
		}
		if e.FlowIn {
			if _, dup := ins[e.BindID]; dup {
				t.Errorf("two flow ends with id %s", e.BindID)
			}
			ins[e.BindID] = e
		}
	}
	recvs := 0
	for _, e := range events {
		if e.Kind == trace.KindBarrierRecv {
			recvs++
		}
	}
	if len(outs) != recvs || len(ins) != recvs {
		t.Fatalf("%d flow starts and %d flow ends for %d received barriers", len(outs), len(ins), recvs)
	}
	for id, s := range outs {
		r, ok := ins[id]
		if !ok {
			t.Errorf("flow %s has no end", id)
			continue
		}
		si, ri := events[argNum(t, s, "seq")], events[argNum(t, r, "seq")]
		if si.Kind != trace.KindBarrierSend || ri.Kind != trace.KindBarrierRecv {
			t.Errorf("flow %s joins %s and %s", id, si.Kind, ri.Kind)
			continue
		}
		if si.Task != ri.From || si.To != ri.Task || si.CP != ri.CP {
			t.Errorf("flow %s joins %v and %v", id, si, ri)
		}
		if s.Tid != f.threads[si.Task] || r.Tid != f.threads[ri.Task] {
			t.Errorf("flow %s on tids %d -> %d, want %s -> %s", id, s.Tid, r.Tid, si.Task, ri.Task)
		}
		if nanos(t, s.Ts) != si.T || nanos(t, r.Ts) != ri.T {
			t.Errorf("flow %s at %s -> %s, want %d -> %d ns", id, s.Ts, r.Ts, si.T, ri.T)
		}
	}
	// The barrier the fault dropped has its slice, no arrow, and says so.
	dropped := f.find(func(e out) bool {
		return e.Name == "barrier -> join-0" && e.Args["cp"] == json.Number("3") && f.names[e.Tid] == "src-1"
	})
	if len(dropped) != 1 || dropped[0].BindID != "" || dropped[0].Args["delivered"] != false {
		t.Errorf("dropped barrier: %+v", dropped)
	}
}

func TestCheckpointSlicesOnTheCoordinator(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	want := []struct {
		name       string
		start, end int64
		outcome    string
		reason     string
	}{
		{"checkpoint 1", 10 * ms, 12*ms + 500_000, "completed", ""},
		{"savepoint 2", 20 * ms, 24 * ms, "completed", ""},
		{"checkpoint 3", 21 * ms, 26 * ms, "aborted", "declined"},
		{"checkpoint 4", 38 * ms, 40 * ms, "coordinator crashed", ""},
		{"checkpoint 5", 52 * ms, 60 * ms, "unfinished", ""},
	}
	tids := map[int]bool{}
	for _, w := range want {
		got := f.find(func(e out) bool { return e.Name == w.name && e.Ph == "X" })
		if len(got) != 1 {
			t.Errorf("%s: %d slices", w.name, len(got))
			continue
		}
		e := got[0]
		start := nanos(t, e.Ts)
		if start != w.start || start+nanos(t, e.Dur) != w.end {
			t.Errorf("%s: [%d,%d], want [%d,%d]", w.name, start, start+nanos(t, e.Dur), w.start, w.end)
		}
		if name := f.names[e.Tid]; !strings.HasPrefix(name, "coordinator") {
			t.Errorf("%s on track %q", w.name, name)
		}
		tids[e.Tid] = true
		if e.Args["outcome"] != w.outcome {
			t.Errorf("%s: outcome %v, want %s", w.name, e.Args["outcome"], w.outcome)
		}
		if r, _ := e.Args["reason"].(string); r != w.reason {
			t.Errorf("%s: reason %q, want %q", w.name, r, w.reason)
		}
	}
	// Savepoint 2 and checkpoint 3 overlap without nesting: two lanes.
	if len(tids) != 2 {
		t.Errorf("checkpoints on %d coordinator threads, want 2", len(tids))
	}
}

func TestAlignmentAndSnapshotSlicesAtTasks(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	align := f.find(func(e out) bool { return e.Cat == "alignment" })
	type span struct {
		task       string
		name       string
		start, end int64
		outcome    string
	}
	var got []span
	for _, e := range align {
		s := nanos(t, e.Ts)
		got = append(got, span{strings.TrimSuffix(f.names[e.Tid], " #2"), e.Name, s, s + nanos(t, e.Dur), e.Args["outcome"].(string)})
	}
	want := []span{
		{"join-0", "alignment 1", 10*ms + 500_000, 11 * ms, "aligned"},
		{"join-0", "alignment 2", 20*ms + 500_000, 21*ms + 500_000, "aligned"},
		{"join-0", "alignment 3", 22 * ms, 25*ms + 500_000, "declined"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("alignments:\n got %v\nwant %v", got, want)
	}
	// Only join-0 has two inputs; sink-0 has one and the sources none.
	snaps := f.find(func(e out) bool { return e.Cat == "snapshot" && e.Ph == "X" && e.Name == "snapshot 2" })
	bySnap := map[string][2]int64{}
	for _, e := range snaps {
		s := nanos(t, e.Ts)
		bySnap[strings.TrimSuffix(f.names[e.Tid], " #2")] = [2]int64{s, s + nanos(t, e.Dur)}
	}
	wantSnaps := map[string][2]int64{
		"src-0":  {20*ms + 100_000, 20*ms + 200_000},
		"src-1":  {20*ms + 100_000, 20*ms + 200_000},
		"join-0": {21*ms + 500_000, 23*ms + 500_000},
		"sink-0": {22*ms + 100_000, 22*ms + 300_000},
	}
	for task, w := range wantSnaps {
		if bySnap[task] != w {
			t.Errorf("snapshot 2 at %s: %v, want %v", task, bySnap[task], w)
		}
	}
	// Snapshot 3 at the sources is still open at the crash-driven failover.
	for _, e := range f.find(func(e out) bool { return e.Name == "snapshot 3" }) {
		if e.Args["outcome"] != "failover" || nanos(t, e.Ts)+nanos(t, e.Dur) != 31*ms {
			t.Errorf("snapshot 3 at %s: %v", f.names[e.Tid], e.Args)
		}
	}
	// The alignment of checkpoint 3 overlaps the snapshot of checkpoint 2: a second lane.
	a3 := f.named("alignment 3")
	if len(a3) != 1 || f.names[a3[0].Tid] != "join-0 #2" {
		t.Errorf("alignment 3 not on join-0 #2: %+v", a3)
	}
}

func TestFaults(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	drop := f.find(func(e out) bool { return e.Name == "fault: net.drop" })
	if len(drop) != 1 || drop[0].Ph != "X" || !strings.HasPrefix(f.names[drop[0].Tid], "faults") ||
		nanos(t, drop[0].Ts) != 21*ms || nanos(t, drop[0].Dur) != 5*ms {
		t.Errorf("windowed fault: %+v", drop)
	}
	torn := f.find(func(e out) bool { return e.Name == "fault: storage.torn" })
	if len(torn) != 1 || torn[0].Ph != "X" || nanos(t, torn[0].Ts)+nanos(t, torn[0].Dur) != 60*ms || torn[0].Args["outcome"] != "not ended" {
		t.Errorf("unended windowed fault: %+v", torn)
	}
	crash := f.find(func(e out) bool { return e.Name == "fault: crash.task" })
	if len(crash) != 1 || crash[0].Ph != "i" || crash[0].S != "t" || crash[0].Tid != f.threads["join-0"] || nanos(t, crash[0].Ts) != 30*ms {
		t.Errorf("task crash fault: %+v", crash)
	}
	cc := f.find(func(e out) bool { return e.Name == "fault: crash.coordinator" })
	if len(cc) != 1 || cc[0].Tid != f.threads["coordinator"] {
		t.Errorf("coordinator crash fault: %+v", cc)
	}
}

func TestInstants(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	want := []struct {
		name, track string
		t           int64
	}{
		{"crash", "join-0", 30 * ms},
		{"failover to cp 2", "coordinator", 31 * ms},
		{"coordinator crash", "coordinator", 40 * ms},
		{"coordinator recover", "coordinator", 45 * ms},
		{"restore cp 2", "sink-0", 35 * ms},
		{"restore (fresh start)", "src-1", 0},
		{"finish", "src-1", 58 * ms},
		{"notify complete 1", "join-0", 12*ms + 700_000},
		{"notify abort 3", "src-0", 26*ms + 100_000},
		{"commit 1", "sink-0", 13 * ms},
		{"precommit 1", "sink-0", 11*ms + 500_000},
		{"persist 1", "coordinator", 12 * ms},
	}
	for _, w := range want {
		got := f.find(func(e out) bool {
			return e.Name == w.name && e.Ph == "i" && e.Tid == f.threads[w.track] && nanos(t, e.Ts) == w.t
		})
		if len(got) != 1 {
			t.Errorf("instant %q on %s at %d: found %d", w.name, w.track, w.t, len(got))
		}
	}
}

func TestViolationsAreInstantsAtTheirTaskAndTime(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	v := f.named("violation: exactly-once")
	if len(v) != 1 {
		t.Fatalf("%d exactly-once violation instants", len(v))
	}
	e := v[0]
	if e.Ph != "i" || e.S != "t" || e.Tid != f.threads["sink-0"] || nanos(t, e.Ts) != 13*ms {
		t.Errorf("violation instant: %+v", e)
	}
	if e.Args["message"] != violations[0].Message || argNum(t, e, "seq") != int64(violations[0].Seq) || argNum(t, e, "cp") != 1 {
		t.Errorf("violation args: %v", e.Args)
	}
	g := f.named("violation: liveness")
	if len(g) != 1 || g[0].S != "g" || nanos(t, g[0].Ts) != 60*ms {
		t.Errorf("task-less violation: %+v", g)
	}
}

func TestPhases(t *testing.T) {
	events, violations := representative()
	f := decode(t, write(t, events, violations))
	var got []string
	for _, e := range f.find(func(e out) bool { return e.Cat == "phase" }) {
		if f.names[e.Tid] != "phases" || e.Ph != "X" {
			t.Errorf("phase %q on %s as %s", e.Name, f.names[e.Tid], e.Ph)
		}
		s := nanos(t, e.Ts)
		got = append(got, fmt.Sprintf("%s [%d,%d]", e.Name, s/ms, (s+nanos(t, e.Dur))/ms))
	}
	want := []string{"phase: fault [0,50]", "phase: heal [50,55]", "phase: liveness [55,60]", "phase: end [60,60]"}
	if !slices.Equal(got, want) {
		t.Errorf("phases %q, want %q", got, want)
	}
}

func TestTimestampsAreExactMicroseconds(t *testing.T) {
	events := run(
		coord(1, trace.KindCheckpointTrigger, 1),
		coord(40_557_128, trace.KindCheckpointComplete, 1),
		at(1_500, trace.KindTaskFinish, "a", 0),
		at(math.MaxInt64, trace.KindTaskFinish, "b", 0),
	)
	raw := write(t, events, nil)
	for _, s := range []string{`"ts":0.001,"dur":40557.127`, `"ts":1.5,`, `"ts":9223372036854775.807,`} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("output lacks %s:\n%s", s, raw)
		}
	}
}

func TestDeterministic(t *testing.T) {
	events, violations := representative()
	first := write(t, events, violations)
	for range 20 {
		if again := write(t, slices.Clone(events), slices.Clone(violations)); !bytes.Equal(first, again) {
			t.Fatal("two writes of the same run differ")
		}
	}
}

func TestEmptyTrace(t *testing.T) {
	for _, raw := range [][]byte{write(t, nil, nil), write(t, []trace.Event{}, []checker.Violation{})} {
		f := decode(t, raw)
		if f.threads["coordinator"] != 1 {
			t.Errorf("empty trace: threads %v", f.threads)
		}
		for _, e := range f.TraceEvents {
			if e.Ph != "M" {
				t.Errorf("empty trace has event %+v", e)
			}
		}
	}
}

func TestHostileStringsStayValidJSON(t *testing.T) {
	weird := "a\"b\\c\nd\te</script>\x00\x1f\u2028 \xff\xfe"
	events := run(
		trace.Event{T: 1, Kind: trace.KindCheckpointTrigger, CP: 1},
		trace.Event{T: 2, Kind: trace.KindTaskCrash, Task: weird, Reason: weird},
		trace.Event{T: 3, Kind: trace.KindFault, Fault: weird, Attrs: attrs("id", weird, "window_ns", weird)},
		trace.Event{T: 4, Kind: trace.KindBarrierSend, Task: weird, To: "x", CP: 1},
		trace.Event{T: 5, Kind: trace.KindBarrierRecv, Task: "x", From: weird, CP: 1},
		trace.Event{T: 6, Kind: trace.KindCheckpointAbort, CP: 1, Reason: weird},
		trace.Event{T: 7, Kind: trace.KindPhase, Attrs: attrs(trace.AttrPhase, weird)},
	)
	violations := []checker.Violation{{Property: checker.Property(weird), Message: weird, Task: weird, T: 8}}
	f := decode(t, write(t, events, violations))
	tid := 0
	for name, id := range f.threads {
		if strings.HasPrefix(name, "a\"b\\c\nd") {
			tid = id
		}
	}
	if tid == 0 {
		t.Fatalf("no track for the weird task: %v", f.threads)
	}
	if got := f.find(func(e out) bool { return e.Cat == "violation" && e.Tid == tid }); len(got) != 1 {
		t.Errorf("violation of the weird task: %+v", got)
	}
	checkNesting(t, f)
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteReturnsWriterErrors(t *testing.T) {
	events, violations := representative()
	if err := perfetto.Write(&failingWriter{n: 100}, events, violations); err == nil {
		t.Error("Write to a failing writer returned nil")
	}
}

func TestAStopWithSavepointIsNamedSo(t *testing.T) {
	for _, c := range []struct {
		trigger trace.Event
		name    string
	}{
		{trace.StopTrigger(7), "stop-with-savepoint 7"},
		{trace.DrainTrigger(7), "stop-with-savepoint --drain 7"},
	} {
		name := c.name
		events := []trace.Event{c.trigger, {Kind: trace.KindCheckpointComplete, Task: trace.CoordinatorTask, CP: 7}}
		for i := range events {
			events[i].Seq, events[i].T = uint64(i), int64(i+1)*ms
		}
		f := decode(t, write(t, events, nil))
		if got := f.find(func(e out) bool { return e.Name == name && e.Ph == "X" }); len(got) != 1 {
			t.Fatalf("%d slices named %s", len(got), name)
		}
	}
}
