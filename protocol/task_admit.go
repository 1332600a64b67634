package protocol

// AdmitAction is the answer to "may I process this buffer from input i now?"
type AdmitAction uint8

const (
	// AdmitProcess: process the buffer normally.
	AdmitProcess AdmitAction = iota + 1
	// AdmitBlock: leave the buffer (and everything behind it) in the
	// channel; the channel is blocked for an alignment. Ask again after the
	// next input or Tick (Task.Blocked says when it is worth asking).
	AdmitBlock
	// AdmitRecord: add a copy of the buffer to the channel state of
	// Admission.Checkpoint, then process it. The buffer is in flight across
	// the cut of an unaligned checkpoint: it was sent before the upstream
	// snapshot but arrives after this task's snapshot.
	AdmitRecord
)

// Admission is the answer of Task.Admit.
type Admission struct {
	Action AdmitAction
	// Checkpoint is set when Action is AdmitRecord.
	Checkpoint CheckpointID
}

// String renders "process", "block" or "record cp=n".
func (a Admission) String() string {
	if a.Action == AdmitRecord {
		return "record cp=" + a.Checkpoint.String()
	}
	return a.Action.String()
}

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
		assertionFailed(string(t.cfg.ID), "input records without a recording checkpoint")
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
