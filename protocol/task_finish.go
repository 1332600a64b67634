package protocol

// finish marks the end of the task's records. The task keeps its channels
// open for barriers: its final state must still be captured by a checkpoint
// before it may go away.
func (t *taskState) finish(now Time) error {
	if t.exited || t.finished {
		return nil
	}
	for _, drained := range t.inputDrained {
		if !drained {
			return ErrNotFinishable
		}
	}
	t.begin(now)
	t.finished = true
	t.send(EndOfData(), false)
	t.tellFinished(now)
	if !t.cfg.WaitForFinalCheckpoint {
		t.exit()
	}
	return nil
}

// tellFinished tells the coordinator that the task finished, and when to
// tell it again (TaskConfig.FinishedResend) while it waits to exit.
func (t *taskState) tellFinished(now Time) {
	t.ready.Messages = push(t.ready.Messages, TaskFinishedMessage(t.cfg.ID))
	t.finishedResendAt = NoDeadline
	if t.cfg.FinishedResend > 0 {
		t.finishedResendAt = now.Add(t.cfg.FinishedResend)
	}
}

// exit lets the host stop the task. End of partition goes out after
// everything else this task sent, so downstream tasks stop waiting for it
// only once its last barrier has passed.
//
// Whatever the task still has in progress for newer checkpoints is given
// up (TaskReady.Aborted, so the host cancels those uploads and nothing
// leaks). No decline and no cancel marker is needed: the coordinator,
// which completed the checkpoint whose notification lets the task exit,
// already uses the task's final snapshot for every pending checkpoint that
// was still waiting for it, and end of partition releases downstream
// alignments waiting for its barriers. The task produced no record after
// it finished, so its final snapshot is its state at those cuts too.
func (t *taskState) exit() {
	if t.exited {
		return
	}
	t.exited = true
	for len(t.alignments) > 0 {
		a := t.alignments[0]
		t.removeAlignment(a)
		if i := t.findInflight(a.id); i < 0 {
			t.ready.Aborted = push(t.ready.Aborted, Abort{Checkpoint: a.id, Kind: a.kind, Reason: ReasonTaskFinished, Task: t.cfg.ID})
		}
	}
	for len(t.inflight) > 0 {
		t.dropInflight(0, ReasonTaskFinished)
	}
	t.cancelOwed = 0 // end of partition releases the downstream tasks as well
	t.send(EndOfPartition(), false)
	t.ready.Exit = true
}
