package protocol_test

// A rapid state-machine test of the task-side barrier handlers in every
// mode. The reference model is the input streams themselves: each input is
// a generated FIFO sequence of records, barriers (ids increasing), cancel
// markers, end of data and end of partition. From it the test knows, for
// every checkpoint and input, how many records precede the barrier, which is
// all a consistent cut needs: when a checkpoint's state is complete at the
// task, the records consumed before its snapshot plus the records recorded
// as its channel state must equal the records before its barrier, on every
// input (at least that many, in at-least-once mode).

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
	task    *protocol.Task
	now     protocol.Time
	streams [][]streamItem
	next    []int // position of the next item per input
	closed  []bool

	consumed []int                                // records consumed per input
	cut      map[protocol.CheckpointID][]int      // consumed at the snapshot
	recorded map[protocol.CheckpointID][]int      // channel-state records
	sealed   map[protocol.CheckpointID]bool       // state complete at the task
	inflight map[protocol.CheckpointID]bool       // requested, not reported
	aborted  map[protocol.CheckpointID]bool       // given up by the task
	barriers map[protocol.CheckpointID][]struct{} // forwarded barriers (output 0)

	lastSnapshot  protocol.CheckpointID
	lastForwarded protocol.CheckpointID
	lastComplete  protocol.CheckpointID
	seenMax       protocol.CheckpointID // highest id of any event delivered
	notified      bool                  // a notification was injected
	refused       bool                  // a bound declined something
}

func newTaskMachine(t *rapid.T, mode protocol.Mode) *taskMachine {
	m := &taskMachine{
		mode:     mode,
		ids:      rapid.IntRange(1, 5).Draw(t, "ids"),
		cut:      map[protocol.CheckpointID][]int{},
		recorded: map[protocol.CheckpointID][]int{},
		sealed:   map[protocol.CheckpointID]bool{},
		inflight: map[protocol.CheckpointID]bool{},
		aborted:  map[protocol.CheckpointID]bool{},
		barriers: map[protocol.CheckpointID][]struct{}{},
	}
	inputs := rapid.IntRange(1, 3).Draw(t, "inputs")
	cfg := protocol.DefaultConfig()
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
	m.next = make([]int, inputs)
	m.closed = make([]bool, inputs)
	m.consumed = make([]int, inputs)
	var err error
	m.task, err = protocol.NewTask(cfg.TaskConfig("t", chans, []protocol.ChannelID{{From: "t", To: "down"}}))
	if err != nil {
		t.Fatal(err)
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
			if mode == protocol.ModeAlignedWithTimeout && rapid.Bool().Draw(t, "upstream-switched") {
				mode = protocol.ModeUnaligned
			}
			s = append(s, streamItem{event: protocol.Barrier(protocol.CheckpointID(id), protocol.KindCheckpoint, mode, 0)})
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
		}
		m.next[i]++
		m.consumed[i]++
		m.handle(t, nil)
		return
	}
	m.next[i]++
	if it.event.Type == protocol.EventEndOfPartition {
		m.closed[i] = true
	}
	isNew := it.event.Checkpoint > m.seenMax
	if it.event.Checkpoint > m.seenMax {
		m.seenMax = it.event.Checkpoint
	}
	err := m.task.Receive(m.now, i, it.event)
	rd := m.handleReady(t, err)
	// Unaligned: the first barrier of a new checkpoint snapshots at once.
	if m.mode == protocol.ModeUnaligned && isNew && it.event.Type == protocol.EventBarrier && !m.notified {
		if !slices.ContainsFunc(rd.Snapshots, func(s protocol.SnapshotRequest) bool { return s.Checkpoint == it.event.Checkpoint }) {
			t.Fatalf("unaligned first barrier of %v did not snapshot at once: %+v", it.event.Checkpoint, rd)
		}
	}
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
	if rapid.IntRange(0, 4).Draw(t, "upload-fails") == 0 {
		err = m.task.SnapshotFailed(m.now, id, protocol.ReasonUploadFailed)
	} else {
		err = m.task.SnapshotCompleted(m.now, id, protocol.TaskSnapshot{Handle: fmt.Sprintf("h%d", id)})
	}
	rd := m.handleReady(t, err)
	if err == nil && len(rd.Messages) != 1 {
		t.Fatalf("upload report of %v produced %d messages", id, len(rd.Messages))
	}
}

func (m *taskMachine) Notify(t *rapid.T) {
	m.notified = true
	id := protocol.CheckpointID(rapid.IntRange(1, m.ids).Draw(t, "notify"))
	var msg protocol.Message
	if rapid.Bool().Draw(t, "complete") {
		msg = protocol.NotifyCompleteMessage("t", id)
	} else {
		msg = protocol.NotifyAbortedMessage("t", id, protocol.ReasonExpired)
	}
	m.handle(t, m.task.Step(m.now, msg))
}

func (m *taskMachine) handle(t *rapid.T, err error) { m.handleReady(t, err) }

// handleReady plays the host: it takes the snapshots (recording the cut),
// and checks every output against the streams.
func (m *taskMachine) handleReady(t *rapid.T, err error) protocol.TaskReady {
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	rd := m.task.Ready()
	for _, s := range rd.Snapshots {
		if s.Checkpoint <= m.lastSnapshot {
			t.Fatalf("snapshot %v after snapshot %v", s.Checkpoint, m.lastSnapshot)
		}
		m.lastSnapshot = s.Checkpoint
		m.cut[s.Checkpoint] = slices.Clone(m.consumed)
		m.inflight[s.Checkpoint] = true
		if !s.AwaitChannelState {
			m.seal(t, s.Checkpoint)
		}
	}
	for _, s := range rd.Sends {
		if s.Event.Type != protocol.EventBarrier {
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
	for _, n := range rd.Notifications {
		switch n.Type {
		case protocol.NotifyComplete:
			if n.Checkpoint <= m.lastComplete {
				t.Fatalf("completion notification %v after %v", n.Checkpoint, m.lastComplete)
			}
			m.lastComplete = n.Checkpoint
		case protocol.NotifyAborted:
			if n.Checkpoint <= m.lastComplete {
				t.Fatalf("abort notification %v at or below completion %v", n.Checkpoint, m.lastComplete)
			}
		}
	}
	return rd
}

// seal checks the cut of a checkpoint whose state is complete at the task.
func (m *taskMachine) seal(t *rapid.T, id protocol.CheckpointID) {
	if m.sealed[id] {
		t.Fatalf("checkpoint %v sealed twice", id)
	}
	m.sealed[id] = true
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
		if m.mode == protocol.ModeAtLeastOnce {
			if got < want {
				t.Fatalf("at-least-once checkpoint %v input %d: snapshot covers %d records, %d precede the barrier", id, i, got, want)
			}
			continue
		}
		if got != want {
			t.Fatalf("checkpoint %v input %d: consumed %d + recorded %v before the cut, %d records precede the barrier (%s)",
				id, i, m.cut[id][i], m.recorded[id], want, m.mode)
		}
	}
}

func (m *taskMachine) Check(t *rapid.T) {
	for i := range m.streams {
		if m.task.Blocked(i) {
			if m.mode == protocol.ModeUnaligned || m.mode == protocol.ModeAtLeastOnce {
				t.Fatalf("input %d blocked in mode %v", i, m.mode)
			}
			if m.closed[i] {
				t.Fatalf("closed input %d blocked", i)
			}
		}
	}
}

// finish delivers everything left (ticking past every alignment timeout)
// and checks liveness: nothing stays blocked, nothing stays aligning, and in
// aligned and at-least-once modes every checkpoint whose barrier is on every
// input was snapshotted (unless a bound or an injected notification
// intervened).
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
					a := m.task.Admit(i)
					if a.Action == protocol.AdmitRecord {
						if m.recorded[a.Checkpoint] == nil {
							m.recorded[a.Checkpoint] = make([]int, len(m.streams))
						}
						m.recorded[a.Checkpoint][i]++
					}
					m.consumed[i]++
					m.next[i]++
					m.handle(t, nil)
				} else {
					m.next[i]++
					if it.event.Type == protocol.EventEndOfPartition {
						m.closed[i] = true
					}
					m.handle(t, m.task.Receive(m.now, i, it.event))
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
	if id, ok := m.task.Aligning(); ok {
		t.Fatalf("still aligning %v after every input ended", id)
	}
	if m.mode == protocol.ModeUnaligned || m.notified || m.refused {
		return
	}
	for id := protocol.CheckpointID(1); id <= protocol.CheckpointID(m.ids); id++ {
		everywhere := true
		for i := range m.streams {
			everywhere = everywhere && m.barrierDelivered(i, id)
		}
		if everywhere && m.cut[id] == nil {
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
