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
	t.started = true
	t.advance(now)
	t.finished = true
	t.send(EndOfData(), false)
	t.ready.Messages = append(t.ready.Messages, TaskFinishedMessage(t.cfg.ID))
	if !t.cfg.WaitForFinalCheckpoint {
		t.exit()
	}
	return nil
}

// exit lets the host stop the task. End of partition goes out after
// everything else this task sent, so downstream tasks stop waiting for it
// only once its last barrier has passed.
func (t *taskState) exit() {
	if t.exited {
		return
	}
	t.exited = true
	t.send(EndOfPartition(), false)
	t.ready.Exit = true
}
