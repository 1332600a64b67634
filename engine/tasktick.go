package engine

// deadlinePassed implements deadlineOwner for the task's alignment-timeout timer: the
// protocol task's deadline came. task.armTick arms t.tick with the task itself as owner,
// which, unlike a closure made per call, costs no allocation on every Ready.
func (t *task) deadlinePassed() {
	t.proto.Tick(t.now())
	t.handleReady()
	t.pump()
}
