package protocol_test

// A rapid state-machine test of the task side in every mode. The reference
// model is the input streams themselves: each input is a generated FIFO
// sequence of records, barriers (ids increasing; each id a checkpoint or a
// savepoint on every input), cancel markers, end of data and end of
// partition. From it the test knows, for every checkpoint and input, how
// many records precede the barrier, which is all a consistent cut needs:
// when a checkpoint's state is complete at the task, the records consumed
// before its snapshot plus the records recorded as its channel state must
// equal the records before its barrier, on every input (at least that
// many, in at-least-once mode; savepoints are exact in every mode).
//
// Besides barriers the machine restores the task (possibly as finished),
// triggers it directly once its inputs have ended (as the coordinator does
// when every upstream finished), finishes it, completes and fails uploads,
// and delivers completion and abort notifications; it checks snapshot
// order and finality, that a finished task exits exactly on the
// notification of a checkpoint at or after its first final snapshot, and
// that an exited task asks for nothing more.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/protocol"
)

type streamItem struct {
	record bool
	event  protocol.ChannelEvent
}

// taskMachine drives one Task.
type taskMachine struct {
	mode    protocol.Mode
	ids     int // checkpoint ids 1..ids appear in the streams
	kinds   []protocol.Kind
	task    *protocol.Task
	outputs int
	now     protocol.Time
	streams [][]streamItem
	next    []int // position of the next item per input
	closed  []bool

	consumed []int                           // records consumed per input
	cut      map[protocol.CheckpointID][]int // consumed at the snapshot
	recorded map[protocol.CheckpointID][]int // channel-state records
	sealed   map[protocol.CheckpointID]bool  // state complete at the task
	inflight map[protocol.CheckpointID]bool  // requested, not reported
	acked    map[protocol.CheckpointID]bool  // acked to the coordinator
	// recentAcks are the last acked ids, as many as the task remembers
	// (MaxPendingCheckpoints): a stale copy of one of them is a duplicate.
	recentAcks []protocol.CheckpointID
	aborted    map[protocol.CheckpointID]bool       // given up by the task
	barriers   map[protocol.CheckpointID][]struct{} // forwarded barriers (output 0)
	// delivered counts the channel events delivered; lastBarrierAt[id] is
	// the count at the last barrier of id delivered so far, and
	// newestCancelAt[id] the count at the first cancel marker for an id
	// above id: a checkpoint a newer cancel marker overtook before its
	// barriers were all in is given up (Flink's barrier handlers do so).
	delivered      int
	lastBarrierAt  map[protocol.CheckpointID]int
	newerCancelAt  map[protocol.CheckpointID]int
	lastSentOnOut0 protocol.CheckpointID // highest id of a barrier or marker on output 0

	restored      protocol.CheckpointID
	lastSnapshot  protocol.CheckpointID
	lastForwarded protocol.CheckpointID
	lastComplete  protocol.CheckpointID
	lastTrigger   protocol.CheckpointID // direct triggers use ids above the streams'
	seenMax       protocol.CheckpointID // highest id of any event delivered
	notified      bool                  // a notification was injected
	refused       bool                  // a bound declined something
	finished      bool
	firstFinal    protocol.CheckpointID
	exited        bool
}

func newTaskMachine(t *rapid.T, mode protocol.Mode) *taskMachine {
	m := &taskMachine{
		mode:     mode,
		ids:      rapid.IntRange(1, 6).Draw(t, "ids"),
		cut:      map[protocol.CheckpointID][]int{},
		recorded: map[protocol.CheckpointID][]int{},
		sealed:   map[protocol.CheckpointID]bool{},
		inflight: map[protocol.CheckpointID]bool{},
		acked:    map[protocol.CheckpointID]bool{},
		aborted:  map[protocol.CheckpointID]bool{},
		barriers: map[protocol.CheckpointID][]struct{}{},
		outputs:  rapid.IntRange(1, 2).Draw(t, "outputs"),

		lastBarrierAt: map[protocol.CheckpointID]int{},
		newerCancelAt: map[protocol.CheckpointID]int{},
	}
	m.kinds = make([]protocol.Kind, m.ids+1)
	for id := 1; id <= m.ids; id++ {
		m.kinds[id] = protocol.KindCheckpoint
		if rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("savepoint-%d", id)) == 0 {
			m.kinds[id] = protocol.KindSavepoint
		}
	}
	m.lastTrigger = protocol.CheckpointID(m.ids)
	inputs := rapid.IntRange(1, 3).Draw(t, "inputs")
	cfg := protocol.DefaultConfig()
	cfg.CheckInvariants = true
	cfg.Mode = m.mode
	cfg.MaxConcurrent = 1
	if m.mode == protocol.ModeAlignedWithTimeout {
		cfg.AlignmentTimeout = 20 * time.Nanosecond
	}
	cfg.MaxPendingCheckpoints = m.ids + 1
	cfg.MaxBufferedRecords = rapid.IntRange(1, 40).Draw(t, "maxBuffered")
	var chans []protocol.ChannelID
	for i := range inputs {
		chans = append(chans, protocol.ChannelID{From: protocol.TaskID(fmt.Sprintf("up-%d", i)), To: "t"})
		m.streams = append(m.streams, m.drawStream(t, i))
	}
	var outs []protocol.ChannelID
	for o := range m.outputs {
		outs = append(outs, protocol.ChannelID{From: "t", To: protocol.TaskID(fmt.Sprintf("down-%d", o))})
	}
	m.next = make([]int, inputs)
	m.closed = make([]bool, inputs)
	m.consumed = make([]int, inputs)
	var err error
	m.task, err = protocol.NewTask(cfg.TaskConfig("t", chans, outs))
	if err != nil {
		t.Fatal(err)
	}
	// Restore from a checkpoint older than some of the streams' ids (they
	// are the new incarnation's), rarely as a finished task.
	if rapid.Bool().Draw(t, "restore") {
		m.restored = protocol.CheckpointID(rapid.IntRange(0, m.ids/2).Draw(t, "restored"))
		final := rapid.IntRange(0, 9).Draw(t, "restored-final") == 0
		if err := m.task.Restore(m.now, m.restored, protocol.TaskSnapshot{Handle: "restored", Final: final}); err != nil {
			t.Fatal(err)
		}
		rd := m.task.Ready()
		if final != rd.Exit {
			t.Fatalf("restored final=%v, exit=%v", final, rd.Exit)
		}
		if final {
			m.finished, m.exited = true, true
			m.checkEndOfPartition(t, rd)
		}
		m.seenMax = m.restored
		if err := m.task.Restore(m.now, m.restored, protocol.TaskSnapshot{}); err == nil {
			t.Fatal("second Restore accepted")
		}
	}
	return m
}

// drawStream generates one input: for each id a few records, then the
// barrier, a cancel marker or nothing (the upstream skipped it), and at the
// end end of data and end of partition.
func (m *taskMachine) drawStream(t *rapid.T, input int) []streamItem {
	var s []streamItem
	for id := 1; id <= m.ids; id++ {
		for range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("records-%d-%d", input, id)) {
			s = append(s, streamItem{record: true})
		}
		switch rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("marker-%d-%d", input, id)) {
		case 0:
			s = append(s, streamItem{event: protocol.CancelMarker(protocol.CheckpointID(id))})
		case 1:
		default:
			mode := m.mode
			if m.kinds[id] == protocol.KindSavepoint {
				mode = protocol.ModeAligned
			} else if mode == protocol.ModeAlignedWithTimeout && rapid.Bool().Draw(t, "upstream-switched") {
				mode = protocol.ModeUnaligned
			}
			s = append(s, streamItem{event: protocol.Barrier(protocol.CheckpointID(id), m.kinds[id], mode, 0)})
		}
	}
	for range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("tail-%d", input)) {
		s = append(s, streamItem{record: true})
	}
	s = append(s, streamItem{event: protocol.EndOfData()}, streamItem{event: protocol.EndOfPartition()})
	return s
}

// recordsBefore counts the records of input before the barrier of id, or
// all of them if the input carries no barrier of id.
func (m *taskMachine) recordsBefore(input int, id protocol.CheckpointID) int {
	n := 0
	for _, it := range m.streams[input] {
		if !it.record && it.event.Type == protocol.EventBarrier && it.event.Checkpoint == id {
			return n
		}
		if it.record {
			n++
		}
	}
	return n
}

// barrierDelivered reports whether input delivered the barrier of id.
func (m *taskMachine) barrierDelivered(input int, id protocol.CheckpointID) bool {
	for _, it := range m.streams[input][:m.next[input]] {
		if !it.record && it.event.Type == protocol.EventBarrier && it.event.Checkpoint == id {
			return true
		}
	}
	return false
}

// drained reports whether every input delivered end of data.
func (m *taskMachine) drained() bool {
	for i, s := range m.streams {
		if m.next[i] < len(s)-1 {
			return false
		}
	}
	return true
}

func (m *taskMachine) Deliver(t *rapid.T) {
	var ready []int
	for i := range m.streams {
		if m.next[i] < len(m.streams[i]) {
			ready = append(ready, i)
		}
	}
	if len(ready) == 0 {
		t.Skip("all delivered")
	}
	i := rapid.SampledFrom(ready).Draw(t, "input")
	it := m.streams[i][m.next[i]]
	if m.task.Blocked(i) {
		if it.record {
			if a := m.task.Admit(i); a.Action != protocol.AdmitBlock {
				t.Fatalf("input %d reported blocked but Admit says %v", i, a)
			}
		}
		t.Skip("blocked")
	}
	if it.record {
		m.admit(t, i)
		m.handle(t, nil)
		return
	}
	m.next[i]++
	if it.event.Type == protocol.EventEndOfPartition {
		m.closed[i] = true
	}
	isNew := it.event.Checkpoint > m.seenMax
	m.seenMax = max(m.seenMax, it.event.Checkpoint)
	rd := m.handleReady(t, m.receive(i, it.event))
	// Unaligned: the first barrier of a new checkpoint snapshots at once.
	if m.mode == protocol.ModeUnaligned && isNew && it.event.Type == protocol.EventBarrier &&
		it.event.Kind == protocol.KindCheckpoint && !m.notified && !m.exited {
		if !slices.ContainsFunc(rd.Snapshots, func(s protocol.SnapshotRequest) bool { return s.Checkpoint == it.event.Checkpoint }) {
			t.Fatalf("unaligned first barrier of %v did not snapshot at once: %+v", it.event.Checkpoint, rd)
		}
	}
}

// receive delivers a channel event of input i and counts it.
func (m *taskMachine) receive(i int, ev protocol.ChannelEvent) error {
	m.delivered++
	switch ev.Type {
	case protocol.EventBarrier:
		m.lastBarrierAt[ev.Checkpoint] = m.delivered
	case protocol.EventCancelMarker:
		for id := protocol.CheckpointID(1); id < ev.Checkpoint; id++ {
			if _, ok := m.newerCancelAt[id]; !ok {
				m.newerCancelAt[id] = m.delivered
			}
		}
	}
	return m.task.Receive(m.now, i, ev)
}

// admit consumes the next record of input i.
func (m *taskMachine) admit(t *rapid.T, i int) {
	a := m.task.Admit(i)
	switch a.Action {
	case protocol.AdmitBlock:
		t.Fatalf("Admit blocked input %d that Blocked reports open", i)
	case protocol.AdmitRecord:
		if m.recorded[a.Checkpoint] == nil {
			m.recorded[a.Checkpoint] = make([]int, len(m.streams))
		}
		m.recorded[a.Checkpoint][i]++
		if m.sealed[a.Checkpoint] {
			t.Fatalf("recorded for checkpoint %v after it was sealed", a.Checkpoint)
		}
		if m.barrierDelivered(i, a.Checkpoint) {
			t.Fatalf("recorded a record of input %d that follows the barrier of %v", i, a.Checkpoint)
		}
		if m.kinds[a.Checkpoint] == protocol.KindSavepoint {
			t.Fatalf("recorded channel state for savepoint %v", a.Checkpoint)
		}
	}
	m.next[i]++
	m.consumed[i]++
}

func (m *taskMachine) Tick(t *rapid.T) {
	m.now += protocol.Time(rapid.IntRange(1, 30).Draw(t, "advance"))
	m.task.Tick(m.now)
	m.handle(t, nil)
}

func (m *taskMachine) Upload(t *rapid.T) {
	var ids []protocol.CheckpointID
	for id := range m.inflight {
		if m.sealed[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Skip("nothing to upload")
	}
	slices.Sort(ids)
	id := rapid.SampledFrom(ids).Draw(t, "upload")
	delete(m.inflight, id)
	var err error
	failed := rapid.IntRange(0, 4).Draw(t, "upload-fails") == 0
	if failed {
		err = m.task.SnapshotFailed(m.now, id, protocol.ReasonUploadFailed)
	} else {
		err = m.task.SnapshotCompleted(m.now, id, protocol.TaskSnapshot{Handle: fmt.Sprintf("h%d", id)})
	}
	rd := m.handleReady(t, err)
	if len(rd.Messages) != 1 {
		t.Fatalf("upload report of %v (failed=%v) produced messages %v", id, failed, rd.Messages)
	}
	switch msg := rd.Messages[0]; {
	case failed && msg.Type != protocol.MsgDecline, !failed && msg.Type != protocol.MsgAck:
		t.Fatalf("upload report of %v (failed=%v) sent %v", id, failed, msg)
	case !failed:
		m.acked[id] = true
		m.recentAcks = append(m.recentAcks, id)
		if len(m.recentAcks) > m.ids+1 {
			m.recentAcks = m.recentAcks[1:]
		}
		if msg.Snapshot.Final != (m.firstFinal != 0 && id >= m.firstFinal) {
			t.Fatalf("ack of %v: final=%v, first final snapshot %v", id, msg.Snapshot.Final, m.firstFinal)
		}
	}
}

// LateUpload reports an upload the task gave up: its state is released,
// never acked.
func (m *taskMachine) LateUpload(t *rapid.T) {
	var ids []protocol.CheckpointID
	for id := range m.aborted {
		if !m.acked[id] && m.cut[id] != nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Skip("nothing given up")
	}
	slices.Sort(ids)
	id := rapid.SampledFrom(ids).Draw(t, "late")
	err := m.task.SnapshotCompleted(m.now, id, protocol.TaskSnapshot{Handle: fmt.Sprintf("late%d", id)})
	if err == nil {
		t.Fatalf("late upload of given-up %v accepted", id)
	}
	rd := m.task.Ready()
	if len(rd.Released) != 1 || len(rd.Messages) != 0 {
		t.Fatalf("late upload of %v: %+v", id, rd)
	}
}

func (m *taskMachine) Notify(t *rapid.T) {
	m.notified = true
	id := protocol.CheckpointID(rapid.IntRange(1, int(m.lastTrigger)+1).Draw(t, "notify"))
	complete := rapid.Bool().Draw(t, "complete")
	msg := protocol.NotifyAbortedMessage("t", id, protocol.ReasonExpired)
	if complete {
		msg = protocol.NotifyCompleteMessage("t", id)
	} else {
		m.seenMax = max(m.seenMax, id) // its barriers and triggers are stale now
	}
	wantExit := complete && !m.exited && m.finished && m.firstFinal != 0 && id >= m.firstFinal &&
		id > m.lastComplete && id > m.restored
	rd := m.handleReady(t, m.task.Step(m.now, msg))
	if rd.Exit != wantExit {
		t.Fatalf("notification %v: exit=%v, want %v (finished=%v first final %v)", msg, rd.Exit, wantExit, m.finished, m.firstFinal)
	}
}

// Trigger reaches the task directly, as the coordinator does once every
// upstream task fully finished: only after every input ended its data.
// Sometimes the trigger is a stale duplicate.
func (m *taskMachine) Trigger(t *rapid.T) {
	if !m.drained() {
		t.Skip("inputs still running")
	}
	id := max(m.lastTrigger, m.seenMax) + 1
	if m.seenMax > 0 && rapid.IntRange(0, 3).Draw(t, "stale-trigger") == 0 {
		id = protocol.CheckpointID(rapid.IntRange(1, int(m.seenMax)).Draw(t, "stale"))
	}
	kind := protocol.KindCheckpoint
	if rapid.IntRange(0, 4).Draw(t, "trigger-savepoint") == 0 {
		kind = protocol.KindSavepoint
	}
	mode := m.mode
	if mode == protocol.ModeAlignedWithTimeout {
		mode = protocol.ModeAligned
	}
	fresh := id > m.seenMax && !m.exited
	m.lastTrigger = max(m.lastTrigger, id)
	m.seenMax = max(m.seenMax, id)
	rd := m.handleReady(t, m.task.Step(m.now, protocol.TriggerMessage("t", id, kind, mode, m.now)))
	took := slices.ContainsFunc(rd.Snapshots, func(s protocol.SnapshotRequest) bool { return s.Checkpoint == id })
	if fresh != took && !m.refused {
		t.Fatalf("trigger %v (fresh=%v): snapshot=%v %+v", id, fresh, took, rd)
	}
	if !fresh {
		for _, msg := range rd.Messages {
			if msg.Type == protocol.MsgDecline && (slices.Contains(m.recentAcks, id) || m.inflight[id]) {
				t.Fatalf("stale trigger of %v declined though the task has its snapshot", id)
			}
		}
	}
}

// Finish ends the task's records once every input ended its data.
func (m *taskMachine) Finish(t *rapid.T) {
	err := m.task.Finish(m.now)
	if !m.drained() {
		if err == nil && !m.finished {
			t.Fatal("Finish accepted with inputs still running")
		}
		m.handle(t, nil)
		return
	}
	first := !m.finished && !m.exited
	rd := m.handleReady(t, err)
	m.finished = true
	if !first {
		if !rd.IsEmpty() {
			t.Fatalf("repeated Finish asked for %+v", rd)
		}
		return
	}
	eod := 0
	for _, s := range rd.Sends {
		if s.Event.Type == protocol.EventEndOfData {
			eod++
		}
	}
	if eod != m.outputs || !slices.ContainsFunc(rd.Messages, func(msg protocol.Message) bool { return msg.Type == protocol.MsgTaskFinished }) {
		t.Fatalf("Finish: %+v", rd)
	}
}

func (m *taskMachine) handle(t *rapid.T, err error) { m.handleReady(t, err) }

// handleReady plays the host: it takes the snapshots (recording the cut),
// and checks every output against the streams.
func (m *taskMachine) handleReady(t *rapid.T, err error) protocol.TaskReady {
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	rd := m.task.Ready()
	if m.exited {
		if !rd.IsEmpty() {
			t.Fatalf("exited task asks for %+v", rd)
		}
		return rd
	}
	for _, s := range rd.Snapshots {
		if s.Checkpoint <= m.lastSnapshot {
			t.Fatalf("snapshot %v after snapshot %v", s.Checkpoint, m.lastSnapshot)
		}
		if s.Checkpoint <= m.restored {
			t.Fatalf("snapshot %v at or below the restored checkpoint %v", s.Checkpoint, m.restored)
		}
		if s.Final != m.finished {
			t.Fatalf("snapshot %v final=%v, task finished=%v", s.Checkpoint, s.Final, m.finished)
		}
		if s.Kind == protocol.KindSavepoint && (s.Mode != protocol.ModeAligned || s.AwaitChannelState) {
			t.Fatalf("savepoint snapshot %v", s)
		}
		if m.finished && m.firstFinal == 0 {
			m.firstFinal = s.Checkpoint
		}
		m.lastSnapshot = s.Checkpoint
		m.cut[s.Checkpoint] = slices.Clone(m.consumed)
		m.inflight[s.Checkpoint] = true
		if !s.AwaitChannelState {
			m.seal(t, s.Checkpoint)
		}
	}
	for _, s := range rd.Sends {
		if s.Output == 0 && (s.Event.Type == protocol.EventBarrier || s.Event.Type == protocol.EventCancelMarker) {
			// Ids on a channel never go backwards: a barrier above every
			// id before it, a marker at least as high.
			id := s.Event.Checkpoint
			if id < m.lastSentOnOut0 || (s.Event.Type == protocol.EventBarrier && id == m.lastSentOnOut0) {
				t.Fatalf("%v sent after %v on output 0", s.Event, m.lastSentOnOut0)
			}
			m.lastSentOnOut0 = id
		}
		if s.Event.Type != protocol.EventBarrier || s.Output != 0 {
			continue
		}
		id := s.Event.Checkpoint
		if m.cut[id] == nil {
			t.Fatalf("barrier %v forwarded before its snapshot", id)
		}
		if id <= m.lastForwarded {
			t.Fatalf("barrier %v forwarded after %v", id, m.lastForwarded)
		}
		m.lastForwarded = id
	}
	for _, id := range rd.Sealed {
		m.seal(t, id)
	}
	for _, a := range rd.Aborted {
		m.aborted[a.Checkpoint] = true
		delete(m.inflight, a.Checkpoint)
		if a.Reason == protocol.ReasonTooManyPending || a.Reason == protocol.ReasonChannelStateOverflow {
			m.refused = true
		}
	}
	for _, msg := range rd.Messages {
		if msg.Type == protocol.MsgDecline && slices.Contains(m.recentAcks, msg.Checkpoint) {
			t.Fatalf("decline of %v, which the task acked", msg.Checkpoint)
		}
	}
	for _, n := range rd.Notifications {
		switch n.Type {
		case protocol.NotifyComplete:
			if n.Checkpoint <= m.lastComplete || n.Checkpoint <= m.restored {
				t.Fatalf("completion notification %v after %v (restored %v)", n.Checkpoint, m.lastComplete, m.restored)
			}
			m.lastComplete = n.Checkpoint
		case protocol.NotifyAborted:
			if n.Checkpoint <= m.lastComplete || n.Checkpoint <= m.restored {
				t.Fatalf("abort notification %v at or below completion %v (restored %v)", n.Checkpoint, m.lastComplete, m.restored)
			}
		}
	}
	if rd.Exit {
		m.exited = true
		m.checkEndOfPartition(t, rd)
		if len(m.inflight) != 0 {
			t.Fatalf("exit with snapshots %v still in flight (not given up)", m.inflight)
		}
		if m.task.Status().Aligning != 0 {
			t.Fatal("exit while still aligning")
		}
	}
	return rd
}

// checkEndOfPartition: an exit closes every output, after everything else.
func (m *taskMachine) checkEndOfPartition(t *rapid.T, rd protocol.TaskReady) {
	n := len(rd.Sends)
	if n < m.outputs {
		t.Fatalf("exit without end of partition on every output: %v", rd.Sends)
	}
	for _, s := range rd.Sends[n-m.outputs:] {
		if s.Event.Type != protocol.EventEndOfPartition {
			t.Fatalf("exit: %v after the end of partition", rd.Sends)
		}
	}
}

// seal checks the cut of a checkpoint whose state is complete at the task.
func (m *taskMachine) seal(t *rapid.T, id protocol.CheckpointID) {
	if m.sealed[id] {
		t.Fatalf("checkpoint %v sealed twice", id)
	}
	m.sealed[id] = true
	if id > protocol.CheckpointID(m.ids) {
		return // a direct trigger: its cut is wherever the task stands
	}
	for i := range m.streams {
		delivered := m.barrierDelivered(i, id)
		if !delivered && !m.closed[i] {
			t.Fatalf("checkpoint %v complete while input %d neither delivered its barrier nor ended", id, i)
		}
		want := m.recordsBefore(i, id)
		got := m.cut[id][i]
		if m.recorded[id] != nil {
			got += m.recorded[id][i]
		}
		if m.mode == protocol.ModeAtLeastOnce && m.kinds[id] == protocol.KindCheckpoint {
			if got < want {
				t.Fatalf("at-least-once checkpoint %v input %d: snapshot covers %d records, %d precede the barrier", id, i, got, want)
			}
			continue
		}
		if got != want {
			t.Fatalf("%v %v input %d: consumed %d + recorded %v before the cut, %d records precede the barrier (%s)",
				m.kinds[id], id, i, m.cut[id][i], m.recorded[id], want, m.mode)
		}
	}
}

func (m *taskMachine) Check(t *rapid.T) {
	aligning := m.task.Status().Aligning
	ok := aligning != 0
	for i := range m.streams {
		if !m.task.Blocked(i) {
			continue
		}
		savepoint := ok && int(aligning) <= m.ids && m.kinds[aligning] == protocol.KindSavepoint
		if (m.mode == protocol.ModeUnaligned || m.mode == protocol.ModeAtLeastOnce) && !savepoint {
			t.Fatalf("input %d blocked in mode %v", i, m.mode)
		}
		if m.closed[i] {
			t.Fatalf("closed input %d blocked", i)
		}
		if m.exited {
			t.Fatalf("exited task blocks input %d", i)
		}
	}
}

// finish delivers everything left (ticking past every alignment timeout)
// and checks liveness: nothing stays blocked, nothing stays aligning, and in
// aligned and at-least-once modes every checkpoint whose barrier is on every
// input was snapshotted (unless a bound, an injected notification or a
// trigger intervened, or the task had left).
func (m *taskMachine) finish(t *rapid.T) {
	for steps := 0; ; steps++ {
		if steps > 10000 {
			t.Fatal("delivery does not terminate")
		}
		progress := false
		for i := range m.streams {
			for m.next[i] < len(m.streams[i]) && !m.task.Blocked(i) {
				it := m.streams[i][m.next[i]]
				if it.record {
					m.admit(t, i)
					m.handle(t, nil)
				} else {
					m.next[i]++
					if it.event.Type == protocol.EventEndOfPartition {
						m.closed[i] = true
					}
					m.handle(t, m.receive(i, it.event))
				}
				progress = true
			}
		}
		if !progress {
			break
		}
	}
	for i := range m.streams {
		if m.next[i] < len(m.streams[i]) {
			t.Fatalf("input %d stuck at item %d of %d (blocked=%v)", i, m.next[i], len(m.streams[i]), m.task.Blocked(i))
		}
	}
	if id := m.task.Status().Aligning; id != 0 {
		t.Fatalf("still aligning %v after every input ended", id)
	}
	if m.mode == protocol.ModeUnaligned || m.notified || m.refused || m.exited || m.lastTrigger > protocol.CheckpointID(m.ids) {
		return
	}
	for id := m.restored + 1; id <= protocol.CheckpointID(m.ids); id++ {
		everywhere := true
		for i := range m.streams {
			everywhere = everywhere && m.barrierDelivered(i, id)
		}
		cancelled, ok := m.newerCancelAt[id]
		overtaken := ok && cancelled < m.lastBarrierAt[id]
		if everywhere && m.cut[id] == nil && !overtaken {
			t.Fatalf("checkpoint %v has its barrier on every input but was never snapshotted (%v)", id, m.mode)
		}
	}
}

// TestRapidTaskBarrierHandlers runs the state machine once per barrier
// handler, so that each mode gets the full number of checks.
func TestRapidTaskBarrierHandlers(t *testing.T) {
	for m := protocol.ModeAligned; m <= protocol.ModeAtLeastOnce; m++ {
		t.Run(m.String(), func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				machine := newTaskMachine(rt, m)
				rt.Repeat(rapid.StateMachineActions(machine))
				machine.finish(rt)
			})
		})
	}
}
