package perfetto

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// coordinator is the trace's task id for the checkpoint coordinator; coordinator events may
// also leave their task out.
const coordinator = "coordinator"

// pid is the one process, "job", that holds every track.
const pid = 1

// Attribute keys of fault events (the fault package's), read here by name because this
// package imports only trace and checker.
const (
	attrFaultID     = "id"
	attrFaultEnd    = "end"
	attrFaultWindow = "window_ns"
)

// Write writes the run, its trace events and the violations the checkers found in them, as
// Chrome trace-event JSON (see the package documentation for the format and the mapping).
// The same input always gives the same bytes. It returns the first error of w.
func Write(w io.Writer, events []trace.Event, violations []checker.Violation) error {
	b := newBuilder(events, violations)
	b.build()
	return b.write(w)
}

// trackGroup orders the kinds of track: the coordinator first, then the phases and the
// faults, then the tasks.
type trackGroup int

const (
	groupCoordinator trackGroup = iota
	groupPhases
	groupFaults
	groupTask
)

// trackID names one logical track; it may be drawn on several threads (lanes).
type trackID struct {
	group trackGroup
	name  string
}

var (
	coordinatorTrack = trackID{groupCoordinator, coordinator}
	phasesTrack      = trackID{groupPhases, "phases"}
	faultsTrack      = trackID{groupFaults, "faults"}
)

// item is one trace event to write, before its thread is known.
type item struct {
	track  trackID
	global bool // a global instant: no track
	lanes  bool // a slice of positive length laid out in lanes; else on the track's first thread
	start  int64
	end    int64 // == start for instants and zero-length slices
	ev     jsonEvent
	order  int // creation order, the last tie-break of the output order
	lane   int
}

// jsonEvent is one element of traceEvents, its fields in the order they are written.
type jsonEvent struct {
	Name    string         `json:"name"`
	Cat     string         `json:"cat,omitempty"`
	Ph      string         `json:"ph"`
	Ts      json.Number    `json:"ts,omitempty"`
	Dur     json.Number    `json:"dur,omitempty"`
	Pid     int            `json:"pid"`
	Tid     int            `json:"tid"`
	Scope   string         `json:"s,omitempty"`
	BindID  string         `json:"bind_id,omitempty"`
	FlowOut bool           `json:"flow_out,omitempty"`
	FlowIn  bool           `json:"flow_in,omitempty"`
	Args    map[string]any `json:"args,omitempty"`
}

// taskCP keys what is open at one task for one checkpoint.
type taskCP struct {
	task string
	cp   uint64
}

// channelCP keys the barriers of one checkpoint on one channel.
type channelCP struct {
	from, to string
	cp       uint64
}

// open is a slice whose start has been seen and whose end has not.
type open struct {
	e     *trace.Event
	name  string
	cat   string
	track trackID
	args  map[string]any
}

type builder struct {
	events     []trace.Event
	violations []checker.Violation

	tracks  map[trackID]bool
	family  map[string]int // a task family (name less its trailing digits) -> the order it was first named in
	items   []*item
	endT    int64 // the last instant of the run
	inputs  map[string]map[string]bool
	bindOf  map[int]string // event index -> flow id, for matched barriers
	sentTo  map[int]bool   // barrier.send index -> a barrier.recv matched it
	flowCnt int

	checkpoints map[uint64]*open
	alignments  map[taskCP]*open
	snapshots   map[taskCP]*open
	taken       map[taskCP]bool
	faults      map[string]*open
	phase       *open

	threads []thread // in output order, set by layout
}

func newBuilder(events []trace.Event, violations []checker.Violation) *builder {
	return &builder{
		events:      events,
		violations:  violations,
		tracks:      map[trackID]bool{coordinatorTrack: true},
		family:      map[string]int{},
		inputs:      map[string]map[string]bool{},
		bindOf:      map[int]string{},
		sentTo:      map[int]bool{},
		checkpoints: map[uint64]*open{},
		alignments:  map[taskCP]*open{},
		snapshots:   map[taskCP]*open{},
		taken:       map[taskCP]bool{},
		faults:      map[string]*open{},
	}
}

// taskTrack returns the track of a task name, registering it; "" has none.
func (b *builder) taskTrack(name string) (trackID, bool) {
	if name == "" {
		return trackID{}, false
	}
	if name == coordinator {
		return coordinatorTrack, true
	}
	id := trackID{groupTask, name}
	if !b.tracks[id] {
		b.tracks[id] = true
		if _, ok := b.family[familyOf(name)]; !ok {
			b.family[familyOf(name)] = len(b.family)
		}
	}
	return id, true
}

// familyOf returns a task name less its trailing digits: the tasks "sum-0" and "sum-12"
// are of the family "sum-".
func familyOf(name string) string {
	return strings.TrimRightFunc(name, func(r rune) bool { return '0' <= r && r <= '9' })
}

func (b *builder) build() {
	for i := range b.events {
		e := &b.events[i]
		b.endT = max(b.endT, e.T)
		for _, name := range []string{e.Task, e.From, e.To} {
			b.taskTrack(name)
		}
		if e.Kind == trace.KindBarrierRecv && e.Task != "" && e.From != "" {
			if b.inputs[e.Task] == nil {
				b.inputs[e.Task] = map[string]bool{}
			}
			b.inputs[e.Task][e.From] = true
		}
	}
	for _, v := range b.violations {
		b.endT = max(b.endT, v.T)
		b.taskTrack(v.Task)
	}
	b.matchBarriers()
	for i := range b.events {
		b.event(i)
	}
	b.closeAll()
	for _, v := range b.violations {
		b.violation(v)
	}
	b.layout()
}

// matchBarriers pairs each barrier.recv with the oldest unmatched barrier.send of the same
// checkpoint on the same channel, and numbers the pairs in the order of their sends.
func (b *builder) matchBarriers() {
	pending := map[channelCP][]int{}
	recvOf := map[int]int{} // barrier.send index -> the barrier.recv index that matched it
	for i := range b.events {
		e := &b.events[i]
		switch e.Kind {
		case trace.KindBarrierSend:
			if e.Task == "" || e.To == "" {
				continue
			}
			k := channelCP{e.Task, e.To, e.CP}
			pending[k] = append(pending[k], i)
		case trace.KindBarrierRecv:
			if e.Task == "" || e.From == "" {
				continue
			}
			k := channelCP{e.From, e.Task, e.CP}
			if q := pending[k]; len(q) > 0 {
				recvOf[q[0]] = i
				pending[k] = q[1:]
			}
		}
	}
	for i := range b.events {
		recv, ok := recvOf[i]
		if !ok {
			continue
		}
		b.flowCnt++
		id := "0x" + strconv.FormatUint(uint64(b.flowCnt), 16)
		b.bindOf[i] = id
		b.bindOf[recv] = id
		b.sentTo[i] = true
	}
}

// eventArgs returns the args every slice or instant carries about the trace event e.
func eventArgs(e *trace.Event) map[string]any {
	args := map[string]any{
		"kind": e.Kind,
		"seq":  e.Seq,
		"t_ns": e.T,
	}
	for _, f := range []struct{ key, value string }{
		{"task", e.Task}, {"from", e.From}, {"to", e.To}, {"reason", e.Reason},
		{"txn", e.Txn}, {"rid", e.RID}, {"fault", e.Fault},
	} {
		if f.value != "" {
			args[f.key] = f.value
		}
	}
	if e.CP != 0 {
		args["cp"] = e.CP
	}
	if len(e.Attrs) > 0 {
		attrs := make(map[string]any, len(e.Attrs))
		for _, a := range e.Attrs {
			attrs[a.Key] = a.Value
		}
		args["attrs"] = attrs
	}
	return args
}

func (b *builder) add(it *item) {
	it.order = len(b.items)
	it.ev.Pid = pid
	b.items = append(b.items, it)
}

// instant adds an instant at e's time on track, or a global one if there is no track.
func (b *builder) instant(track trackID, ok bool, name, cat string, e *trace.Event) {
	b.instantAt(track, ok, name, cat, e.T, eventArgs(e))
}

func (b *builder) instantAt(track trackID, ok bool, name, cat string, t int64, args map[string]any) {
	it := &item{track: track, global: !ok, start: t, end: t}
	it.ev = jsonEvent{Name: name, Cat: cat, Ph: "i", Ts: micros(t), Args: args, Scope: "t"}
	if !ok {
		it.ev.Scope = "g"
	}
	b.add(it)
}

// slice adds a complete event on track from start to end; positive lengths are laid out
// in lanes.
func (b *builder) slice(track trackID, name, cat string, start, end int64, args map[string]any) *item {
	end = max(end, start)
	it := &item{track: track, lanes: end > start, start: start, end: end}
	it.ev = jsonEvent{Name: name, Cat: cat, Ph: "X", Ts: micros(start), Dur: micros(end - start), Args: args}
	b.add(it)
	return it
}

// close ends o at event e (or, with e nil, at time t) with an outcome.
func (b *builder) close(o *open, e *trace.Event, t int64, outcome string) {
	args := o.args
	args["outcome"] = outcome
	if e != nil {
		t = e.T
		args["end_seq"] = e.Seq
		args["end_kind"] = e.Kind
		if e.Reason != "" {
			args["reason"] = e.Reason
		}
	}
	args["end_t_ns"] = t
	b.slice(o.track, o.name, o.cat, o.e.T, t, args)
}

func cpName(prefix string, cp uint64) string {
	return prefix + " " + strconv.FormatUint(cp, 10)
}

func (b *builder) event(i int) {
	e := &b.events[i]
	task, hasTask := b.taskTrack(e.Task)
	switch e.Kind {
	case trace.KindCheckpointRequest:
		b.instant(coordinatorTrack, true, cpName("request", e.CP), "checkpoint", e)
	case trace.KindCheckpointTrigger:
		if o := b.checkpoints[e.CP]; o != nil {
			b.close(o, e, 0, "triggered again")
		}
		b.checkpoints[e.CP] = &open{e: e, name: cpName(triggerName(e), e.CP), cat: "checkpoint", track: coordinatorTrack, args: eventArgs(e)}
	case trace.KindCheckpointPersist:
		b.instant(coordinatorTrack, true, cpName("persist", e.CP), "checkpoint", e)
	case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
		outcome, verb := "completed", "complete"
		if e.Kind == trace.KindCheckpointAbort {
			outcome, verb = "aborted", "abort"
		}
		if o := b.checkpoints[e.CP]; o != nil {
			delete(b.checkpoints, e.CP)
			b.close(o, e, 0, outcome)
		} else {
			b.instant(coordinatorTrack, true, cpName(verb, e.CP), "checkpoint", e)
		}
	case trace.KindCoordinatorCrash:
		b.instant(coordinatorTrack, true, "coordinator crash", "coordinator", e)
		for _, cp := range sortedKeys(b.checkpoints, cmp.Compare[uint64]) {
			b.close(b.checkpoints[cp], e, 0, "coordinator crashed")
			delete(b.checkpoints, cp)
		}
	case trace.KindCoordinatorRecover:
		b.instant(coordinatorTrack, true, "coordinator recover", "coordinator", e)
	case trace.KindJobFailover:
		name := cpName("failover to cp", e.CP)
		if e.CP == 0 {
			name = "failover (fresh start)"
		}
		b.instant(coordinatorTrack, true, name, "coordinator", e)
		b.closeTask("", e, "failover")

	case trace.KindBarrierSend:
		if !hasTask {
			return
		}
		args := eventArgs(e)
		args["delivered"] = b.sentTo[i]
		it := b.slice(task, "barrier -> "+e.To, "barrier", e.T, e.T, args)
		if id, ok := b.bindOf[i]; ok {
			it.ev.BindID, it.ev.FlowOut = id, true
		}
	case trace.KindBarrierRecv:
		if !hasTask {
			return
		}
		it := b.slice(task, "barrier <- "+e.From, "barrier", e.T, e.T, eventArgs(e))
		if id, ok := b.bindOf[i]; ok {
			it.ev.BindID, it.ev.FlowIn = id, true
		}
		k := taskCP{e.Task, e.CP}
		if len(b.inputs[e.Task]) > 1 && !b.taken[k] && b.alignments[k] == nil {
			args := eventArgs(e)
			args["inputs"] = len(b.inputs[e.Task])
			b.alignments[k] = &open{e: e, name: cpName("alignment", e.CP), cat: "alignment", track: task, args: args}
		}
	case trace.KindSnapshotTaken:
		if !hasTask {
			return
		}
		k := taskCP{e.Task, e.CP}
		if o := b.alignments[k]; o != nil {
			delete(b.alignments, k)
			if e.T > o.e.T {
				b.close(o, e, 0, "aligned")
			}
		}
		b.taken[k] = true
		if o := b.snapshots[k]; o != nil {
			b.close(o, e, 0, "taken again")
		}
		b.snapshots[k] = &open{e: e, name: cpName("snapshot", e.CP), cat: "snapshot", track: task, args: eventArgs(e)}
	case trace.KindSnapshotCarried:
		b.instant(task, hasTask, cpName("carried", e.CP), "snapshot", e)
	case trace.KindSnapshotAck, trace.KindSnapshotDecline:
		outcome, verb := "acknowledged", "ack"
		if e.Kind == trace.KindSnapshotDecline {
			outcome, verb = "declined", "decline"
		}
		k := taskCP{e.Task, e.CP}
		ended := false
		if o := b.alignments[k]; o != nil && e.Kind == trace.KindSnapshotDecline {
			delete(b.alignments, k)
			b.close(o, e, 0, outcome)
			ended = true
		}
		if o := b.snapshots[k]; o != nil {
			delete(b.snapshots, k)
			b.close(o, e, 0, outcome)
			ended = true
		}
		if !ended {
			b.instant(task, hasTask, cpName(verb, e.CP), "snapshot", e)
		}

	case trace.KindNotifyComplete:
		b.instant(task, hasTask, cpName("notify complete", e.CP), "notify", e)
	case trace.KindNotifyAbort:
		b.instant(task, hasTask, cpName("notify abort", e.CP), "notify", e)
		k := taskCP{e.Task, e.CP}
		if o := b.alignments[k]; o != nil {
			delete(b.alignments, k)
			b.close(o, e, 0, "aborted")
		}

	case trace.KindTaskCrash:
		b.instant(task, hasTask, "crash", "task", e)
		if hasTask {
			b.closeTask(e.Task, e, "crashed")
		}
	case trace.KindTaskRestore:
		name := cpName("restore cp", e.CP)
		if e.CP == 0 {
			name = "restore (fresh start)"
		}
		b.instant(task, hasTask, name, "task", e)
		if hasTask {
			b.closeTask(e.Task, e, "restored")
		}
	case trace.KindTaskFinish:
		b.instant(task, hasTask, "finish", "task", e)

	case trace.KindSinkPrecommit:
		b.instant(task, hasTask, cpName("precommit", e.CP), "sink", e)
	case trace.KindSinkCommit:
		name := cpName("commit", e.CP)
		if e.CP == 0 {
			name = "commit " + e.Txn
		}
		b.instant(task, hasTask, name, "sink", e)
	case trace.KindSinkAbort:
		b.instant(task, hasTask, "sink abort "+e.Txn, "sink", e)

	case trace.KindFault:
		b.fault(e, task, hasTask)
	case trace.KindPhase:
		name, _ := e.Attr(trace.AttrPhase)
		if b.phase != nil {
			b.close(b.phase, e, 0, "next phase")
		}
		b.tracks[phasesTrack] = true
		b.phase = &open{e: e, name: "phase: " + name, cat: "phase", track: phasesTrack, args: eventArgs(e)}
	}
}

func (b *builder) fault(e *trace.Event, task trackID, hasTask bool) {
	id, _ := e.Attr(attrFaultID)
	if end, _ := e.Attr(attrFaultEnd); end == "true" {
		if o := b.faults[id]; o != nil && id != "" {
			delete(b.faults, id)
			b.close(o, e, 0, "ended")
			return
		}
		b.instant(task, hasTask, "fault end: "+e.Fault, "fault", e)
		return
	}
	if _, windowed := e.Attr(attrFaultWindow); windowed && id != "" {
		if o := b.faults[id]; o != nil {
			b.close(o, e, 0, "injected again")
		}
		b.tracks[faultsTrack] = true
		b.faults[id] = &open{e: e, name: "fault: " + e.Fault, cat: "fault", track: faultsTrack, args: eventArgs(e)}
		return
	}
	b.instant(task, hasTask, "fault: "+e.Fault, "fault", e)
}

// closeTask ends the alignments and snapshots open at task (every task if task is "").
func (b *builder) closeTask(task string, e *trace.Event, outcome string) {
	for _, m := range []map[taskCP]*open{b.alignments, b.snapshots} {
		for _, k := range sortedKeys(m, cmpTaskCP) {
			if task == "" || k.task == task {
				b.close(m[k], e, 0, outcome)
				delete(m, k)
			}
		}
	}
}

// closeAll ends whatever is still open at the end of the run.
func (b *builder) closeAll() {
	for _, cp := range sortedKeys(b.checkpoints, cmp.Compare[uint64]) {
		b.close(b.checkpoints[cp], nil, b.endT, "unfinished")
	}
	for _, m := range []map[taskCP]*open{b.alignments, b.snapshots} {
		for _, k := range sortedKeys(m, cmpTaskCP) {
			b.close(m[k], nil, b.endT, "unfinished")
		}
	}
	for _, id := range sortedKeys(b.faults, naturalCompare) {
		b.close(b.faults[id], nil, b.endT, "not ended")
	}
	if b.phase != nil {
		b.close(b.phase, nil, b.endT, "end of trace")
	}
	b.checkpoints, b.alignments, b.snapshots, b.faults, b.phase = nil, nil, nil, nil, nil
}

func (b *builder) violation(v checker.Violation) {
	track, ok := b.taskTrack(v.Task)
	args := map[string]any{
		"property": string(v.Property),
		"message":  v.Message,
		"seq":      v.Seq,
		"t_ns":     v.T,
	}
	if v.Task != "" {
		args["task"] = v.Task
	}
	if v.CP != 0 {
		args["cp"] = v.CP
	}
	b.instantAt(track, ok, "violation: "+string(v.Property), "violation", v.T, args)
}

// thread is one thread of the output: a lane of a track.
type thread struct {
	tid  int
	name string
}

// layout puts every slice of positive length on a lane of its track where it nests, gives
// each lane a thread id in track order, and sets every item's tid.
func (b *builder) layout() {
	byTrack := map[trackID][]*item{}
	for _, it := range b.items {
		if it.lanes {
			byTrack[it.track] = append(byTrack[it.track], it)
		}
	}
	lanes := map[trackID]int{}
	order := sortedKeys(b.tracks, b.compareTracks)
	for _, id := range order {
		lanes[id] = assignLanes(byTrack[id])
	}
	tids := map[trackID][]int{}
	b.threads = nil
	next := 1
	for _, id := range order {
		for l := range max(lanes[id], 1) {
			name := id.name
			if l > 0 {
				name += " #" + strconv.Itoa(l+1)
			}
			tids[id] = append(tids[id], next)
			b.threads = append(b.threads, thread{tid: next, name: name})
			next++
		}
	}
	for _, it := range b.items {
		if it.global {
			it.ev.Tid = tids[coordinatorTrack][0]
			continue
		}
		it.ev.Tid = tids[it.track][it.lane]
	}
}

// assignLanes puts each slice on the first lane where it nests in what is already there,
// taking slices by start time, longest first, and returns the number of lanes used. On a
// lane a slice ends before or when the next one at its depth starts, and a slice inside
// another starts after it (never at the same instant) and ends no later.
func assignLanes(items []*item) int {
	slices.SortStableFunc(items, func(x, y *item) int {
		if x.start != y.start {
			return cmp.Compare(x.start, y.start)
		}
		if x.end != y.end {
			return cmp.Compare(y.end, x.end)
		}
		return x.order - y.order
	})
	var stacks [][]*item
	for _, it := range items {
		placed := false
		for l := range stacks {
			st := stacks[l]
			for len(st) > 0 && st[len(st)-1].end <= it.start {
				st = st[:len(st)-1]
			}
			stacks[l] = st
			if len(st) > 0 {
				top := st[len(st)-1]
				if it.end > top.end || it.start == top.start {
					continue
				}
			}
			it.lane = l
			stacks[l] = append(st, it)
			placed = true
			break
		}
		if !placed {
			it.lane = len(stacks)
			stacks = append(stacks, []*item{it})
		}
	}
	return len(stacks)
}

// write writes the file: the metadata events, then every event by time (longer slices
// first at one instant, so that a slice comes before those it contains), thread and
// creation order.
func (b *builder) write(w io.Writer) error {
	out := make([]jsonEvent, 0, 2+2*len(b.threads)+len(b.items))
	out = append(out, jsonEvent{Name: "process_name", Ph: "M", Pid: pid, Tid: b.threads[0].tid, Args: map[string]any{"name": "job"}})
	for _, th := range b.threads {
		out = append(out,
			jsonEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: th.tid, Args: map[string]any{"name": th.name}},
			jsonEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: th.tid, Args: map[string]any{"sort_index": th.tid}})
	}
	items := slices.Clone(b.items)
	slices.SortStableFunc(items, func(x, y *item) int {
		if x.start != y.start {
			return cmp.Compare(x.start, y.start)
		}
		if dx, dy := x.end-x.start, y.end-y.start; dx != dy {
			return cmp.Compare(dy, dx)
		}
		if x.ev.Tid != y.ev.Tid {
			return x.ev.Tid - y.ev.Tid
		}
		return x.order - y.order
	})
	for _, it := range items {
		out = append(out, it.ev)
	}

	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	bw.WriteString("{\"traceEvents\":[")
	for i := range out {
		buf.Reset()
		if err := enc.Encode(&out[i]); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	bw.WriteString("\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":")
	buf.Reset()
	meta := map[string]any{
		"generator":  "ckptsim picture/perfetto",
		"clock":      "virtual time; ts and dur in microseconds, args t_ns in nanoseconds",
		"events":     len(b.events),
		"violations": len(b.violations),
		"end_t_ns":   b.endT,
	}
	if err := enc.Encode(meta); err != nil {
		return err
	}
	bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bw.WriteString("}\n")
	return bw.Flush()
}

// micros writes nanoseconds as an exact decimal number of microseconds.
func micros(ns int64) json.Number {
	var u uint64
	neg := ns < 0
	if neg {
		u = uint64(-(ns + 1)) + 1
	} else {
		u = uint64(ns)
	}
	s := strconv.FormatUint(u/1000, 10)
	if frac := u % 1000; frac != 0 {
		f := strconv.FormatUint(frac+1000, 10)[1:]
		s += "." + strings.TrimRight(f, "0")
	}
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

func cmpTaskCP(a, b taskCP) int {
	if c := naturalCompare(a.task, b.task); c != 0 {
		return c
	}
	return cmp.Compare(a.cp, b.cp)
}

// compareTracks orders tracks by group, tasks by family in the order the trace first names
// a member of each (so sources come before the operators and sinks they feed) and within a
// family in natural order.
func (b *builder) compareTracks(x, y trackID) int {
	if x.group != y.group {
		return int(x.group) - int(y.group)
	}
	if x.group == groupTask {
		if c := b.family[familyOf(x.name)] - b.family[familyOf(y.name)]; c != 0 {
			return c
		}
	}
	return naturalCompare(x.name, y.name)
}

// sortedKeys returns the keys of m in the order cmp gives, so that no map order reaches
// the output.
func sortedKeys[K comparable, V any](m map[K]V, cmp func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	return keys
}

// naturalCompare orders names with their runs of digits compared as numbers ("sum-2"
// before "sum-10"), and names that tie that way (leading zeros) bytewise, so that it is a
// total order.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			x := strings.TrimLeft(a[si:i], "0")
			y := strings.TrimLeft(b[sj:j], "0")
			if len(x) != len(y) {
				return len(x) - len(y)
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return int(a[i]) - int(b[j])
		}
		i++
		j++
	}
	if c := (len(a) - i) - (len(b) - j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// triggerName names what a checkpoint.trigger starts: a checkpoint, a savepoint, or the
// stop-with-savepoint that ends the job.
func triggerName(e *trace.Event) string {
	if v, _ := e.Attr(trace.AttrDrain); v == "true" {
		return "stop-with-savepoint --drain"
	}
	if v, _ := e.Attr(trace.AttrStop); v == "true" {
		return "stop-with-savepoint"
	}
	if v, _ := e.Attr(trace.AttrSavepoint); v == "true" {
		return "savepoint"
	}
	return "checkpoint"
}
