package engine

import (
	"slices"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// JobKind is a job that snapshots its own way instead of with this package's barrier
// engine: engine/tokens, the classic Chandy-Lamport algorithm on a token workload, is one.
// It is the one seam between the barrier engine and another: the Logic of a graph's only
// operator may implement it, New then takes it as the job's kind, and the Runtime runs the
// kind's coordinator and the kind's task logic in place of its own. Nothing else in the
// engine asks which kind a job is; everything else (processes, channels, credits, the
// catalog, snapshots in the engine's format, storage, failover) is the engine's and is
// shared.
//
// A kind's operator is the job's only operator and has no job-graph edges; its channels
// join its own tasks (Channels).
type JobKind interface {
	Logic
	// Validate checks the kind's operator op (which is valid otherwise).
	Validate(op *Operator) error
	// Channels are the channels between the operator's tasks, as pairs of task indices
	// [from, to].
	Channels() [][2]int
	// Origins lists the record-id prefixes the operator's tasks make records under.
	Origins(op *Operator) []string
	// Reference computes what a run of the job must end with (ComputeReference).
	Reference(op *Operator) (*Reference, error)
	// NewCoordinator returns a coordinator incarnation for h.
	NewCoordinator(h *CoordinatorHost) KindCoordinator
	// NewTask returns the logic of a task incarnation for h.
	NewTask(h *TaskHost) KindTask
}

// KindCoordinator is the coordinator incarnation of a JobKind. The engine's incarnation
// around it handles crashes and traces (CoordinatorHost).
type KindCoordinator interface {
	// Begin starts the incarnation: the first of a job deploys it fresh, a later one
	// recovers from storage and restarts the job.
	Begin(first bool)
	// Receive handles a message from a task.
	Receive(from string, msg any)
	// TaskFailed is the failure detector's report that a task of attempt died.
	TaskFailed(attempt int)
	// JobDone says every task of the finished job has exited.
	JobDone()
	// LatestCheckpoint is the id of the latest completed snapshot the incarnation knows,
	// 0 if none.
	LatestCheckpoint() uint64
}

// KindTask is the logic of a task of a JobKind. The engine restores the task (Restore, then
// Begin), asks Consume for progress when the task may take input, asks State at every
// snapshot, and hands it every message that is not the engine's own.
type KindTask interface {
	// Restore takes the state of the snapshot the task restores from.
	Restore(s KindState)
	// Begin starts the task once its state is restored.
	Begin()
	// Consume takes the next input item (TaskHost.NextInput), if any, and reports whether
	// it made progress.
	Consume() bool
	// Receive handles a message from the coordinator (never while the task restores: the
	// engine defers those until after Begin).
	Receive(from string, msg any)
	// State is the task's state to snapshot now.
	State() KindState
}

// KindState is the state of a KindTask that the engine's snapshots hold: what the task holds
// (traced on snapshot.taken as the `tokens` attribute, with the values of each recorded
// channel state summed as `chantokens.<from>` and listed as `chanmsgs.<from>`) and its position in its own input, where a
// restored task resumes.
type KindState struct {
	Held, Position int64
}

func (s *KindState) encode(w *stateWriter) {
	w.tag("tokens")
	w.int(s.Held)
	w.int(s.Position)
}

func decodeKindState(r *stateReader) *KindState {
	r.expect("tokens")
	return &KindState{Held: r.int(), Position: r.int()}
}

// CompactRecord is a record in the engine's compact form (rec): a kind's tasks send and
// receive them.
type CompactRecord = rec

// NewCompactRecord is the record numbered seq under origin (TaskHost.Origin), with value.
func NewCompactRecord(origin uint32, seq, value int64) CompactRecord {
	return rec{origin: origin, seq: seq, value: value}
}

// Value returns the record's value.
func (r rec) Value() int64 { return r.value }

// Snapshot is one task's snapshot in the engine's format (snapshotData).
type Snapshot = snapshotData

// Checkpoint returns the id of the checkpoint the snapshot was taken for.
func (d *snapshotData) Checkpoint() uint64 { return d.cp }

// KindState returns the kind's state the snapshot holds (zero if none).
func (d *snapshotData) KindState() KindState {
	if d.kind == nil {
		return KindState{}
	}
	return *d.kind
}

// MessageClasser is a message of a JobKind that says its class (Classify).
type MessageClasser interface {
	MessageClass() MessageClass
}

// kindName is the Kind of the job's kind, for errors.
func (rt *Runtime) kindName() string { return rt.kind.Kind() }

// jobKindOf returns the kind of graph g, nil for a barrier job.
func jobKindOf(g *Graph) JobKind {
	if len(g.Operators) == 0 {
		return nil
	}
	k, _ := g.Operators[0].Logic.(JobKind)
	return k
}

// kindCoordinator is a coordinator incarnation of a JobKind: the engine's incarnation (crash,
// trace) around the kind's logic.
type kindCoordinator struct {
	coordinatorIncarnation
	logic KindCoordinator
}

func (c *kindCoordinator) Receive(from string, msg any) { c.logic.Receive(from, msg) }
func (c *kindCoordinator) begin(first bool)             { c.logic.Begin(first) }
func (c *kindCoordinator) taskFailed(attempt int)       { c.logic.TaskFailed(attempt) }

// taskRunning: a job kind's coordinator restarts its job its own way and needs no report.
func (c *kindCoordinator) taskRunning(int) {}
func (c *kindCoordinator) jobDone()        { c.logic.JobDone() }

// CoordinatorHost is what the engine offers a KindCoordinator: its process, the trace, the
// configuration, and the cluster's services (deploying and cancelling the tasks of an
// attempt, the job's end).
type CoordinatorHost struct {
	c *coordinatorIncarnation
}

// Proc is the incarnation's process.
func (h *CoordinatorHost) Proc() Proc { return h.c.proc }

// Dead reports whether the incarnation is dead (crashed, or replaced by a newer one), after
// which leftover callbacks must neither trace nor act.
func (h *CoordinatorHost) Dead() bool { return h.c.dead }

// Trace emits an event of the coordinator unless the incarnation is dead.
func (h *CoordinatorHost) Trace(e trace.Event) { h.c.trace(e) }

// Now is the Env's clock, in virtual nanoseconds.
func (h *CoordinatorHost) Now() int64 { return h.c.rt.env.Now() }

// Config is the job's configuration.
func (h *CoordinatorHost) Config() *Config { return &h.c.rt.cfg }

// Graph is the job's graph.
func (h *CoordinatorHost) Graph() *Graph { return &h.c.rt.cfg.Graph }

// Attempt is the number of job attempts deployed so far.
func (h *CoordinatorHost) Attempt() int { return h.c.rt.attempt }

// SetAttempt sets the attempt the next deployment runs as.
func (h *CoordinatorHost) SetAttempt(n int) { h.c.rt.attempt = n }

// DeployTasks spawns every task of the attempt, restoring from cp (nil: fresh); false if a
// host is down (the caller retries).
func (h *CoordinatorHost) DeployTasks(cp *protocol.CompletedCheckpoint) bool {
	return h.c.rt.deployTasks(cp)
}

// CancelTasks ends every task of the current attempt (a failover).
func (h *CoordinatorHost) CancelTasks() { h.c.rt.cancelTasks() }

// RestartDelay is the pause before a (re)deployment.
func (h *CoordinatorHost) RestartDelay() time.Duration { return h.c.rt.restartDelay() }

// SetFinished records that the job finished (Runtime.Finished then waits for the tasks to
// exit).
func (h *CoordinatorHost) SetFinished() { h.c.rt.finished = true }

// Finished is Runtime.Finished.
func (h *CoordinatorHost) Finished() bool { return h.c.rt.Finished() }

// FinishReported reports whether the engine reported the job finished (job.finish): a
// finished job is over, and a coordinator incarnation that was still reading the store then
// must start nothing again (FLINK-11813).
func (h *CoordinatorHost) FinishReported() bool { return h.c.rt.finishTraced }

// TaskHost is what the engine offers a KindTask: the task's plan, its channels and
// processing, tracing, snapshots and failure.
type TaskHost struct {
	t *task
}

// ID is the task's id, "<operator>-<index>" or its name in Operator.TaskNames.
func (h *TaskHost) ID() string { return h.t.plan.id }

// Index is the task's index in its operator.
func (h *TaskHost) Index() int { return h.t.plan.index }

// Operator is the task's operator.
func (h *TaskHost) Operator() *Operator { return h.t.plan.op }

// Config is the job's configuration.
func (h *TaskHost) Config() *Config { return &h.t.rt.cfg }

// Proc is the task's process.
func (h *TaskHost) Proc() Proc { return h.t.proc }

// Attempt is the job attempt the incarnation belongs to.
func (h *TaskHost) Attempt() int { return h.t.attempt }

// Now is the Env's clock, in virtual nanoseconds.
func (h *TaskHost) Now() int64 { return h.t.rt.env.Now() }

// Inputs are the tasks the task's input channels come from, in channel order.
func (h *TaskHost) Inputs() []string {
	var out []string
	for _, c := range h.t.plan.inputs {
		out = append(out, string(c.From))
	}
	return out
}

// Outputs are the tasks the task's output channels go to, in channel order.
func (h *TaskHost) Outputs() []string {
	var out []string
	for _, c := range h.t.plan.outputs {
		out = append(out, string(c.To))
	}
	return out
}

// OutputTo is the output channel to task to.
func (h *TaskHost) OutputTo(to string) int { return h.t.plan.outputByTo[to] }

// Origin is the catalog's origin of record-id prefix (one of JobKind.Origins).
func (h *TaskHost) Origin(prefix string) uint32 { return h.t.rt.plan.catalog.origin(prefix) }

// Running reports whether the task runs (restored, and not exited or dead).
func (h *TaskHost) Running() bool { return h.t.phase == phaseRunning }

// Alive reports whether the incarnation may still act and emit.
func (h *TaskHost) Alive() bool { return h.t.alive() }

// Trace emits an event of the task unless the incarnation is dead.
func (h *TaskHost) Trace(e trace.Event) { h.t.trace(e) }

// Fail ends the incarnation because of an error of its own; the job fails over.
func (h *TaskHost) Fail(reason string) { h.t.fail(reason) }

// HasRoom reports whether every output may take another record.
func (h *TaskHost) HasRoom() bool { return h.t.hasRoom() }

// SchedulePump makes the task look for work again after d.
func (h *TaskHost) SchedulePump(d time.Duration) { h.t.schedulePump(d) }

// Emit sends r on output out (buffered, against credits).
func (h *TaskHost) Emit(out int, r CompactRecord) { h.t.emit(out, r) }

// SendEvent sends an in-band event on output out, behind the buffers before it.
func (h *TaskHost) SendEvent(out int, ev protocol.ChannelEvent) { h.t.sendEvent(out, ev) }

// Occupy makes the task busy for the processing time of n records.
func (h *TaskHost) Occupy(n int) { h.t.occupy(n) }

// FlushAll sends every part-filled buffer.
func (h *TaskHost) FlushAll() { h.t.flushAll() }

// Exit ends the task: it is done.
func (h *TaskHost) Exit() { h.t.exit() }

// NextInput takes the next input item in round-robin channel order: an event, or a buffer
// of records (whose credit it returns and whose records it counts as consumed). ok is false
// when no channel has input.
func (h *TaskHost) NextInput() (from string, records []CompactRecord, event protocol.ChannelEvent, ok bool) {
	t := h.t
	n := len(t.inputs)
	for k, i := 0, t.nextInput; k < n; k, i = k+1, nextInRound(i, n) {
		in := t.inputs[i]
		if in.empty() {
			continue
		}
		t.nextInput = nextInRound(i, n)
		item, credited := in.pop()
		if item.records == nil {
			return in.from, nil, item.event, true
		}
		if credited {
			t.returnCredit(in)
		}
		in.recv += int64(len(item.records))
		return in.from, item.records, protocol.ChannelEvent{}, true
	}
	return "", nil, protocol.ChannelEvent{}, false
}

// Capture copies the task's state at the cut for checkpoint cp: the kind's state
// (KindTask.State) and the channel counters.
func (h *TaskHost) Capture(cp uint64) *Snapshot { return h.t.capture(protocol.CheckpointID(cp)) }

// SetChannelState puts a copy of records in d as the state recorded on the channel from
// task from.
func (h *TaskHost) SetChannelState(d *Snapshot, from string, records []CompactRecord) {
	i, ok := h.t.plan.inputByFrom[from]
	if !ok {
		panic(invariantf("engine: %s: channel state from %s, which is no input", h.t.plan.id, from))
	}
	d.channel[i] = slices.Clone(records)
}

// MaxListedChannelMessages bounds the messages a JobKind's snapshot.taken lists per
// channel (chanmsgs.<from>): the first ones, in order, with chanmore.<from> counting those
// left out; chan.<from> counts them all.
const MaxListedChannelMessages = 32

// SaveSnapshot stores d: it traces snapshot.taken, writes the encoded snapshot durably and
// tells done, with the storage key that is its handle.
func (h *TaskHost) SaveSnapshot(d *Snapshot, done func(key string, err error)) {
	t := h.t
	blob := d.encode(t.rt.plan.catalog)
	attrs := t.snapshotAttrs(d, Digest(blob))
	for i, recs := range d.channel {
		attrs = appendRecordedMessages(attrs, string(t.plan.inputs[i].From), recs)
	}
	t.trace(trace.Event{Kind: trace.KindSnapshotTaken, Task: t.plan.id, CP: d.cp, Attrs: attrs})
	key := stateKey(t.plan.id, protocol.CheckpointID(d.cp))
	writeDurably(t.proc, t.rt.cfg.VerifyWrites, key, blob, func(err error) { done(key, err) })
}

// appendRecordedMessages appends the list of the messages recorded on the channel from task
// from (their values, in order, at most MaxListedChannelMessages) and, when the list is cut,
// the count of those left out. A channel that recorded nothing gets no list. The recorder
// puts the attributes in key order.
func appendRecordedMessages(attrs []trace.Attr, from string, recs []rec) []trace.Attr {
	if len(recs) == 0 {
		return attrs
	}
	listed := recs[:min(len(recs), MaxListedChannelMessages)]
	var text []byte
	for k, r := range listed {
		if k > 0 {
			text = append(text, trace.ListSeparator...)
		}
		text = trace.AppendInt(text, r.value)
	}
	attrs = append(attrs, trace.Attr{Key: trace.AttrChanMsgsPrefix + from, Value: string(text)})
	if more := len(recs) - len(listed); more > 0 {
		attrs = append(attrs, trace.Attr{Key: trace.AttrChanMorePrefix + from, Value: strconv.Itoa(more)})
	}
	return attrs
}

// CoordinatorName is the coordinator's process name.
const CoordinatorName = coordinatorName

// DurableValue is one durable value kept under two keys written in turn (slotPair), so
// that a torn or corrupted write spoils only the older copy.
type DurableValue struct {
	slots slotPair
}

// NewDurableValue is the value stored under name plus ".0" and ".1".
func NewDurableValue(name string) *DurableValue { return &DurableValue{slots: newSlotPair(name)} }

// NewCounterValue is the durable checkpoint-id counter (the one the barrier coordinator
// keeps too).
func NewCounterValue() *DurableValue { return NewDurableValue(counterKey) }

// Write writes payload as the next version through p (read back if verify). Unless live
// then says otherwise, a write that succeeded becomes the latest version; then done is told.
func (v *DurableValue) Write(p Proc, verify bool, payload []byte, live func() bool, done func(error)) {
	slot, key, version := v.slots.next()
	writeDurably(p, verify, key, encodeSlot(version, payload), func(err error) {
		if err == nil && live() {
			v.slots.written(slot, version)
		}
		done(err)
	})
}

// Read reads the value back: it offers accept the stored copies, newest first, until it
// takes one (readSlots).
func (v *DurableValue) Read(p Proc, accept func(payload []byte) bool, done func(found bool, err error)) {
	readSlots(p, &v.slots, accept, done)
}

// EncodeCounter and DecodeCounter are the format of the checkpoint-id counter.
func EncodeCounter(id uint64) []byte { return encodeCounter(protocol.CheckpointID(id)) }

// DecodeCounter decodes what EncodeCounter wrote.
func DecodeCounter(data []byte) (uint64, error) {
	id, err := decodeCounter(data)
	return uint64(id), err
}

// EncodeCompleted and DecodeCompleted are the format of the completed-checkpoint store.
func EncodeCompleted(cps []protocol.CompletedCheckpoint) []byte { return encodeCompleted(cps) }

// DecodeCompleted decodes what EncodeCompleted wrote.
func DecodeCompleted(data []byte) ([]protocol.CompletedCheckpoint, error) {
	return decodeCompleted(data)
}
