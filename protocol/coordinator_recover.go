package protocol

import (
	"cmp"
	"fmt"
	"slices"
)

// recover loads what a previous incarnation left in durable storage. The
// id counter continues after everything ever reserved or stored (a stored
// id above the counter means the host lost a counter write; reusing that id
// would make a stale barrier look new). Retention is applied, so a store
// that kept more checkpoints than allowed (a crash between the write of a
// new checkpoint and the removal of an old one) is trimmed at once. The
// latest restorable checkpoint decides which tasks are fully finished, and
// its completion is re-announced because the previous incarnation may have
// crashed after making it durable but before notifying every task.
//
// MinPause needs nothing from the store: the first periodic trigger is at
// least MinPause after now, and now is at or after every stored completion.
func (c *coordinatorState) recover(now Time, durable Durable) error {
	c.highestID = durable.HighestID
	c.restored = durable.Restored
	var checkpoints []CompletedCheckpoint
	for _, cc := range durable.Completed {
		check := c.checkMatchesTopology
		if c.restored.earlierJob(&cc) {
			check = c.restored.checkRescaled
		}
		if err := check(&cc); err != nil {
			return err
		}
		if err := checkTakenFor(&cc); err != nil {
			return err
		}
		c.highestID = max(c.highestID, cc.ID)
		if cc.Kind == KindCheckpoint {
			checkpoints = append(checkpoints, cc)
		} else {
			c.savepoints.remember(cc.ID)
		}
		if cc.Kind.IsStop() {
			checkpoints = append(checkpoints, cc) // restorable, as when it completed
		}
	}
	slices.SortFunc(checkpoints, func(a, b CompletedCheckpoint) int { return cmp.Compare(a.ID, b.ID) })
	for i := 1; i < len(checkpoints); i++ {
		if checkpoints[i].ID == checkpoints[i-1].ID {
			return fmt.Errorf("protocol: durable store holds checkpoint %v twice", checkpoints[i].ID)
		}
	}
	c.completed = checkpoints
	if err := c.restored.validate(c.highestID); err != nil {
		return err
	}
	c.splits.reset(c.latestRestorable())
	if latest := c.latestRestorable(); latest != nil {
		c.highestCompleted = latest.ID
		c.markFullyFinished(now, latest)
		c.broadcastNotifyComplete(now, latest.ID)
	}
	c.applyRetention()
	return nil
}

// checkMatchesTopology rejects stored checkpoints of a different job graph:
// restoring them would hand tasks state that is not theirs.
func (c *coordinatorState) checkMatchesTopology(cc *CompletedCheckpoint) error {
	if len(cc.Tasks) != len(c.topo.Tasks) {
		return fmt.Errorf("protocol: stored checkpoint %v has %d tasks, topology has %d", cc.ID, len(cc.Tasks), len(c.topo.Tasks))
	}
	for i, ts := range cc.Tasks {
		if ts.Task != c.topo.Tasks[i] {
			return fmt.Errorf("protocol: stored checkpoint %v lists task %q where topology has %q", cc.ID, ts.Task, c.topo.Tasks[i])
		}
	}
	if cc.ID == 0 {
		return fmt.Errorf("protocol: stored checkpoint has id 0")
	}
	return nil
}

// checkTakenFor rejects a stored checkpoint whose snapshots name a checkpoint
// they cannot have been taken for: a later one, or an earlier one for a
// snapshot that is not final (only final snapshots are carried over). The
// host traces snapshot.carried from TakenFor, so a store that mixed it up
// would make a correct engine's trace judge wrong. 0 (unknown) is accepted.
func checkTakenFor(cc *CompletedCheckpoint) error {
	for _, ts := range cc.Tasks {
		s := ts.Snapshot
		if s.TakenFor > cc.ID || s.Carried(cc.ID) && !s.Final {
			return fmt.Errorf("protocol: stored checkpoint %v holds a snapshot of %s taken for %v", cc.ID, ts.Task, s.TakenFor)
		}
	}
	return nil
}
