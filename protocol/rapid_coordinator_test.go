package protocol_test

// A rapid state-machine test of the Coordinator. The reference model is a
// deliberately plain table of every checkpoint id the test has seen
// (phase, expected tasks, snapshots held) plus the host's durable storage
// and the set of state the host deleted because the coordinator said so.
// It predicts which acks and declines the coordinator must accept and what
// each metadata write must contain, and after every step the test checks
// the coordinator's outputs against the rules of the package: ids strictly
// increasing and durable before use, one counter write at a time,
// notifications only for durable checkpoints, aborted never completed,
// released state never held by a stored or pending checkpoint and never
// used again, the state of discarded checkpoints released unless shared,
// retention, bounds (a started savepoint holds a MaxConcurrent slot, and
// goes beyond the bound where Flink forces it), failover
// plans naming the newest restorable checkpoint, and no failover of a
// finished job.

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/protocol"
)

type modelPhase int

const (
	modelReserved modelPhase = iota
	modelCollecting
	modelPersisting
	modelCompleted
	modelAborted
)

type modelCheckpoint struct {
	id       protocol.CheckpointID
	kind     protocol.Kind
	phase    modelPhase
	expected []bool
	// held[i]: snaps[i] is in the checkpoint (an ack, or a final
	// snapshot carried over).
	held  []bool
	snaps []protocol.TaskSnapshot
}

type handleKey struct {
	task   protocol.TaskID
	handle string
}

type coordinatorMachine struct {
	cfg   protocol.Config
	topo  protocol.Topology
	coord *protocol.Coordinator
	now   protocol.Time

	// durable storage
	counter protocol.CheckpointID
	store   []protocol.CompletedCheckpoint
	// writes asked for and not answered
	counterWrites []protocol.CheckpointID
	metaWrites    []protocol.CompletedCheckpoint
	// deleted is the state the host deleted (Released).
	deleted map[handleKey]bool

	// model
	cps           map[protocol.CheckpointID]*modelCheckpoint
	knownHighest  protocol.CheckpointID // highest id the model has an entry for
	maxTriggered  protocol.CheckpointID // over every incarnation
	fullyFinished []bool
	finalSnap     []protocol.TaskSnapshot
	// finalFrom[i]: task i finished; its snapshots of ids >= finalFrom[i]
	// are final (0: running). Snapshots are taken in id order, so
	// finality is monotone in the id.
	finalFrom   []protocol.CheckpointID
	failures    int
	failingOver bool // plan emitted or requested, JobRestarted pending
	// failoverByFailures: the request came from TolerableFailures (not the
	// host); a job that finishes before the plan drops it.
	failoverByFailures bool
	planOut            bool // plan emitted, JobRestarted not yet called
	jobFinished        bool
	// stopPending is the pending stop-with-savepoint, 0 if none.
	stopPending protocol.CheckpointID
	handleSeq   int
}

// restorable reports whether a completed checkpoint of kind k is one recovery restores:
// a checkpoint, or the stop-with-savepoint that ended the job.
func restorable(k protocol.Kind) bool {
	return k == protocol.KindCheckpoint || k.IsStop()
}

func newCoordinatorMachine(t *rapid.T) *coordinatorMachine {
	m := &coordinatorMachine{cps: map[protocol.CheckpointID]*modelCheckpoint{}, deleted: map[handleKey]bool{}}
	n := rapid.IntRange(1, 4).Draw(t, "tasks")
	for i := range n {
		m.topo.Tasks = append(m.topo.Tasks, protocol.TaskID(fmt.Sprintf("t%d", i)))
	}
	for to := 1; to < n; to++ {
		for from := 0; from < to; from++ {
			if rapid.Bool().Draw(t, "edge") {
				m.topo.Channels = append(m.topo.Channels, protocol.ChannelID{From: m.topo.Tasks[from], To: m.topo.Tasks[to]})
			}
		}
	}
	cfg := protocol.DefaultConfig()
	cfg.CheckInvariants = true
	cfg.Mode = rapid.SampledFrom([]protocol.Mode{protocol.ModeAligned, protocol.ModeUnaligned, protocol.ModeAtLeastOnce}).Draw(t, "mode")
	cfg.MaxPendingCheckpoints = rapid.IntRange(1, 4).Draw(t, "maxPending")
	cfg.MaxConcurrent = rapid.IntRange(1, cfg.MaxPendingCheckpoints).Draw(t, "maxConcurrent")
	if cfg.Mode == protocol.ModeUnaligned {
		cfg.MaxConcurrent = 1
	}
	cfg.Interval = time.Duration(rapid.SampledFrom([]int{0, 10, 50, 100}).Draw(t, "interval"))
	cfg.Timeout = time.Duration(rapid.IntRange(20, 300).Draw(t, "timeout"))
	cfg.MinPause = time.Duration(rapid.IntRange(0, 50).Draw(t, "minPause"))
	cfg.TolerableFailures = rapid.IntRange(0, 3).Draw(t, "tolerable")
	cfg.RetainedCheckpoints = rapid.IntRange(1, 3).Draw(t, "retained")
	cfg.JitterSeed = rapid.Uint64().Draw(t, "seed")
	m.cfg = cfg
	m.fullyFinished = make([]bool, n)
	m.finalSnap = make([]protocol.TaskSnapshot, n)
	m.finalFrom = make([]protocol.CheckpointID, n)
	m.start(t, protocol.Durable{})
	return m
}

func (m *coordinatorMachine) start(t *rapid.T, durable protocol.Durable) {
	var err error
	m.coord, err = protocol.NewCoordinator(m.cfg, m.topo, durable, m.now)
	if err != nil {
		t.Fatal(err)
	}
	m.counterWrites, m.metaWrites = nil, nil
	m.failures, m.stopPending = 0, 0
	m.failingOver, m.planOut = false, false
	// The previous incarnation's checkpoints are gone from memory.
	for _, cp := range m.cps {
		if cp.phase != modelCompleted {
			cp.phase = modelAborted
		}
	}
	// Ids above the durable counter were never used (a trigger waits for
	// the counter): the new incarnation hands them out again.
	m.knownHighest = m.coord.Status().HighestID
	for id := range m.cps {
		if id > m.knownHighest {
			if m.cps[id].phase != modelAborted || id <= m.maxTriggered {
				t.Fatalf("checkpoint %v above the recovered counter %v was used", id, m.knownHighest)
			}
			delete(m.cps, id)
		}
	}
	m.recomputeFullyFinished()
	m.jobFinished = m.allFullyFinished()
	m.handle(t, nil, nil)
}

// latestDurable is the newest checkpoint (not savepoint) in the store.
func (m *coordinatorMachine) latestDurable() *protocol.CompletedCheckpoint {
	var latest *protocol.CompletedCheckpoint
	for i := range m.store {
		if restorable(m.store[i].Kind) && (latest == nil || m.store[i].ID > latest.ID) {
			latest = &m.store[i]
		}
	}
	return latest
}

func (m *coordinatorMachine) recomputeFullyFinished() {
	clear(m.fullyFinished)
	if latest := m.latestDurable(); latest != nil {
		for i, ts := range latest.Tasks {
			if ts.Snapshot.Final {
				m.fullyFinished[i] = true
				m.finalSnap[i] = ts.Snapshot
			}
		}
	}
}

func (m *coordinatorMachine) allFullyFinished() bool {
	return !slices.Contains(m.fullyFinished, false)
}

func (m *coordinatorMachine) inStore(id protocol.CheckpointID) bool {
	return slices.ContainsFunc(m.store, func(c protocol.CompletedCheckpoint) bool { return c.ID == id })
}

// snapshot is the next upload of task for checkpoint id.
func (m *coordinatorMachine) snapshot(task int, id protocol.CheckpointID) protocol.TaskSnapshot {
	m.handleSeq++
	final := m.finalFrom[task] != 0 && id >= m.finalFrom[task]
	return protocol.TaskSnapshot{Handle: fmt.Sprintf("h%d", m.handleSeq), Final: final}
}

// --- actions ---

func (m *coordinatorMachine) Tick(t *rapid.T) {
	m.now += protocol.Time(rapid.IntRange(0, 120).Draw(t, "advance"))
	m.coord.Tick(m.now)
	m.handle(t, nil, nil)
}

// TickToDeadline jumps to the coordinator's next deadline, so that timeouts
// and re-announcements happen often.
func (m *coordinatorMachine) TickToDeadline(t *rapid.T) {
	d := m.coord.NextDeadline()
	if d == protocol.NoDeadline {
		t.Skip("no deadline")
	}
	m.now = max(m.now, d)
	m.coord.Tick(m.now)
	m.handle(t, nil, nil)
}

func (m *coordinatorMachine) CounterWrite(t *rapid.T) {
	if len(m.counterWrites) == 0 {
		t.Skip("no counter write")
	}
	v := m.counterWrites[0]
	m.counterWrites = nil
	var err error
	if rapid.IntRange(0, 5).Draw(t, "counter-fails") == 0 {
		err = errors.New("counter write failed")
	} else {
		if v < m.counter {
			t.Fatalf("counter write %v would lower the stored counter %v", v, m.counter)
		}
		m.counter = v
	}
	m.coord.CounterPersisted(m.now, v, err)
	m.handle(t, nil, nil)
}

func (m *coordinatorMachine) MetadataWrite(t *rapid.T) {
	if len(m.metaWrites) == 0 {
		t.Skip("no metadata write")
	}
	i := rapid.IntRange(0, len(m.metaWrites)-1).Draw(t, "write")
	cc := m.metaWrites[i]
	m.metaWrites = slices.Delete(m.metaWrites, i, i+1)
	var err error
	if rapid.IntRange(0, 5).Draw(t, "persist-fails") == 0 {
		err = errors.New("store unavailable")
	} else {
		m.store = append(m.store, cc)
	}
	m.coord.MetadataPersisted(m.now, cc.ID, err)
	m.handle(t, nil, &cc)
}

func (m *coordinatorMachine) pickID(t *rapid.T) protocol.CheckpointID {
	return protocol.CheckpointID(rapid.IntRange(1, int(m.coord.Status().HighestID)+1).Draw(t, "id"))
}

func (m *coordinatorMachine) Ack(t *rapid.T) {
	task := rapid.IntRange(0, len(m.topo.Tasks)-1).Draw(t, "task")
	id := m.pickID(t)
	snap := m.snapshot(task, id)
	cp := m.cps[id]
	accept := cp != nil && cp.phase == modelCollecting && cp.expected[task] && !cp.held[task]
	err := m.coord.Step(m.now, protocol.AckMessage(m.topo.Tasks[task], id, snap))
	if accept != (err == nil) {
		t.Fatalf("ack of %v by %s: model accepts=%v, coordinator says %v", id, m.topo.Tasks[task], accept, err)
	}
	if accept {
		cp.held[task] = true
		cp.snaps[task] = snap
	}
	m.handle(t, nil, nil)
	if accept && m.complete(cp) && cp.phase != modelPersisting && cp.phase != modelCompleted {
		t.Fatalf("every expected task acked %v but no metadata write", id)
	}
}

func (m *coordinatorMachine) complete(cp *modelCheckpoint) bool {
	for i := range cp.held {
		if !cp.held[i] {
			return false
		}
	}
	return true
}

// AckExpected sends an ack the coordinator is waiting for, so that
// checkpoints actually complete (random acks mostly miss).
func (m *coordinatorMachine) AckExpected(t *rapid.T) {
	var ids []protocol.CheckpointID
	for id, cp := range m.cps {
		if cp.phase == modelCollecting {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Skip("nothing collecting")
	}
	slices.Sort(ids)
	cp := m.cps[rapid.SampledFrom(ids).Draw(t, "collecting")]
	var tasks []int
	for i, e := range cp.expected {
		if e && !cp.held[i] {
			tasks = append(tasks, i)
		}
	}
	task := rapid.SampledFrom(tasks).Draw(t, "task")
	snap := m.snapshot(task, cp.id)
	if err := m.coord.Step(m.now, protocol.AckMessage(m.topo.Tasks[task], cp.id, snap)); err != nil {
		t.Fatalf("expected ack of %v by %s refused: %v", cp.id, m.topo.Tasks[task], err)
	}
	cp.held[task] = true
	cp.snaps[task] = snap
	m.handle(t, nil, nil)
}

// DuplicateAck resends an ack the coordinator already took: it must be
// refused, and the state it names must not be released while a checkpoint
// holds it (checkRelease sees every release).
func (m *coordinatorMachine) DuplicateAck(t *rapid.T) {
	type sent struct {
		cp   *modelCheckpoint
		task int
	}
	var acks []sent
	for _, id := range slices.Sorted(maps.Keys(m.cps)) {
		cp := m.cps[id]
		for i, h := range cp.held {
			if h {
				acks = append(acks, sent{cp, i})
			}
		}
	}
	if len(acks) == 0 {
		t.Skip("no ack sent yet")
	}
	a := rapid.SampledFrom(acks).Draw(t, "duplicate")
	err := m.coord.Step(m.now, protocol.AckMessage(m.topo.Tasks[a.task], a.cp.id, a.cp.snaps[a.task]))
	if !errors.Is(err, protocol.ErrUnknownCheckpoint) {
		t.Fatalf("duplicate ack of %v by %s: %v", a.cp.id, m.topo.Tasks[a.task], err)
	}
	m.handle(t, nil, nil)
}

func (m *coordinatorMachine) Decline(t *rapid.T) {
	task := rapid.IntRange(0, len(m.topo.Tasks)-1).Draw(t, "task")
	id := m.pickID(t)
	reason := rapid.SampledFrom([]protocol.Reason{protocol.ReasonUploadFailed, protocol.ReasonNewerBarrier, protocol.ReasonChannelStateOverflow}).Draw(t, "reason")
	cp := m.cps[id]
	accept := cp != nil && cp.phase == modelCollecting && cp.expected[task] && !cp.held[task]
	err := m.coord.Step(m.now, protocol.DeclineMessage(m.topo.Tasks[task], id, reason))
	if accept != (err == nil) {
		t.Fatalf("decline of %v by %s: model accepts=%v, coordinator says %v", id, m.topo.Tasks[task], accept, err)
	}
	m.handle(t, nil, nil)
	if accept && cp.phase != modelAborted {
		t.Fatalf("accepted decline of %v did not abort it", id)
	}
}

func (m *coordinatorMachine) Checkpoint(t *rapid.T) {
	err := m.coord.TriggerCheckpoint(m.now)
	switch {
	case m.failingOver:
		if !errors.Is(err, protocol.ErrFailingOver) {
			t.Fatalf("TriggerCheckpoint while failing over: %v", err)
		}
	case m.jobFinished:
		if !errors.Is(err, protocol.ErrJobFinished) {
			t.Fatalf("TriggerCheckpoint after the job finished: %v", err)
		}
	case err != nil:
		t.Fatalf("TriggerCheckpoint: %v", err)
	}
	m.handle(t, nil, nil)
}

func (m *coordinatorMachine) Savepoint(t *rapid.T) {
	pending := 0
	for _, cp := range m.cps {
		if cp.phase < modelCompleted {
			pending++
		}
	}
	id, err := m.coord.TriggerSavepoint(m.now)
	switch {
	case m.failingOver:
		if !errors.Is(err, protocol.ErrFailingOver) {
			t.Fatalf("savepoint during failover: %v", err)
		}
	case m.jobFinished:
		if !errors.Is(err, protocol.ErrJobFinished) {
			t.Fatalf("savepoint after the job finished: %v", err)
		}
	case m.stopPending != 0:
		if !errors.Is(err, protocol.ErrStopPending) {
			t.Fatalf("savepoint while stop %v is pending: %v", m.stopPending, err)
		}
	case pending >= m.cfg.MaxPendingCheckpoints:
		if !errors.Is(err, protocol.ErrTooManyPending) {
			t.Fatalf("savepoint beyond the bound: %v", err)
		}
	case err != nil:
		t.Fatalf("savepoint refused: %v", err)
	default:
		if id != m.knownHighest+1 {
			t.Fatalf("savepoint got id %v, want %v", id, m.knownHighest+1)
		}
		m.cps[id] = &modelCheckpoint{id: id, kind: protocol.KindSavepoint, phase: modelReserved}
	}
	m.handle(t, nil, nil)
}

// Stop asks for a stop-with-savepoint, with or without drain: refused like a
// savepoint, and while another stop is pending.
func (m *coordinatorMachine) Stop(t *rapid.T) {
	kind, stop := protocol.KindStopSavepoint, m.coord.StopWithSavepoint
	if rapid.Bool().Draw(t, "drain") {
		kind, stop = protocol.KindDrainSavepoint, m.coord.DrainWithSavepoint
	}
	pending := 0
	for _, cp := range m.cps {
		if cp.phase < modelCompleted {
			pending++
		}
	}
	id, err := stop(m.now)
	switch {
	case m.failingOver:
		if !errors.Is(err, protocol.ErrFailingOver) {
			t.Fatalf("stop during failover: %v", err)
		}
	case m.jobFinished:
		if !errors.Is(err, protocol.ErrJobFinished) {
			t.Fatalf("stop after the job finished: %v", err)
		}
	case m.stopPending != 0:
		if !errors.Is(err, protocol.ErrStopPending) {
			t.Fatalf("stop while stop %v is pending: %v", m.stopPending, err)
		}
	case pending >= m.cfg.MaxPendingCheckpoints:
		if !errors.Is(err, protocol.ErrTooManyPending) {
			t.Fatalf("stop beyond the bound: %v", err)
		}
	case err != nil:
		t.Fatalf("stop refused: %v", err)
	default:
		if id != m.knownHighest+1 {
			t.Fatalf("stop got id %v, want %v", id, m.knownHighest+1)
		}
		m.cps[id] = &modelCheckpoint{id: id, kind: kind, phase: modelReserved}
		m.stopPending = id
	}
	m.handle(t, nil, nil)
}

// TaskFinished has a task finish: its snapshots from now on are final.
func (m *coordinatorMachine) TaskFinished(t *rapid.T) {
	task := rapid.IntRange(0, len(m.topo.Tasks)-1).Draw(t, "task")
	if m.finalFrom[task] == 0 && !m.failingOver {
		m.finalFrom[task] = m.coord.Status().HighestID + 1
	}
	m.handle(t, m.coord.Step(m.now, protocol.TaskFinishedMessage(m.topo.Tasks[task])), nil)
}

func (m *coordinatorMachine) Failover(t *rapid.T) {
	m.coord.RequestFailover(m.now, protocol.ReasonTaskFailure)
	if !m.failingOver {
		m.failingOver, m.failoverByFailures = true, false
	}
	m.handle(t, nil, nil)
}

func (m *coordinatorMachine) Restarted(t *rapid.T) {
	if !m.planOut {
		t.Skip("no plan")
	}
	m.planOut, m.failingOver = false, false
	m.failures = 0
	m.recomputeFullyFinished()
	for i := range m.finalFrom {
		if !m.fullyFinished[i] {
			m.finalFrom[i] = 0 // restarted from a state before it finished
		}
	}
	m.jobFinished = m.allFullyFinished()
	m.coord.JobRestarted(m.now)
	m.handle(t, nil, nil)
}

// CrashCoordinator replaces the coordinator by a new incarnation built from
// durable storage. Writes in flight may or may not have landed.
func (m *coordinatorMachine) CrashCoordinator(t *rapid.T) {
	for _, v := range m.counterWrites {
		if rapid.Bool().Draw(t, "counter-landed") {
			m.counter = max(m.counter, v)
		}
	}
	for _, cc := range m.metaWrites {
		if rapid.Bool().Draw(t, "metadata-landed") {
			m.store = append(m.store, cc)
			m.cps[cc.ID].phase = modelCompleted
		}
	}
	m.start(t, protocol.Durable{HighestID: m.counter, Completed: slices.Clone(m.store)})
}

// --- output checks ---

// handle takes the Ready and checks it against the model. confirmed is the
// metadata write just reported successful, if any.
func (m *coordinatorMachine) handle(t *rapid.T, err error, confirmed *protocol.CompletedCheckpoint) {
	if err != nil && !errors.Is(err, protocol.ErrUnknownCheckpoint) {
		t.Fatalf("unexpected error %v", err)
	}
	rd := m.coord.Ready()
	// Ids reserved since the last step; savepoints were entered by the
	// Savepoint action.
	for id := m.knownHighest + 1; id <= m.coord.Status().HighestID; id++ {
		if m.cps[id] == nil {
			m.cps[id] = &modelCheckpoint{id: id, kind: protocol.KindCheckpoint, phase: modelReserved}
		}
	}
	m.knownHighest = max(m.knownHighest, m.coord.Status().HighestID)
	for _, v := range rd.CounterWrites {
		if v <= m.maxTriggered {
			t.Fatalf("counter write %v not above the highest id ever triggered %v", v, m.maxTriggered)
		}
		m.counterWrites = append(m.counterWrites, v)
	}
	if len(m.counterWrites) > 1 {
		t.Fatalf("counter writes %v outstanding at once", m.counterWrites)
	}
	for _, tr := range rd.Triggered {
		cp := m.cps[tr.ID]
		if cp == nil || cp.phase != modelReserved {
			t.Fatalf("trigger of %v that was not reserved", tr.ID)
		}
		if tr.ID > m.counter {
			t.Fatalf("trigger of %v before the counter (%v) was durable", tr.ID, m.counter)
		}
		if tr.ID <= m.maxTriggered {
			t.Fatalf("trigger of %v after %v was triggered", tr.ID, m.maxTriggered)
		}
		if tr.Kind != cp.kind {
			t.Fatalf("%v triggered as %v, reserved as %v", tr.ID, tr.Kind, cp.kind)
		}
		if tr.Kind.IsSavepoint() && tr.Mode != protocol.ModeAligned {
			t.Fatalf("savepoint %v triggered %v", tr.ID, tr.Mode)
		}
		if tr.Kind == protocol.KindCheckpoint && m.stopPending != 0 && tr.ID > m.stopPending {
			t.Fatalf("checkpoint %v triggered while stop %v is pending", tr.ID, m.stopPending)
		}
		m.maxTriggered = tr.ID
		cp.phase = modelCollecting
		n := len(m.topo.Tasks)
		cp.expected, cp.held, cp.snaps = make([]bool, n), make([]bool, n), make([]protocol.TaskSnapshot, n)
		for i := range n {
			cp.expected[i] = !m.fullyFinished[i]
			if m.fullyFinished[i] {
				cp.held[i], cp.snaps[i] = true, m.finalSnap[i]
			}
		}
	}
	for _, cc := range rd.Completed {
		cp := m.cps[cc.ID]
		if confirmed == nil || confirmed.ID != cc.ID || cp.phase != modelPersisting {
			t.Fatalf("completion of %v without its confirmed write", cc.ID)
		}
		cp.phase = modelCompleted
		if cc.Kind.IsStop() {
			if !m.jobFinished && !rd.JobFinished {
				t.Fatalf("stop %v completed, the job did not finish", cc.ID)
			}
			m.stopPending = 0
		}
		if !restorable(cc.Kind) {
			continue
		}
		m.failures = 0
		if latest := m.latestDurable(); latest != nil && latest.ID == cc.ID {
			m.recomputeFullyFinished()
			// Checkpoints still waiting for a task that is now fully
			// finished use its final snapshot instead.
			for _, id := range slices.Sorted(maps.Keys(m.cps)) {
				p := m.cps[id]
				if p.phase != modelCollecting {
					continue
				}
				for i := range p.held {
					if m.fullyFinished[i] && !p.held[i] {
						p.held[i], p.snaps[i] = true, m.finalSnap[i]
					}
				}
			}
		}
	}
	for _, cc := range rd.MetadataWrites {
		cp := m.cps[cc.ID]
		if cp == nil || cp.phase != modelCollecting {
			t.Fatalf("metadata write of %v that was not collecting", cc.ID)
		}
		for i, ts := range cc.Tasks {
			if !cp.held[i] {
				t.Fatalf("metadata write of %v without a snapshot of %s", cc.ID, ts.Task)
			}
			if ts.Task != m.topo.Tasks[i] || ts.Snapshot.Handle != cp.snaps[i].Handle {
				t.Fatalf("metadata of %v holds %s %v, want %v", cc.ID, ts.Task, ts.Snapshot, cp.snaps[i])
			}
			if m.deleted[handleKey{ts.Task, ts.Snapshot.Handle}] {
				t.Fatalf("metadata of %v holds %s %v, whose state was released", cc.ID, ts.Task, ts.Snapshot)
			}
		}
		cp.phase = modelPersisting
		m.metaWrites = append(m.metaWrites, cc)
	}
	for _, cc := range rd.Completed {
		if !restorable(cc.Kind) {
			continue
		}
		for id, cp := range m.cps {
			if id < cc.ID && cp.kind == protocol.KindCheckpoint && (cp.phase == modelReserved || cp.phase == modelCollecting) &&
				!slices.ContainsFunc(rd.Aborted, func(a protocol.Abort) bool { return a.Checkpoint == id }) {
				t.Fatalf("checkpoint %v completed, older %v not subsumed", cc.ID, id)
			}
		}
	}
	drainFailed := false
	for _, ab := range rd.Aborted {
		cp := m.cps[ab.Checkpoint]
		if cp == nil || cp.phase >= modelCompleted {
			t.Fatalf("abort of %v that is not pending", ab.Checkpoint)
		}
		if m.inStore(ab.Checkpoint) {
			t.Fatalf("abort of %v that is in the store", ab.Checkpoint)
		}
		if cp.phase == modelPersisting && ab.Reason != protocol.ReasonPersistFailed {
			t.Fatalf("checkpoint %v with its write in flight aborted for %v", ab.Checkpoint, ab.Reason)
		}
		if cp.kind == protocol.KindDrainSavepoint && cp.phase >= modelCollecting && !m.jobFinished &&
			ab.Reason != protocol.ReasonFailover && ab.Reason != protocol.ReasonJobFinished {
			drainFailed = true // its sources ended their input: the job must fail over
		}
		cp.phase = modelAborted
		if ab.Checkpoint == m.stopPending {
			m.stopPending = 0
		}
		latest := m.latestDurable()
		newer := latest == nil || cp.id > latest.ID
		if cp.kind == protocol.KindCheckpoint && ab.Reason.CountsAsFailure() && newer && !m.jobFinished {
			m.failures++
			if m.failures > m.cfg.TolerableFailures && !m.failingOver {
				// The plan itself may wait for a metadata write.
				m.failingOver, m.failoverByFailures = true, true
			}
		}
	}
	for _, msg := range rd.Messages {
		switch msg.Type {
		case protocol.MsgNotifyComplete:
			if !m.inStore(msg.Checkpoint) {
				t.Fatalf("notification of %v, which is not durable", msg.Checkpoint)
			}
			if m.cps[msg.Checkpoint] != nil && m.cps[msg.Checkpoint].kind == protocol.KindSavepoint {
				t.Fatalf("completion notification for savepoint %v", msg.Checkpoint)
			}
		case protocol.MsgNotifyAborted:
			if cp := m.cps[msg.Checkpoint]; cp == nil || cp.phase != modelAborted {
				t.Fatalf("abort notification for %v, which is not aborted", msg.Checkpoint)
			}
		case protocol.MsgTrigger:
			if !slices.ContainsFunc(rd.Triggered, func(tr protocol.TriggeredCheckpoint) bool { return tr.ID == msg.Checkpoint }) {
				t.Fatalf("trigger message for %v outside its trigger", msg.Checkpoint)
			}
		}
	}
	for _, d := range rd.Discarded {
		if !restorable(d.Kind) {
			t.Fatalf("discarded savepoint %v", d.ID)
		}
		m.store = slices.DeleteFunc(m.store, func(c protocol.CompletedCheckpoint) bool { return c.ID == d.ID })
	}
	for _, r := range rd.Released {
		m.checkRelease(t, r)
	}
	for _, d := range rd.Discarded {
		m.checkDiscardReleased(t, d, rd.Released)
	}
	if drainFailed && !m.failingOver {
		m.failingOver, m.failoverByFailures = true, false
	}
	if rd.JobFinished {
		m.jobFinished = true
	}
	if m.jobFinished && m.failingOver && m.failoverByFailures && !m.planOut && rd.Failover == nil && len(m.metaWrites) == 0 {
		m.failingOver = false // nothing left to fail over
	}
	if rd.Failover != nil {
		if m.jobFinished && rd.Failover.Reason == protocol.ReasonTolerableFailuresExceeded {
			t.Fatalf("a finished job fails over: %v", rd.Failover)
		}
		m.planOut, m.failingOver = true, true
		latest := m.latestDurable()
		switch {
		case latest == nil && rd.Failover.Restore != nil:
			t.Fatalf("plan restores %v, store has no checkpoint", rd.Failover.Restore.ID)
		case latest != nil && (rd.Failover.Restore == nil || rd.Failover.Restore.ID != latest.ID):
			t.Fatalf("plan %v, newest durable checkpoint is %v", rd.Failover, latest.ID)
		}
		if len(m.metaWrites) > 0 {
			t.Fatalf("plan emitted with metadata write %v in flight", m.metaWrites[0].ID)
		}
		if rd.Failover.Restore != nil {
			for _, ts := range rd.Failover.Restore.Tasks {
				if m.deleted[handleKey{ts.Task, ts.Snapshot.Handle}] {
					t.Fatalf("plan restores %s from %v, whose state was released", ts.Task, ts.Snapshot)
				}
			}
		}
	}
	m.checkInvariants(t)
}

// held reports whether a stored or pending checkpoint holds task's handle.
func (m *coordinatorMachine) held(key handleKey) (protocol.CheckpointID, bool) {
	for _, cc := range m.store {
		for _, ts := range cc.Tasks {
			if ts.Task == key.task && ts.Snapshot.Handle == key.handle {
				return cc.ID, true
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(m.cps)) {
		cp := m.cps[id]
		if cp.phase != modelCollecting && cp.phase != modelPersisting {
			continue
		}
		for i, snap := range cp.snaps {
			if cp.held[i] && m.topo.Tasks[i] == key.task && snap.Handle == key.handle {
				return id, true
			}
		}
	}
	return 0, false
}

// checkRelease: released state is held by nothing, and the host deletes it.
func (m *coordinatorMachine) checkRelease(t *rapid.T, r protocol.StateRelease) {
	key := handleKey{r.Task, r.Snapshot.Handle}
	if id, ok := m.held(key); ok {
		t.Fatalf("released %v, held by checkpoint %v", r, id)
	}
	m.deleted[key] = true
}

// checkDiscardReleased: the state of a discarded checkpoint is released in
// the same Ready unless something else holds it or it is a final snapshot
// (which savepoints may share).
func (m *coordinatorMachine) checkDiscardReleased(t *rapid.T, d protocol.CompletedCheckpoint, released []protocol.StateRelease) {
	for _, ts := range d.Tasks {
		key := handleKey{ts.Task, ts.Snapshot.Handle}
		if _, ok := m.held(key); ok || ts.Snapshot.Final || m.deleted[key] || d.Kind.IsStop() {
			continue
		}
		t.Fatalf("discarded %v, state of %s %v neither released nor held", d.ID, ts.Task, ts.Snapshot)
	}
}

func (m *coordinatorMachine) checkInvariants(t *rapid.T) {
	// Flink forces a savepoint through MaxConcurrent unless unaligned
	// checkpoints are enabled; a forced one never waits once its id is durable.
	forced := m.cfg.Mode == protocol.ModeAligned || m.cfg.Mode == protocol.ModeAtLeastOnce
	pending, concurrent, checkpoints := 0, 0, 0
	for _, cp := range m.cps {
		if cp.phase >= modelCompleted {
			continue
		}
		pending++
		if cp.kind == protocol.KindCheckpoint || cp.phase != modelReserved {
			concurrent++
		}
		if cp.kind == protocol.KindCheckpoint {
			checkpoints++
		}
		if forced && cp.kind.IsSavepoint() && cp.phase == modelReserved && cp.id <= m.counter {
			t.Fatalf("savepoint %v waits though its id is durable (counter %v) in mode %v", cp.id, m.counter, m.cfg.Mode)
		}
		if m.jobFinished && cp.phase == modelCollecting && !m.complete(cp) {
			t.Fatalf("job finished, checkpoint %v still waits for tasks", cp.id)
		}
	}
	if pending > m.cfg.MaxPendingCheckpoints {
		t.Fatalf("%d pending checkpoints, bound %d", pending, m.cfg.MaxPendingCheckpoints)
	}
	if concurrent > m.cfg.MaxConcurrent && !forced {
		t.Fatalf("%d checkpoints and started savepoints in flight, bound %d", concurrent, m.cfg.MaxConcurrent)
	}
	if checkpoints > m.cfg.MaxConcurrent {
		t.Fatalf("%d checkpoints in flight, bound %d", checkpoints, m.cfg.MaxConcurrent)
	}
	if got := m.coord.Status().Pending; len(got) != pending {
		t.Fatalf("coordinator has pending %v, model has %d", got, pending)
	}
	stored := 0
	for _, cc := range m.store {
		if restorable(cc.Kind) {
			stored++
		}
	}
	if stored > m.cfg.RetainedCheckpoints {
		t.Fatalf("store holds %d checkpoints, retained %d", stored, m.cfg.RetainedCheckpoints)
	}
	if latest := m.latestDurable(); latest != nil && !m.failingOver {
		fullyFinished := m.coord.Status().FullyFinished
		for _, ts := range latest.Tasks {
			if got := slices.Contains(fullyFinished, ts.Task); got != ts.Snapshot.Final {
				t.Fatalf("%s fully finished=%v, its snapshot in the latest checkpoint %v is %v", ts.Task, got, latest.ID, ts.Snapshot)
			}
		}
	}
	if m.failingOver && !m.planOut && len(m.metaWrites) == 0 {
		t.Fatalf("failover requested (failures %d, tolerable %d) and no plan though no write is in flight", m.failures, m.cfg.TolerableFailures)
	}
	if m.coord.LatestRestorable() != nil && !m.failingOver {
		// Something to re-announce: there must be a deadline for it.
		if d := m.coord.NextDeadline(); d == protocol.NoDeadline || d > m.now.Add(m.cfg.Timeout) {
			t.Fatalf("latest completion %v, next deadline %v is more than Timeout after now %v", m.coord.LatestRestorable().ID, d, m.now)
		}
	}
	if d := m.coord.NextDeadline(); d < m.now && d != protocol.NoDeadline {
		// A deadline in the past is fine only until the next Tick.
		m.coord.Tick(m.now)
		m.handle(t, nil, nil)
	}
}

func (m *coordinatorMachine) Check(t *rapid.T) {}

func TestRapidCoordinator(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newCoordinatorMachine(t)
		t.Repeat(rapid.StateMachineActions(m))
	})
}
