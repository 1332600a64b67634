package protocol

import "fmt"

// RestoreMode says who owns the checkpoint a job was started from, one that an earlier
// job took (Flink's restore modes, for a job submitted again from a retained checkpoint).
type RestoreMode uint8

const (
	// RestoreClaim: the job takes the checkpoint over. It is the job's first retained
	// checkpoint, and its state goes once newer checkpoints subsume it.
	RestoreClaim RestoreMode = iota + 1
	// RestoreNoClaim: the checkpoint stays the user's. The job never deletes its state and
	// never builds on it: the first checkpoint after the restore uploads everything afresh
	// (an ack that reuses one of its pieces aborts, ReasonSharedStateGone), so that the user
	// may delete the checkpoint once that one completed.
	RestoreNoClaim
	// RestoreLegacy: the checkpoint stays the user's and the job never deletes its state,
	// but later checkpoints may reuse its pieces, so it can never safely be deleted by
	// anyone (Flink's behaviour before restore modes).
	RestoreLegacy
)

// Restored names the checkpoint a job was started from and the mode it was restored in.
// The zero value is a job that started from nothing of anyone else's (its own failovers
// and recoveries do not count: those checkpoints are its own).
type Restored struct {
	_    struct{}
	From CheckpointID
	Mode RestoreMode
	// Rescaled: the job runs with another parallelism than the one that took From, so
	// From's snapshots are of the earlier job's tasks, not of the topology's. The host
	// redistributes their state to its tasks (keyed state by key group, RescaledFrom); the
	// coordinator accepts From as it is, and refuses it if it holds a final snapshot, which
	// no task of the new job can take as its own.
	Rescaled bool
}

// String renders "from=n mode=m", or "none".
func (r Restored) String() string {
	if r.Mode == 0 {
		return "none"
	}
	s := "from=" + r.From.String() + " mode=" + r.Mode.String()
	if r.Rescaled {
		s += " rescaled"
	}
	return s
}

// earlierJob reports whether cc is the checkpoint of another parallelism that a rescaled
// job was restored from: its tasks are not the topology's.
func (r Restored) earlierJob(cc *CompletedCheckpoint) bool {
	return r.Rescaled && cc.ID == r.From
}

// owns reports whether state uploaded for checkpoint id is the job's to delete: everything
// but what the restored checkpoint holds when the job did not claim it. That state was
// uploaded for the restored checkpoint or earlier.
func (r Restored) owns(id CheckpointID) bool {
	return r.Mode == 0 || r.Mode == RestoreClaim || id > r.From
}

// mayReuse reports whether a snapshot may refer to piece p: under no-claim, not to a piece
// of the restored checkpoint.
func (r Restored) mayReuse(p SharedPiece) bool {
	return r.Mode != RestoreNoClaim || p.UploadedFor > r.From
}

func (r Restored) validate(highest CheckpointID) error {
	switch {
	case r.Mode == 0 && r.From == 0:
		return nil
	case r.Mode < RestoreClaim || r.Mode > RestoreLegacy:
		return fmt.Errorf("protocol: Durable.Restored: mode %d is not a restore mode", r.Mode)
	case r.From == 0 || r.From > highest:
		return fmt.Errorf("protocol: Durable.Restored: checkpoint %v is not one the counter %v covers", r.From, highest)
	}
	return nil
}

// checkRescaled refuses a rescaled restore from a checkpoint with a final snapshot: the
// tasks that finished are not the new job's, and none of its tasks may take their place.
func (r Restored) checkRescaled(cc *CompletedCheckpoint) error {
	for _, ts := range cc.Tasks {
		if ts.Snapshot.Final {
			return fmt.Errorf("protocol: rescaled restore from checkpoint %v: task %s had finished (a final snapshot is not redistributed)", cc.ID, ts.Task)
		}
	}
	return nil
}
