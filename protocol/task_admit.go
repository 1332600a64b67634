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
