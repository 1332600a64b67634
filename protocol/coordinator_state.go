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
	// phaseQueued: a savepoint whose id is durable, waiting for a
	// MaxConcurrent slot; no trigger sent.
	phaseQueued
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
	// periodic: the periodic schedule asked for it (TriggeredCheckpoint).
	periodic bool
	// ackedAt is when the last ack arrived: the CompletedAt recorded in
	// the store (the confirmation time is never durable anywhere).
	ackedAt  Time
	deadline Time
	// expected[i]: task i takes part (it was not fully finished at
	// trigger); it is told if the checkpoint aborts.
	expected []bool
	// acked[i]: states[i] holds task i's snapshot.
	acked []bool
	// carried[i]: states[i] is task i's final snapshot carried over from a
	// completed checkpoint (at trigger, or when the task became fully
	// finished while this checkpoint waited for it), not an upload made
	// for this checkpoint; an abort must not release it.
	carried []bool
	// unassigned is the split enumerator's state as the triggers went out.
	unassigned []string
	// remaining counts tasks whose snapshot is still missing.
	remaining int
	states    []TaskState
	// flags backs expected, acked and carried: one allocation for the
	// three, reused by the next checkpoint once this one completed.
	flags []bool
}

// occupiesSlot reports whether p counts towards MaxConcurrent: every
// checkpoint from its reservation on, and a savepoint once it starts. A
// started savepoint holds a slot like a checkpoint (as in Flink, where
// pending savepoints are pending checkpoints): a checkpoint waits for it. A
// savepoint waits for a slot itself only in a job with unaligned
// checkpoints (see savepointsForced), because an unaligned barrier sent
// with Priority may overtake the aligned barrier of a concurrent savepoint,
// and a task that sees the newer barrier first can no longer take part in
// the savepoint.
func (p *pendingCheckpoint) occupiesSlot() bool {
	switch p.phase {
	case phaseCollecting, phasePersisting:
		return true
	case phaseReserving:
		return p.kind == KindCheckpoint
	}
	return false
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
	// cycle is one cycle of the topology, nil if it has none.
	cycle []TaskID

	highestID CheckpointID
	// restored is the checkpoint of an earlier job this one started from (Durable.Restored).
	restored Restored
	// counterWriting is the counter value being written (0: none). At
	// most one counter write is outstanding, so the host can never land
	// an older value over a newer one.
	counterWriting CheckpointID
	// pending is ordered by id, oldest first.
	pending []*pendingCheckpoint
	// splits is the split enumerator of the job's split sources.
	splits splitEnumerator
	// completed holds the retained checkpoints (no savepoints), by id.
	completed []CompletedCheckpoint
	// highestCompleted is the highest id of any checkpoint (not savepoint)
	// that completed, retained or not.
	highestCompleted CheckpointID
	savepoints       savepointMemory
	// stopPending is the id of the pending stop-with-savepoint, 0 if none:
	// no checkpoint is reserved while it is pending.
	stopPending CheckpointID

	// finished[i]: task i reported MsgTaskFinished in this job run.
	finished []bool
	// fullyFinishedTasks[i]: task i's final snapshot is in a completed
	// checkpoint; finalSnapshots[i] is the one the latest retained
	// checkpoint holds. The task is no longer triggered or expected.
	fullyFinishedTasks []bool
	finalSnapshots     []TaskSnapshot
	fullyFinishedCount int
	jobFinished        bool

	// nextPeriodic is when the next periodic trigger is due; NoDeadline
	// if none.
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

	announcer announcer

	// sparePending is the last completed checkpoint's entry, blank but for
	// the array behind its per-task tables, which the next reservation
	// reuses (3 bytes a task). Only a completion leaves one: an aborted
	// checkpoint's expected tasks may live on in the announcer.
	sparePending *pendingCheckpoint

	ready CoordinatorReady
}

func newCoordinator(cfg Config, topo Topology, durable Durable, now Time) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	cycle := topo.Cycle()
	if cycle != nil && (cfg.Mode == ModeAligned || cfg.Mode == ModeAtLeastOnce) {
		return nil, cycleError(cycle, "mode "+cfg.Mode.String())
	}
	n := len(topo.Tasks)
	c := &Coordinator{coordinatorState{
		cfg:                cfg,
		topo:               topo,
		random:             cfg.randomSource(),
		taskIndex:          make(map[TaskID]int32, n),
		upstream:           make([][]int32, n),
		cycle:              cycle,
		finished:           make([]bool, n),
		fullyFinishedTasks: make([]bool, n),
		finalSnapshots:     make([]TaskSnapshot, n),
		nextPeriodic:       NoDeadline,
		splits:             newSplitEnumerator(topo.SplitSources),
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
	if err := c.recover(now, durable); err != nil {
		return nil, err
	}
	c.schedulePeriodic(now)
	return c, nil
}

// takeReady hands out the outputs gathered since the last call; their
// slices share chunks with later outputs (see outbox.go), except those that
// hold whole checkpoints.
func (c *coordinatorState) takeReady() CoordinatorReady {
	rd := CoordinatorReady{
		CounterWrites:  handOut(&c.ready.CounterWrites),
		MetadataWrites: handOutAlone(&c.ready.MetadataWrites),
		Messages:       handOut(&c.ready.Messages),
		Triggered:      handOut(&c.ready.Triggered),
		Completed:      handOutAlone(&c.ready.Completed),
		Aborted:        handOut(&c.ready.Aborted),
		Discarded:      handOutAlone(&c.ready.Discarded),
		Released:       handOut(&c.ready.Released),
		Failover:       c.ready.Failover,
		JobFinished:    c.ready.JobFinished,
	}
	c.ready.Failover, c.ready.JobFinished = nil, false
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

// nextPending returns the oldest pending checkpoint with an id above after
// for which match holds, nil if none. The loops that end checkpoints walk
// the pending list with it, one checkpoint at a time from the id last
// handled: ending one may end others (an abort may ask for a failover), and
// a list taken beforehand would cost an allocation per call.
func (c *coordinatorState) nextPending(after CheckpointID, match func(*pendingCheckpoint) bool) *pendingCheckpoint {
	for _, p := range c.pending {
		if p.id > after && match(p) {
			return p
		}
	}
	return nil
}

func (c *coordinatorState) removePending(p *pendingCheckpoint) {
	i, found := c.findPending(p.id)
	if found != p {
		assertionFailed("coordinator", fmt.Sprintf("removing checkpoint %v that is not pending", p.id))
	}
	c.pending = slices.Delete(c.pending, i, i+1)
}

// latestRestorable is the newest retained checkpoint; the completed list
// holds no savepoints but the synchronous one that stopped the job, so that
// is what automatic recovery uses.
func (c *coordinatorState) latestRestorable() *CompletedCheckpoint {
	if len(c.completed) == 0 {
		return nil
	}
	latest := c.completed[len(c.completed)-1]
	return &latest
}

// latestID is the id of the latest retained checkpoint, 0 if none.
func (c *coordinatorState) latestID() CheckpointID {
	if len(c.completed) == 0 {
		return 0
	}
	return c.completed[len(c.completed)-1].ID
}

func (c *coordinatorState) failingOverOrRequested() bool {
	return c.failoverRequested || c.failingOver
}
