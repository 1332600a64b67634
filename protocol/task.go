package protocol

// Task is the per-task half of the protocol: barrier alignment in every
// mode, snapshot requests, acks and declines, cancel markers, end of
// partition, restore, final checkpoints and notification filtering. One
// Task serves one task incarnation; a restarted task gets a new Task. It is
// a value the host steps (see the package documentation).
type Task struct {
	taskState
}

// NewTask builds the protocol state of a fresh task incarnation. If the task
// restores from a checkpoint, call Restore before any other input.
func NewTask(cfg TaskConfig) (*Task, error) { return newTask(cfg) }

// Restore tells the task it resumes from checkpoint from, whose snapshot
// for this task is snap. The host loads the state behind snap.Handle and
// the source offsets itself, and must replay snap.ChannelState into the
// task's operator before any new record of the same input channel. From
// then on, completion notifications for ids <= from are suppressed, and
// barriers and triggers for them are stale. A snapshot with Final set
// restores a finished task: it exits at once (after the host performed the
// restore, RestoreTwoPhaseCommit's actions included). Restore must be the
// first input (ErrAlreadyStarted otherwise).
func (t *Task) Restore(now Time, from CheckpointID, snap TaskSnapshot) error {
	err := t.restore(now, from, snap)
	t.verify()
	return err
}

// Step handles a control message from the coordinator: MsgTrigger,
// MsgNotifyComplete or MsgNotifyAborted. Duplicate and stale messages are
// absorbed silently (nil); ErrUnexpectedMessage for other types.
func (t *Task) Step(now Time, m Message) error {
	err := t.step(now, m)
	t.verify()
	return err
}

// Receive handles an in-band event that arrived on input channel input (an
// index into TaskConfig.Inputs): a barrier, cancel marker, end of data or end
// of partition. Events behind a blocked channel's barrier are held back like
// records: deliver nothing from a channel while Blocked reports true (at
// now: Tick first when NextDeadline has passed). ErrBadInput for an
// out-of-range index, a closed or blocked channel or a malformed event. A
// stale barrier (of a checkpoint the task has moved past) is declined
// unless the task has a snapshot of it. After the task exited, events are
// ignored.
func (t *Task) Receive(now Time, input int, ev ChannelEvent) error {
	err := t.receive(now, input, ev)
	t.verify()
	return err
}

// Admit answers whether the next data buffer of input may be processed now.
// It is the per-record path: it does not allocate, and when no checkpoint
// is in progress it is a couple of comparisons. An AdmitRecord answer counts
// towards MaxBufferedRecords; the answer that overflows it declines the
// checkpoint (see TaskReady) and returns AdmitProcess.
func (t *Task) Admit(input int) Admission {
	if input < 0 || input >= len(t.action) || t.action[input] != inputRecord {
		return t.admit(input) // processing or blocking changes nothing
	}
	a := t.admit(input)
	t.verify()
	return a
}

// Tick advances the task to now; an alignment in ModeAlignedWithTimeout
// that started more than AlignmentTimeout ago switches to unaligned. Call it
// at NextDeadline (before the next Admit).
func (t *Task) Tick(now Time) {
	t.tick(now)
	t.verify()
}

// SnapshotCompleted reports that the upload of the snapshot for id is
// durable; the task acks it to the coordinator. If the checkpoint was
// aborted meanwhile, snap is listed in Released instead and
// ErrUnknownCheckpoint returned. For an unaligned snapshot it must follow
// the id's appearance in TaskReady.Sealed (ErrChannelStateOpen otherwise).
func (t *Task) SnapshotCompleted(now Time, id CheckpointID, snap TaskSnapshot) error {
	err := t.snapshotCompleted(now, id, snap)
	t.verify()
	return err
}

// SnapshotFailed reports that the snapshot for id could not be taken or
// uploaded; the task declines it with reason (ReasonUploadFailed when in
// doubt).
func (t *Task) SnapshotFailed(now Time, id CheckpointID, reason Reason) error {
	err := t.snapshotFailed(now, id, reason)
	t.verify()
	return err
}

// Finish tells the task it has produced its last record: a source whose
// input is exhausted, or a task every input of which delivered end of data
// (or end of partition) and which has flushed. The task sends end of data
// on every output and MsgTaskFinished to the coordinator. If
// WaitForFinalCheckpoint is off it may exit at once (TaskReady.Exit, with
// end of partition on every output); otherwise it keeps taking part in
// checkpoints, and every snapshot it takes from now on is Final. It exits
// once it is notified of a checkpoint holding a final snapshot of it,
// giving up what it still has in progress for newer checkpoints
// (TaskReady.Aborted). ErrNotFinishable while some input may still deliver
// records.
func (t *Task) Finish(now Time) error {
	err := t.finish(now)
	t.verify()
	return err
}

// Ready returns and clears everything the task wants done.
func (t *Task) Ready() TaskReady { return t.takeReady() }

// HasReady reports whether Ready would return anything.
func (t *Task) HasReady() bool { return !t.ready.IsEmpty() }

// NextDeadline returns when Tick has work (an alignment timeout), or
// NoDeadline.
func (t *Task) NextDeadline() Time { return t.nextDeadline() }

// ID returns the task's id.
func (t *Task) ID() TaskID { return t.cfg.ID }

// Stopping reports whether the task took its snapshot for a pending
// stop-with-savepoint: a source must emit no record meanwhile (the
// savepoint's cut is the end of the job's output if it completes), and the
// host must not finish the task's input for end-of-partition events that
// stopped upstream tasks send as they exit. It turns false when the
// savepoint aborts; when it completes the task exits (TaskReady.Exit) and
// stays stopping, so that a host still finishing its exit sends nothing.
func (t *Task) Stopping() bool { return t.stopAt != 0 }

// RequestSplit asks the coordinator for a split of the task's split source
// (TaskReady.Messages): a reader asks when it has read its splits, and again
// if no answer came; the answer comes in TaskReady.Splits or
// TaskReady.NoMoreSplits.
func (t *Task) RequestSplit(now Time) {
	t.requestSplit(now)
	t.verify()
}

// Finished reports whether the task finished its input: the host called
// Finish, or a stop-with-savepoint with drain (KindDrainSavepoint) ended a
// source's input at its trigger. A finished task emits no record.
func (t *Task) Finished() bool { return t.finished }

// Blocked reports whether input is blocked by an alignment: Admit would
// answer AdmitBlock.
func (t *Task) Blocked(input int) bool { return t.blocked(input) }
