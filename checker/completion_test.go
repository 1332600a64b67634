package checker

import "testing"

// A coordinator that crashes after its metadata write landed but before it heard so leaves a
// durable checkpoint with no checkpoint.complete. The next incarnation reads it back and the
// job restores from it: a correct run, which no property may flag.
func TestRecoveredCheckpointCountsAsDurable(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.trigger(1)
	b.snap("sum", 1, "state=ab12")
	b.persist(1)
	b.coordCrash()
	b.recover(1)
	b.notify("sum", 1)
	b.crash("sum")
	b.restore("sum", 1, "state=ab12")
	wantPass(t, RestoreFidelity(b.events))
	wantPass(t, ListenerContract(b.events, Reference{}))
	wantPass(t, DurableBeforeVisible(b.events, SearchOptions{}))
}

// Without the recovery read, the same restore is from a checkpoint nobody can know is durable.
func TestUnrecoveredUnconfirmedCheckpointIsNotDurable(t *testing.T) {
	b := newTB()
	b.restore("sum", 0)
	b.trigger(1)
	b.snap("sum", 1, "state=ab12")
	b.persist(1)
	b.crash("sum")
	bad := b.restore("sum", 1, "state=ab12")
	wantFirst(t, RestoreFidelity(b.events), bad, "task.restore from checkpoint 1, which had not completed")
	early := b.notify("sum", 1)
	wantFirst(t, DurableBeforeVisible(b.events, SearchOptions{}), early, "sum notified of checkpoint 1 before it was durably complete")
}
