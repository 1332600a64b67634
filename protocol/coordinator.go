package protocol

// Coordinator is the job-wide half of the protocol: it triggers checkpoints,
// collects acknowledgements, makes completed checkpoints durable through its
// host, notifies tasks, and decides when the job must fail over. It is a
// value the host steps (see the package documentation for the loop); it
// never blocks, reads a clock, or performs I/O.
type Coordinator struct {
	coordinatorState
}

// NewCoordinator builds a coordinator for the job with topology topo. For a
// fresh job durable is the zero value; for a recovering coordinator it is
// what the host read from durable storage (the id counter and the
// completed-checkpoint store), and the new incarnation continues ids after
// durable.HighestID and every stored id, applies retention to the store
// (Discarded and Released in the first Ready), and re-sends the completion
// notification of the latest completed checkpoint to every task (the
// previous incarnation may have crashed between making it durable and
// notifying). now starts the periodic schedule: the first trigger is at
// now plus a jitter drawn from cfg's random source, uniform in [MinPause,
// Interval]. A topology with a cycle is refused in ModeAligned and
// ModeAtLeastOnce (ErrCyclicTopology, naming the cycle).
func NewCoordinator(cfg Config, topo Topology, durable Durable, now Time) (*Coordinator, error) {
	return newCoordinator(cfg, topo, durable, now)
}

// Tick advances the coordinator to now: it expires checkpoints older than
// Timeout, re-sends notifications that have not gone out for Timeout, and
// triggers the next periodic checkpoint when its time has come (and
// MaxConcurrent and MinPause allow). Call it at NextDeadline, or more
// often; extra ticks are harmless.
func (c *Coordinator) Tick(now Time) {
	c.tick(now)
	c.verify()
}

// Step handles a message from a task: MsgAck, MsgDecline or
// MsgTaskFinished. A late, duplicate or unknown ack returns
// ErrUnknownCheckpoint and its snapshot is listed in Released; a message
// from an unknown task returns ErrUnknownTask. Errors never change the
// coordinator's state beyond that release.
func (c *Coordinator) Step(now Time, m Message) error {
	err := c.step(now, m)
	c.verify()
	return err
}

// CounterPersisted reports the outcome of the outstanding CounterWrites
// entry (there is at most one). On success the checkpoints with ids up to
// value are triggered (a savepoint in a job with unaligned checkpoints waits
// for a MaxConcurrent slot), and if ids were reserved meanwhile the next
// write is asked for; on failure they are aborted with ReasonTriggerFailed,
// which counts as a checkpoint failure (an I/O failure while triggering, as
// in Flink); see "Tracing" in the package documentation for what a host
// that traces the abort owes. A value that is not the outstanding write
// panics.
func (c *Coordinator) CounterPersisted(now Time, value CheckpointID, err error) {
	c.counterPersisted(now, value, err)
	c.verify()
}

// MetadataPersisted reports the outcome of a MetadataWrites entry. On
// success the checkpoint is complete: it is listed in Completed, older
// pending checkpoints are subsumed, retention may discard old ones, and
// tasks are notified. On failure it is aborted with ReasonPersistFailed.
// The host must not report success unless the write is durable: the
// notification that follows lets sinks make output visible.
func (c *Coordinator) MetadataPersisted(now Time, id CheckpointID, err error) {
	c.metadataPersisted(now, id, err)
	c.verify()
}

// TriggerCheckpoint asks for a checkpoint as soon as MaxConcurrent allows,
// without waiting for Interval or MinPause. Repeated requests before it is
// triggered collapse into one.
func (c *Coordinator) TriggerCheckpoint(now Time) error {
	err := c.triggerCheckpoint(now)
	c.verify()
	return err
}

// TriggerSavepoint reserves a savepoint's id and returns it. The savepoint
// starts once its id is durable: at once in ModeAligned and ModeAtLeastOnce,
// whatever MaxConcurrent and MinPause say (as Flink forces a savepoint
// unless unaligned checkpoints are enabled); in ModeUnaligned and
// ModeAlignedWithTimeout once a MaxConcurrent slot is free, ahead of any
// checkpoint waiting for one. Once started it holds a slot, so checkpoints
// wait for it. It counts towards MaxPendingCheckpoints from the start. Savepoints are always aligned, never subsumed, never
// restored from automatically, and never notified as complete. A topology
// with a cycle can take no savepoint (ErrCyclicTopology).
func (c *Coordinator) TriggerSavepoint(now Time) (CheckpointID, error) {
	id, err := c.triggerSavepoint(now)
	c.verify()
	return id, err
}

// StopWithSavepoint asks for a synchronous savepoint that ends the job
// (Flink's stop-with-savepoint without drain) and returns its id. Like
// TriggerSavepoint, the id is reserved now and the savepoint starts once it
// is durable. No checkpoint is asked for while it is pending (one reserved
// before it still starts, ahead of it). If it completes,
// its completion is announced (sinks commit up to it), the job is finished
// (CoordinatorReady.JobFinished) and every task exits once told; if it
// aborts, the job keeps running. ErrStopPending while one is pending.
func (c *Coordinator) StopWithSavepoint(now Time) (CheckpointID, error) {
	id, err := c.stopWithSavepoint(now, KindStopSavepoint)
	c.verify()
	return id, err
}

// DrainWithSavepoint is StopWithSavepoint with drain (KindDrainSavepoint):
// each source ends its input before its snapshot, every task finishes, and
// the savepoint holds their final snapshots. If it aborts while the job
// runs, the job fails over (ReasonDrainFailed): its sources ended their
// input and cannot read on.
func (c *Coordinator) DrainWithSavepoint(now Time) (CheckpointID, error) {
	id, err := c.stopWithSavepoint(now, KindDrainSavepoint)
	c.verify()
	return id, err
}

// RequestFailover tells the coordinator the job must restart (a task
// failed, or the host decided so for another reason). Pending checkpoints
// are aborted with ReasonFailover. The FailoverPlan appears in Ready as soon
// as no metadata write is in flight, so the plan always names the newest
// checkpoint the store may hold. A request while a plan is outstanding is
// ignored.
func (c *Coordinator) RequestFailover(now Time, reason Reason) {
	c.requestFailover(now, reason)
	c.verify()
}

// JobRestarted tells the coordinator that every task was restarted from the
// last FailoverPlan. Periodic checkpoints resume (the next trigger is drawn
// as at construction) and the failure count is reset.
func (c *Coordinator) JobRestarted(now Time) {
	c.jobRestarted(now)
	c.verify()
}

// Ready returns and clears everything the coordinator wants done.
func (c *Coordinator) Ready() CoordinatorReady { return c.takeReady() }

// HasReady reports whether Ready would return anything.
func (c *Coordinator) HasReady() bool { return !c.ready.IsEmpty() }

// NextDeadline returns the earliest virtual time at which Tick has work:
// the next periodic trigger, the earliest expiry or the next re-sending of
// a notification. NoDeadline if none.
func (c *Coordinator) NextDeadline() Time { return c.nextDeadline() }

// LatestRestorable returns the checkpoint automatic recovery would use: the
// latest completed one that is not a savepoint. nil means a fresh start. A
// host that builds a coordinator from a non-empty Durable traces its id as
// coordinator.recover (see "Tracing" in the package documentation); the
// other questions a test may ask go to Status.
func (c *Coordinator) LatestRestorable() *CompletedCheckpoint { return c.latestRestorable() }
