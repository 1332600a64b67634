package protocol

// admit is the per-record path. The common case, no checkpoint touching
// this input, is one bounds-checked load and a compare.
func (t *taskState) admit(input int) Admission {
	switch t.action[input] {
	case inputProcess:
		return Admission{Action: AdmitProcess}
	case inputBlock:
		return Admission{Action: AdmitBlock}
	}
	a := t.recording
	if a == nil {
		panic("protocol: task " + string(t.cfg.ID) + ": input records without a recording checkpoint")
	}
	a.recorded++
	if a.recorded > t.cfg.MaxBufferedRecords {
		// Recording more would grow without limit while the barrier is
		// stuck upstream; give this checkpoint up instead.
		t.abortAlignment(a, ReasonChannelStateOverflow, true)
		return Admission{Action: AdmitProcess}
	}
	return Admission{Action: AdmitRecord, Checkpoint: a.id}
}

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
