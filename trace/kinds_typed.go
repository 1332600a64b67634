package trace

import (
	"slices"
	"strconv"
	"strings"
)

// One constructor per kind of schema v1, each taking the fields and attributes the schema
// gives its kind (schema.go, fields.go) as typed arguments, so that an engine that builds its
// events with them cannot misspell a kind or an attribute key, nor put a field where the
// schema has none. TestEveryKindHasAConstructor fails when a kind is added without one.
//
// The conventions are Event's own: an empty string leaves its field or attribute out (an
// optional reason, a state digest, a value), and so does a cp of 0 where the schema makes it
// optional. Counts are always written, zero included, because a count of zero is evidence (a
// repeated commit that made nothing visible, a channel that carried nothing) and an absent
// one is not. A start is in nanoseconds on the trace's clock (SyncRecorder.Now reads it), and
// one before 0 (NoStart) leaves start out. T and Seq are the Recorder's to assign.
//
// The constructors check nothing the well-formed property checks (a required field left
// empty reads as a violation of it, naming the event); they panic only where building the
// event would lose information without a trace of it, all in the lists of a sink.writes: an
// item that holds the list separator, an empty record id, no record, or fewer or more values
// than records.

// CoordinatorTask is the task that coordinator events name.
const CoordinatorTask = "coordinator"

// NoStart, as a start argument, leaves the start attribute out: the operation's start is
// not known.
const NoStart int64 = -1

// CheckpointRequest returns a checkpoint.request event: checkpoint cp is asked for and its id
// reserved, before it can start.
func CheckpointRequest(cp uint64) Event {
	return Event{Kind: KindCheckpointRequest, Task: CoordinatorTask, CP: cp}
}

// CheckpointTrigger returns a checkpoint.trigger event: checkpoint cp starts; savepoint marks
// a savepoint.
func CheckpointTrigger(cp uint64, savepoint bool) Event {
	e := Event{Kind: KindCheckpointTrigger, Task: CoordinatorTask, CP: cp}
	if savepoint {
		e.Attrs = []Attr{{Key: AttrSavepoint, Value: "true"}}
	}
	return e
}

// PeriodicCheckpointTrigger returns a checkpoint.trigger event of the periodic schedule:
// checkpoint cp starts, decided at start (NoStart: at the trigger itself).
func PeriodicCheckpointTrigger(cp uint64, start int64) Event {
	e := Event{Kind: KindCheckpointTrigger, Task: CoordinatorTask, CP: cp, Attrs: []Attr{{Key: AttrPeriodic, Value: "true"}}}
	if start >= 0 {
		e.Attrs = append(e.Attrs, Attr{Key: AttrStart, Value: strconv.FormatInt(start, 10)})
	}
	return e
}

// CheckpointPersist returns a checkpoint.persist event: the metadata write of checkpoint cp to
// the completed-checkpoint store begins.
func CheckpointPersist(cp uint64) Event {
	return Event{Kind: KindCheckpointPersist, Task: CoordinatorTask, CP: cp}
}

// CheckpointComplete returns a checkpoint.complete event: the metadata write of checkpoint cp
// is durable.
func CheckpointComplete(cp uint64) Event {
	return Event{Kind: KindCheckpointComplete, Task: CoordinatorTask, CP: cp}
}

// CheckpointAbort returns a checkpoint.abort event: the coordinator gives checkpoint cp up,
// for reason.
func CheckpointAbort(cp uint64, reason string) Event {
	return Event{Kind: KindCheckpointAbort, Task: CoordinatorTask, CP: cp, Reason: reason}
}

// CoordinatorCrash returns a coordinator.crash event: the coordinator's process dies.
func CoordinatorCrash() Event {
	return Event{Kind: KindCoordinatorCrash, Task: CoordinatorTask}
}

// CoordinatorFailed returns a coordinator.crash of a coordinator that failed by itself, for
// reason (an error of the engine's own code, say), not by an injected fault.
func CoordinatorFailed(reason string) Event {
	return Event{Kind: KindCoordinatorCrash, Task: CoordinatorTask, Reason: reason}
}

// CoordinatorRecover returns a coordinator.recover event: a new coordinator incarnation read
// back latest, the latest completed checkpoint in the store (0: none).
func CoordinatorRecover(latest uint64) Event {
	return Event{Kind: KindCoordinatorRecover, Task: CoordinatorTask, CP: latest}
}

// JobFinish returns a job.finish event: the engine reports the bounded job finished, every
// task having exited after a completed checkpoint held its final snapshot.
func JobFinish() Event { return Event{Kind: KindJobFinish, Task: CoordinatorTask} }

// JobStop returns a job.finish event of a job that stop-with-savepoint cp ended.
func JobStop(cp uint64) Event {
	return Event{Kind: KindJobFinish, Task: CoordinatorTask, Attrs: []Attr{{Key: AttrStop, Value: strconv.FormatUint(cp, 10)}}}
}

// StopTrigger returns the checkpoint.trigger of stop-with-savepoint cp.
func StopTrigger(cp uint64) Event {
	return Event{Kind: KindCheckpointTrigger, Task: CoordinatorTask, CP: cp,
		Attrs: []Attr{{Key: AttrSavepoint, Value: "true"}, {Key: AttrStop, Value: "true"}}}
}

// SplitAssign returns the split.assign of split to reader: the coordinator's split enumerator
// sends it the split (again, if the reader did not say it received it).
func SplitAssign(reader, split string) Event {
	return Event{Kind: KindSplitAssign, Task: CoordinatorTask, To: reader, Attrs: []Attr{{Key: AttrSplit, Value: split}}}
}

// SplitAdd returns the split.add of split at reader: the reader takes the split the
// enumerator gave it and reads it from its start.
func SplitAdd(reader, split string) Event {
	return Event{Kind: KindSplitAdd, Task: reader, Attrs: []Attr{{Key: AttrSplit, Value: split}}}
}

// DrainTrigger returns the checkpoint.trigger of stop-with-savepoint cp with drain.
func DrainTrigger(cp uint64) Event {
	e := StopTrigger(cp)
	e.Attrs = append(e.Attrs, Attr{Key: AttrDrain, Value: "true"})
	return e
}

// TaskStop returns the task.finish of a task that exits because stop-with-savepoint cp
// completed.
func TaskStop(task string, cp uint64) Event {
	return Event{Kind: KindTaskFinish, Task: task, Attrs: []Attr{{Key: AttrStop, Value: strconv.FormatUint(cp, 10)}}}
}

// JobFailover returns a job.failover event: the job restarts from checkpoint restore (0: from
// the start), for reason.
func JobFailover(restore uint64, reason string) Event {
	return Event{Kind: KindJobFailover, Task: CoordinatorTask, CP: restore, Reason: reason}
}

// BarrierSend returns a barrier.send event: task puts the barrier of checkpoint cp on its
// channel to task to.
func BarrierSend(task, to string, cp uint64) Event {
	return Event{Kind: KindBarrierSend, Task: task, To: to, CP: cp}
}

// BarrierRecv returns a barrier.recv event: task receives the barrier of checkpoint cp from
// task from.
func BarrierRecv(task, from string, cp uint64) Event {
	return Event{Kind: KindBarrierRecv, Task: task, From: from, CP: cp}
}

// SnapshotState is what a snapshot.taken says of a task and its channels at the cut. The
// maps are keyed by the task at the channel's other end, and every entry is written, zero or
// not; a nil map writes nothing.
type SnapshotState struct {
	// State is a digest of the task's state (operator state and source offsets), which
	// restore-fidelity compares with the restores from this snapshot. Empty: none.
	State string
	// Sent counts the records sent to each downstream task before the snapshot, those the
	// snapshot's own barrier overtook included (sent.<to>).
	Sent map[string]uint64
	// Recv counts the records consumed from each upstream task before the snapshot
	// (recv.<from>).
	Recv map[string]uint64
	// Chan counts the records from each upstream task stored as channel state (chan.<from>).
	Chan map[string]uint64
	// Out counts the records to each downstream task that an unaligned barrier overtook and
	// that the snapshot stores as output-side channel state (out.<to>).
	Out map[string]uint64
	// Tokens is the token balance the process holds, written when HasTokens is set (token
	// workloads; a balance of 0 is evidence too).
	Tokens    uint64
	HasTokens bool
	// ChanTokens sums the tokens recorded in flight from each upstream task
	// (chantokens.<from>).
	ChanTokens map[string]uint64
	// ChanMsgs lists the messages recorded in flight from each upstream task, each by its
	// tokens, in the order they arrived (chanmsgs.<from>); ChanMore counts the messages the
	// list leaves out, when it is cut short (chanmore.<from>). An empty list writes nothing.
	ChanMsgs map[string][]uint64
	ChanMore map[string]uint64
	// Pieces lists the handles of the shared pieces an incremental snapshot refers to
	// (pieces); none writes nothing.
	Pieces []string
	// Stopped lists a source's offsets at a stop-with-savepoint as split=offset items
	// (stop); none writes nothing.
	Stopped []string
	// Splits lists the splits a split source's reader holds as split=offset items (splits),
	// written when IsReader is set; an empty list writes nothing, as every empty value.
	Splits   []string
	IsReader bool
	// KeyGroups is the range of key groups a task keyed by them owns, as "first-last"
	// (keygroups); empty writes nothing.
	KeyGroups string
	// Union holds the entries of each union list state the task keeps, by the state's name
	// (union.<state>); a state without entries writes nothing.
	Union map[string][]Entry
}

// SnapshotTaken returns a snapshot.taken event: task takes its snapshot for checkpoint cp.
func SnapshotTaken(task string, cp uint64, s SnapshotState) Event {
	var attrs []Attr
	if s.State != "" {
		attrs = append(attrs, Attr{Key: AttrState, Value: s.State})
	}
	if s.HasTokens {
		attrs = append(attrs, Attr{Key: AttrTokens, Value: strconv.FormatUint(s.Tokens, 10)})
	}
	if len(s.Pieces) > 0 {
		attrs = append(attrs, Attr{Key: AttrPieces, Value: strings.Join(s.Pieces, ListSeparator)})
	}
	if len(s.Stopped) > 0 {
		attrs = append(attrs, Attr{Key: AttrStop, Value: strings.Join(s.Stopped, ListSeparator)})
	}
	if s.IsReader {
		attrs = append(attrs, Attr{Key: AttrSplits, Value: strings.Join(s.Splits, ListSeparator)})
	}
	if s.KeyGroups != "" {
		attrs = append(attrs, Attr{Key: AttrKeyGroups, Value: s.KeyGroups})
	}
	for _, counts := range []struct {
		prefix string
		byTask map[string]uint64
	}{
		{AttrSentPrefix, s.Sent}, {AttrRecvPrefix, s.Recv}, {AttrChanPrefix, s.Chan}, {AttrOutPrefix, s.Out},
		{AttrChanTokensPrefix, s.ChanTokens}, {AttrChanMorePrefix, s.ChanMore},
	} {
		for other, n := range counts.byTask {
			attrs = append(attrs, Attr{Key: channelKey(counts.prefix, other), Value: strconv.FormatUint(n, 10)})
		}
	}
	for state, entries := range s.Union {
		if len(entries) > 0 {
			attrs = append(attrs, Attr{Key: channelKey(AttrUnionPrefix, state), Value: string(AppendEntries(nil, entries))})
		}
	}
	for other, msgs := range s.ChanMsgs {
		if len(msgs) == 0 {
			continue // no list: the schema's way to say a channel recorded nothing
		}
		var list []byte
		for i, tokens := range msgs {
			if i > 0 {
				list = append(list, ListSeparator...)
			}
			list = AppendUint(list, tokens)
		}
		attrs = append(attrs, Attr{Key: channelKey(AttrChanMsgsPrefix, other), Value: string(list)})
	}
	// Map order is random; the Recorder would sort a copy, but sorting here once gives the
	// event its one order wherever it goes.
	slices.SortFunc(attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	return Event{Kind: KindSnapshotTaken, Task: task, CP: cp, Attrs: attrs}
}

// channelKey returns prefix + task, the key of a per-channel attribute. An empty task would
// make the bare prefix, a key the schema does not give: an emitter's mistake that the
// well-formed property would report far from its cause.
func channelKey(prefix, task string) string {
	if task == "" {
		panic("trace: snapshot.taken: a per-channel count (" + prefix + ") with an empty task name")
	}
	return prefix + task
}

// SnapshotCarried returns a snapshot.carried event: checkpoint cp holds task's final snapshot,
// the one taken for the earlier checkpoint taken, instead of a snapshot of its own.
func SnapshotCarried(task string, cp, taken uint64) Event {
	return Event{Kind: KindSnapshotCarried, Task: task, CP: cp,
		Attrs: []Attr{{Key: AttrTaken, Value: strconv.FormatUint(taken, 10)}}}
}

// StopCarried returns the snapshot.carried of a finished source's final snapshot in
// stop-with-savepoint cp: its offsets there (split=offset items) are the end of its input.
func StopCarried(task string, cp, taken uint64, stopped []string) Event {
	e := SnapshotCarried(task, cp, taken)
	e.Attrs = append(e.Attrs, Attr{Key: AttrStop, Value: strings.Join(stopped, ListSeparator)})
	return e
}

// ReaderCarried returns the snapshot.carried of a split source's finished reader, listing the
// splits its final snapshot holds as split=offset items.
func ReaderCarried(task string, cp, taken uint64, splits []string) Event {
	e := SnapshotCarried(task, cp, taken)
	e.Attrs = append(e.Attrs, Attr{Key: AttrSplits, Value: strings.Join(splits, ListSeparator)})
	return e
}

// WithUnassigned adds to a checkpoint.trigger the splits the split enumerator held as the
// triggers went out (attr unassigned).
func WithUnassigned(trigger Event, unassigned []string) Event {
	trigger.Attrs = append(slices.Clone(trigger.Attrs), Attr{Key: AttrUnassigned, Value: strings.Join(unassigned, ListSeparator)})
	slices.SortFunc(trigger.Attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	return trigger
}

// SnapshotAck returns a snapshot.ack event: task acknowledges its snapshot for checkpoint cp
// to the coordinator; final marks a final snapshot, taken after the task's input ended.
func SnapshotAck(task string, cp uint64, final bool) Event {
	e := Event{Kind: KindSnapshotAck, Task: task, CP: cp}
	if final {
		e.Attrs = []Attr{{Key: AttrFinal, Value: "true"}}
	}
	return e
}

// SnapshotDecline returns a snapshot.decline event: task declines checkpoint cp, for reason.
func SnapshotDecline(task string, cp uint64, reason string) Event {
	return Event{Kind: KindSnapshotDecline, Task: task, CP: cp, Reason: reason}
}

// StateRelease returns a state.release event: the state task uploaded for checkpoint cp
// (the checkpoint its snapshot was taken for, a carried snapshot's own) is given up.
func StateRelease(task string, cp uint64) Event {
	return Event{Kind: KindStateRelease, Task: task, CP: cp}
}

// JobResubmit returns a job.resubmit event: the job is submitted again from checkpoint cp in
// restore mode mode.
func JobResubmit(cp uint64, mode string) Event {
	return Event{Kind: KindJobResubmit, Task: "coordinator", CP: cp, Attrs: []Attr{{Key: AttrMode, Value: mode}}}
}

// JobRescale returns the job.resubmit of a rescale: the job stops and is submitted again
// from checkpoint cp, in restore mode mode, with operator op at parallelism p, and its
// tasks are tasks from then on.
func JobRescale(cp uint64, mode, op string, p int, tasks []string) Event {
	e := JobResubmit(cp, mode)
	e.Attrs = []Attr{{Key: AttrMode, Value: mode}, {Key: AttrParallelism, Value: strconv.Itoa(p)},
		{Key: AttrRescale, Value: op}, {Key: AttrTasks, Value: strings.Join(tasks, ListSeparator)}}
	return e
}

// PieceRelease returns a piece.release event: the shared piece named piece, which task
// uploaded for checkpoint cp, is deleted.
func PieceRelease(task string, cp uint64, piece string) Event {
	return Event{Kind: KindPieceRelease, Task: task, CP: cp, Attrs: []Attr{{Key: AttrPiece, Value: piece}}}
}

// StateLive returns a state.live event: the storage holds pieces (handles, in order) and
// bytes of checkpoint state at the end of a run.
func StateLive(pieces []string, bytes int64) Event {
	return Event{Kind: KindStateLive, Attrs: []Attr{{Key: AttrBytes, Value: strconv.FormatInt(bytes, 10)},
		{Key: AttrPieces, Value: strings.Join(pieces, ListSeparator)}}}
}

// TriggerRecv returns a trigger.recv event: task takes the coordinator's trigger of
// checkpoint cp in.
func TriggerRecv(task string, cp uint64) Event {
	return Event{Kind: KindTriggerRecv, Task: task, CP: cp}
}

// MarkerSend returns a marker.send event: task puts a cancel marker of checkpoint cp on its
// channel to task to.
func MarkerSend(task, to string, cp uint64) Event {
	return Event{Kind: KindMarkerSend, Task: task, To: to, CP: cp}
}

// MarkerRecv returns a marker.recv event: task takes in a cancel marker of checkpoint cp from
// task from.
func MarkerRecv(task, from string, cp uint64) Event {
	return Event{Kind: KindMarkerRecv, Task: task, From: from, CP: cp}
}

// NotifyComplete returns a notify.complete event: task's listeners are told that checkpoint cp
// completed.
func NotifyComplete(task string, cp uint64) Event {
	return Event{Kind: KindNotifyComplete, Task: task, CP: cp}
}

// NotifyAbort returns a notify.abort event: task's listeners are told that checkpoint cp was
// aborted.
func NotifyAbort(task string, cp uint64) Event {
	return Event{Kind: KindNotifyAbort, Task: task, CP: cp}
}

// TaskCrash returns a task.crash event: task fails, for reason (empty: a crash from outside,
// such as its host's).
func TaskCrash(task, reason string) Event {
	return Event{Kind: KindTaskCrash, Task: task, Reason: reason}
}

// TaskRestore returns a task.restore event: task starts from its snapshot of checkpoint cp (0:
// a fresh start), whose state digest is state.
func TaskRestore(task string, cp uint64, state string) Event {
	e := Event{Kind: KindTaskRestore, Task: task, CP: cp}
	if state != "" {
		e.Attrs = []Attr{{Key: AttrState, Value: state}}
	}
	return e
}

// TaskRestoreRescaled returns the task.restore of a task of a job rescaled from checkpoint
// cp: it read the snapshots of the earlier job's tasks from (rescaled-from) and, if keyed by
// key group, owns keyGroups ("first-last"; empty writes nothing).
func TaskRestoreRescaled(task string, cp uint64, state string, from []string, keyGroups string) Event {
	e := TaskRestore(task, cp, state)
	read := strings.Join(from, ListSeparator)
	if read == "" {
		read = NoneRead
	}
	e.Attrs = append(e.Attrs, Attr{Key: AttrRescaledFrom, Value: read})
	if keyGroups != "" {
		e.Attrs = append(e.Attrs, Attr{Key: AttrKeyGroups, Value: keyGroups})
	}
	slices.SortFunc(e.Attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	return e
}

// Entry is one key:value item of a list attribute: an entry of a task's union list state
// (for a source's offsets, a partition and its offset), or the records a rescaled task
// replayed from an earlier task's snapshot.
type Entry struct {
	Key   string
	Value int64
}

// AppendEntries appends entries as the value of an AttrUnionPrefix or AttrReplayed
// attribute.
func AppendEntries(dst []byte, entries []Entry) []byte {
	for i, e := range entries {
		if i > 0 {
			dst = append(dst, ListSeparator...)
		}
		dst = append(dst, e.Key...)
		dst = append(dst, ':')
		dst = AppendInt(dst, e.Value)
	}
	return dst
}

// ParseEntries reads the value of an AttrUnionPrefix or AttrReplayed attribute; false when
// it is not one.
func ParseEntries(v string) ([]Entry, bool) {
	if v == NoneRead {
		return nil, true
	}
	var out []Entry
	for _, item := range strings.Fields(v) {
		key, n, ok := strings.Cut(item, ":")
		value, err := strconv.ParseInt(n, 10, 64)
		if !ok || key == "" || err != nil {
			return nil, false
		}
		out = append(out, Entry{Key: key, Value: value})
	}
	return out, len(out) > 0
}

// WithReplayed returns the rescaled task.restore e with the channel state it replayed
// (AttrReplayed): entries of the earlier snapshots' tasks and the records taken from each.
func WithReplayed(e Event, replayed []Entry) Event {
	return withEntries(e, AttrReplayed, replayed)
}

// WithUnion returns the rescaled task.restore e with the entries it kept of union state
// state (AttrUnionPrefix).
func WithUnion(e Event, state string, kept []Entry) Event {
	return withEntries(e, AttrUnionPrefix+state, kept)
}

// withEntries returns e with attribute key listing entries, NoneRead for none.
func withEntries(e Event, key string, entries []Entry) Event {
	value := string(AppendEntries(nil, entries))
	if value == "" {
		value = NoneRead
	}
	e.Attrs = append(slices.Clone(e.Attrs), Attr{Key: key, Value: value})
	slices.SortFunc(e.Attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	return e
}

// TaskFinish returns a task.finish event: task, bounded, has processed all its input and
// exits.
func TaskFinish(task string) Event {
	return Event{Kind: KindTaskFinish, Task: task}
}

// SinkWrite returns a sink.write event: sink task writes record rid, of value value, into
// transaction txn.
func SinkWrite(task, txn, rid, value string) Event {
	e := Event{Kind: KindSinkWrite, Task: task, Txn: txn, RID: rid}
	if value != "" {
		e.Attrs = []Attr{{Key: AttrValue, Value: value}}
	}
	return e
}

// SinkWrites returns a sink.writes event: sink task writes the records rids, of values values
// (nil: none known), into transaction txn, in that order; it means what a sink.write per
// record would. It panics if the lists differ in length, if a record id is empty, or if an
// item holds ListSeparator: joined, such lists would read back as other records.
func SinkWrites(task, txn string, rids, values []string) Event {
	if len(rids) == 0 {
		panic("trace: sink.writes of no record")
	}
	if values != nil && len(values) != len(rids) {
		panic("trace: sink.writes of " + strconv.Itoa(len(rids)) + " records with " + strconv.Itoa(len(values)) + " values")
	}
	attrs := []Attr{{Key: AttrRIDs, Value: joinList(AttrRIDs, rids, false)}}
	if values != nil {
		attrs = append(attrs, Attr{Key: AttrValues, Value: joinList(AttrValues, values, true)})
	}
	return Event{Kind: KindSinkWrites, Task: task, Txn: txn, Attrs: attrs}
}

// joinList joins the items of list attribute key with ListSeparator.
func joinList(key string, items []string, emptyAllowed bool) string {
	for _, item := range items {
		if strings.Contains(item, ListSeparator) {
			panic("trace: sink.writes: an item of " + key + " holds the list separator: " + strconv.Quote(item))
		}
		if item == "" && !emptyAllowed {
			panic("trace: sink.writes: an empty item in " + key)
		}
	}
	return strings.Join(items, ListSeparator)
}

// SinkPrecommit returns a sink.precommit event: sink task pre-commits transaction txn,
// checkpoint cp's (0: none).
func SinkPrecommit(task string, cp uint64, txn string) Event {
	return Event{Kind: KindSinkPrecommit, Task: task, CP: cp, Txn: txn}
}

// SinkCommit returns a sink.commit event: the store commits sink task's transaction txn,
// checkpoint cp's (0: none), making records records visible (0 for a repeated commit, or one
// of a transaction the store had dropped); the commit began at start (NoStart: not known).
func SinkCommit(task string, cp uint64, txn string, records uint64, start int64) Event {
	attrs := []Attr{{Key: AttrRecords, Value: strconv.FormatUint(records, 10)}}
	if start >= 0 {
		attrs = append(attrs, Attr{Key: AttrStart, Value: strconv.FormatInt(start, 10)})
	}
	return Event{Kind: KindSinkCommit, Task: task, CP: cp, Txn: txn, Attrs: attrs}
}

// SinkAbort returns a sink.abort event: the store aborts sink task's transaction txn, for
// reason.
func SinkAbort(task, txn, reason string) Event {
	return Event{Kind: KindSinkAbort, Task: task, Txn: txn, Reason: reason}
}

// SinkRead returns a sink.read event: a client, reader, reads the store and sees records
// records; the read began at start (NoStart: not known).
func SinkRead(reader string, records uint64, start int64) Event {
	attrs := []Attr{{Key: AttrRecords, Value: strconv.FormatUint(records, 10)}}
	if start >= 0 {
		attrs = append(attrs, Attr{Key: AttrStart, Value: strconv.FormatInt(start, 10)})
	}
	return Event{Kind: KindSinkRead, Task: reader, Attrs: attrs}
}

// SinkUpsert returns a sink.upsert event: idempotent sink task writes record rid, of value
// value, straight into the store, replacing any earlier value; the write began at start
// (NoStart: not known).
func SinkUpsert(task, rid, value string, start int64) Event {
	var attrs []Attr
	if start >= 0 {
		attrs = append(attrs, Attr{Key: AttrStart, Value: strconv.FormatInt(start, 10)})
	}
	if value != "" {
		attrs = append(attrs, Attr{Key: AttrValue, Value: value})
	}
	return Event{Kind: KindSinkUpsert, Task: task, RID: rid, Attrs: attrs}
}

// RecordSend returns a record.send event: task sends record rid to task to (detailed traces).
func RecordSend(task, to, rid string) Event {
	return Event{Kind: KindRecordSend, Task: task, To: to, RID: rid}
}

// RecordRecv returns a record.recv event: task receives record rid from task from (detailed
// traces).
func RecordRecv(task, from, rid string) Event {
	return Event{Kind: KindRecordRecv, Task: task, From: from, RID: rid}
}

// FaultTarget is what a fault event's fault strikes; every field may be left empty.
type FaultTarget struct {
	Task     string // the task, or CoordinatorTask
	From, To string // the link
	CP       uint64
	Reason   string
	Txn      string
	RID      string
}

// Fault returns a fault event: a harness injects fault (its kind) into target. Params are the
// fault's own parameters, whose keys are the harness's to define (ckptsim's fault package
// writes id, entry, end=true on the event that ends a windowed fault, window_ns, ...); the
// event gets a sorted copy.
func Fault(fault string, target FaultTarget, params ...Attr) Event {
	var attrs []Attr
	if len(params) > 0 {
		attrs = slices.Clone(params)
		slices.SortFunc(attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	}
	return Event{Kind: KindFault, Fault: fault, Task: target.Task, From: target.From, To: target.To,
		CP: target.CP, Reason: target.Reason, Txn: target.Txn, RID: target.RID, Attrs: attrs}
}

// PhaseName names a phase of a run with faults, the value of a phase event's phase
// attribute.
type PhaseName string

// The phases, in the order a run goes through them: faults are injected, then healed, then
// progress is owed; end marks where the liveness bound ran out.
const (
	PhaseFault    PhaseName = "fault"
	PhaseHeal     PhaseName = "heal"
	PhaseLiveness PhaseName = "liveness"
	PhaseEnd      PhaseName = "end"
)

// Phase returns a phase event: the run enters phase p.
func Phase(p PhaseName) Event {
	return Event{Kind: KindPhase, Attrs: []Attr{{Key: AttrPhase, Value: string(p)}}}
}

// ContractBroken returns a contract.broken event: task (or the coordinator) met something
// the protocol's contract rules out about checkpoint cp (0: none in particular), the
// promise what, with detail for a person ("" for none).
func ContractBroken(task string, cp uint64, what, detail string) Event {
	attrs := []Attr{{Key: AttrWhat, Value: what}}
	if detail != "" {
		attrs = []Attr{{Key: AttrDetail, Value: detail}, attrs[0]}
	}
	return Event{Kind: KindContractBroken, Task: task, CP: cp, Attrs: attrs}
}
