package protocol

import (
	"fmt"
	"slices"
)

// phase is where a pending checkpoint is in its life.
type phase uint8

const (
	// phaseReserving: the id is written to the counter; no trigger sent.
	phaseReserving phase = iota + 1
	// phaseCollecting: triggers sent, acks arriving.
	phaseCollecting
	// phasePersisting: every ack is in; the metadata write is in flight.
	phasePersisting
)

// pendingCheckpoint is one checkpoint between id reservation and its end.
// The per-task tables are indexed by the task's position in Topology.Tasks
// so that an ack costs one map lookup and a few stores, whatever the job's
// size.
type pendingCheckpoint struct {
	id          CheckpointID
	kind        Kind
	mode        Mode
	phase       phase
	requestedAt Time
	triggeredAt Time
	// ackedAt is when the last ack arrived: the CompletedAt recorded in
	// the store (the confirmation time is never durable anywhere).
	ackedAt  Time
	deadline Time
	// expected[i]: task i must ack (it was not fully finished at trigger).
	expected []bool
	// acked[i]: task i's snapshot is in states[i] (always true for tasks
	// carried over with their final snapshot).
	acked []bool
	// remaining counts expected tasks that have not acked yet.
	remaining int
	states    []TaskState
}

// coordinatorState holds everything behind the Coordinator API.
type coordinatorState struct {
	cfg    Config
	topo   Topology
	random RandomSource

	// taskIndex maps a task to its position in topo.Tasks.
	taskIndex map[TaskID]int32
	// upstream[i] lists the distinct tasks with a channel into task i.
	upstream [][]int32

	highestID CheckpointID
	// pending is ordered by id, oldest first.
	pending []*pendingCheckpoint
	// completed holds the retained checkpoints (no savepoints), by id.
	completed []CompletedCheckpoint
	// savepoints holds the ids of completed savepoints (ascending, at most
	// MaxRetainedCheckpointsLimit); savepointFloor is the highest id
	// forgotten to keep that bound. Savepoints belong to the user, so the
	// coordinator never releases state that one of them may hold.
	savepoints     []CheckpointID
	savepointFloor CheckpointID

	// finished[i]: task i reported MsgTaskFinished in this job run.
	finished []bool
	// fullyFinishedTasks[i]: task i's final snapshot is in a completed
	// checkpoint, kept in finalSnapshots[i]; it is no longer triggered or
	// expected.
	fullyFinishedTasks []bool
	finalSnapshots     []TaskSnapshot
	fullyFinishedCount int
	jobFinished        bool

	// nextPeriodic is when the next periodic trigger (or, once the job
	// finished, the next re-notification) is due; NoDeadline if none.
	nextPeriodic Time
	// lastCompletion is when the last checkpoint completed (MinPause).
	lastCompletion    Time
	haveCompletion    bool
	manualRequested   bool
	failures          int
	failoverRequested bool
	failoverReason    Reason
	// failingOver: a plan was emitted; waiting for JobRestarted.
	failingOver bool

	ready CoordinatorReady
}

func newCoordinator(cfg Config, topo Topology, durable Durable, now Time) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	n := len(topo.Tasks)
	c := &Coordinator{coordinatorState{
		cfg:                cfg,
		topo:               topo,
		random:             cfg.randomSource(),
		taskIndex:          make(map[TaskID]int32, n),
		upstream:           make([][]int32, n),
		finished:           make([]bool, n),
		fullyFinishedTasks: make([]bool, n),
		finalSnapshots:     make([]TaskSnapshot, n),
		nextPeriodic:       NoDeadline,
	}}
	for i, id := range topo.Tasks {
		c.taskIndex[id] = int32(i)
	}
	for _, ch := range topo.Channels {
		to, from := c.taskIndex[ch.To], c.taskIndex[ch.From]
		if !slices.Contains(c.upstream[to], from) {
			c.upstream[to] = append(c.upstream[to], from)
		}
	}
	if err := c.recover(durable); err != nil {
		return nil, err
	}
	c.schedulePeriodic(now)
	return c, nil
}

// recover loads what a previous incarnation left in durable storage. The
// id counter continues after everything ever reserved or stored; the
// latest restorable checkpoint decides which tasks are fully finished, and
// its completion is re-announced because the previous incarnation may have
// crashed after making it durable but before notifying every task.
func (c *coordinatorState) recover(durable Durable) error {
	c.highestID = durable.HighestID
	var checkpoints []CompletedCheckpoint
	for _, cc := range durable.Completed {
		if err := c.checkMatchesTopology(&cc); err != nil {
			return err
		}
		c.highestID = max(c.highestID, cc.ID)
		if cc.Kind == KindCheckpoint {
			checkpoints = append(checkpoints, cc)
		} else {
			c.rememberSavepoint(cc.ID)
		}
	}
	slices.SortFunc(checkpoints, func(a, b CompletedCheckpoint) int { return cmpID(a.ID, b.ID) })
	for i := 1; i < len(checkpoints); i++ {
		if checkpoints[i].ID == checkpoints[i-1].ID {
			return fmt.Errorf("protocol: durable store holds checkpoint %v twice", checkpoints[i].ID)
		}
	}
	c.completed = checkpoints
	c.applyRetention()
	if latest := c.latestRestorable(); latest != nil {
		c.markFullyFinished(latest)
		c.broadcastNotifyComplete(latest.ID)
		c.haveCompletion = true
		c.lastCompletion = latest.CompletedAt
	}
	return nil
}

// checkMatchesTopology rejects stored checkpoints of a different job graph:
// restoring them would hand tasks state that is not theirs.
func (c *coordinatorState) checkMatchesTopology(cc *CompletedCheckpoint) error {
	if len(cc.Tasks) != len(c.topo.Tasks) {
		return fmt.Errorf("protocol: stored checkpoint %v has %d tasks, topology has %d", cc.ID, len(cc.Tasks), len(c.topo.Tasks))
	}
	for i, ts := range cc.Tasks {
		if ts.Task != c.topo.Tasks[i] {
			return fmt.Errorf("protocol: stored checkpoint %v lists task %q where topology has %q", cc.ID, ts.Task, c.topo.Tasks[i])
		}
	}
	if cc.ID == 0 {
		return fmt.Errorf("protocol: stored checkpoint has id 0")
	}
	return nil
}

// rememberSavepoint records a completed savepoint id.
func (c *coordinatorState) rememberSavepoint(id CheckpointID) {
	at, found := slices.BinarySearch(c.savepoints, id)
	if found {
		return
	}
	c.savepoints = slices.Insert(c.savepoints, at, id)
	if len(c.savepoints) > MaxRetainedCheckpointsLimit {
		c.savepointFloor = max(c.savepointFloor, c.savepoints[0])
		c.savepoints = slices.Delete(c.savepoints, 0, 1)
	}
}

// mayHoldSavepointState reports whether id is (or may be) a completed
// savepoint.
func (c *coordinatorState) mayHoldSavepointState(id CheckpointID) bool {
	if id <= c.savepointFloor {
		return true
	}
	_, found := slices.BinarySearch(c.savepoints, id)
	return found
}

func cmpID(a, b CheckpointID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *coordinatorState) takeReady() CoordinatorReady {
	rd := c.ready
	c.ready = CoordinatorReady{}
	return rd
}

func (c *coordinatorState) pendingIDs() []CheckpointID {
	ids := make([]CheckpointID, len(c.pending))
	for i, p := range c.pending {
		ids[i] = p.id
	}
	return ids
}

func (c *coordinatorState) findPending(id CheckpointID) (int, *pendingCheckpoint) {
	for i, p := range c.pending {
		if p.id == id {
			return i, p
		}
	}
	return -1, nil
}

func (c *coordinatorState) removePending(p *pendingCheckpoint) {
	i, found := c.findPending(p.id)
	if found != p {
		panic(fmt.Sprintf("protocol: coordinator: removing checkpoint %v that is not pending", p.id))
	}
	c.pending = slices.Delete(c.pending, i, i+1)
}

// latestRestorable is the newest retained checkpoint; the completed list
// holds no savepoints, so that is what automatic recovery uses.
func (c *coordinatorState) latestRestorable() *CompletedCheckpoint {
	if len(c.completed) == 0 {
		return nil
	}
	latest := c.completed[len(c.completed)-1]
	return &latest
}

func (c *coordinatorState) fullyFinished(task TaskID) bool {
	i, ok := c.taskIndex[task]
	return ok && c.fullyFinishedTasks[i]
}

// markFullyFinished records the tasks whose snapshot in cc is final.
func (c *coordinatorState) markFullyFinished(cc *CompletedCheckpoint) {
	for i := range cc.Tasks {
		if cc.Tasks[i].Snapshot.Final && !c.fullyFinishedTasks[i] {
			c.fullyFinishedTasks[i] = true
			c.finalSnapshots[i] = cc.Tasks[i].Snapshot
			c.fullyFinishedCount++
		}
	}
	if c.fullyFinishedCount == len(c.topo.Tasks) && !c.jobFinished {
		c.jobFinished = true
		c.ready.JobFinished = true
	}
}

// broadcastNotifyComplete tells every task, fully finished ones included
// (they wait for exactly this to exit), that id is complete.
func (c *coordinatorState) broadcastNotifyComplete(id CheckpointID) {
	c.ready.Messages = slices.Grow(c.ready.Messages, len(c.topo.Tasks))
	for _, task := range c.topo.Tasks {
		c.ready.Messages = append(c.ready.Messages, NotifyCompleteMessage(task, id))
	}
}
