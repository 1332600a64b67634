package protocol

// Abort reports that a checkpoint ended without completing: at the
// coordinator (CoordinatorReady.Aborted, trace kind checkpoint.abort; Task
// names the task whose decline caused it, if any) or at one task
// (TaskReady.Aborted: the task gave up its part; Task is the task itself).
type Abort struct {
	_          struct{}
	Checkpoint CheckpointID
	Kind       Kind
	Reason     Reason
	Task       TaskID
}

// String renders "cp=n kind reason=r" plus " task=t" when set.
func (a Abort) String() string {
	s := "cp=" + a.Checkpoint.String() + " " + a.Kind.String() + " reason=" + a.Reason.String()
	if a.Task != "" {
		s += " task=" + string(a.Task)
	}
	return s
}
