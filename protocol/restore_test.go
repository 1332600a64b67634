package protocol_test

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

var oneTask = protocol.Topology{Tasks: []protocol.TaskID{"a"}}

// piece is a shared piece uploaded for checkpoint cp.
func piece(handle string, cp protocol.CheckpointID) protocol.SharedPiece {
	return protocol.SharedPiece{Handle: handle, UploadedFor: cp}
}

// runCheckpoint takes checkpoint id through trigger, a's ack of pieces and, unless the ack
// aborts it, its completion, and returns the Ready that ended it.
func runCheckpoint(t *testing.T, c *protocol.Coordinator, id protocol.CheckpointID, pieces ...protocol.SharedPiece) protocol.CoordinatorReady {
	t.Helper()
	now := protocol.Time(id) * 1000
	if err := c.TriggerCheckpoint(now); err != nil {
		t.Fatal(err)
	}
	c.Ready()
	c.CounterPersisted(now, id, nil)
	c.Ready()
	snap := protocol.TaskSnapshot{Handle: "a@" + id.String(), Shared: pieces}
	if err := c.Step(now, protocol.AckMessage("a", id, snap)); err != nil {
		t.Fatal(err)
	}
	rd := c.Ready()
	if len(rd.MetadataWrites) == 0 {
		return rd
	}
	c.MetadataPersisted(now, id, nil)
	return c.Ready()
}

// deleted lists what rd asks the host to delete, handles and pieces.
func deleted(rd protocol.CoordinatorReady) []string {
	var out []string
	for _, r := range rd.Released {
		out = append(out, r.Snapshot.Handle)
		for _, p := range r.Pieces {
			out = append(out, p.String())
		}
	}
	return out
}

// TestRestoreModesDecideWhoDeletesTheRestoredCheckpoint: a job started from checkpoint 3
// of an earlier job, which refers to piece p@3. Claimed, the checkpoint is the job's and
// goes with its piece once subsumed; not claimed, its state stays, and under no-claim the
// job may not build on it: an ack that reuses p@3 aborts its checkpoint.
func TestRestoreModesDecideWhoDeletesTheRestoredCheckpoint(t *testing.T) {
	restored := protocol.CompletedCheckpoint{ID: 3, Kind: protocol.KindCheckpoint,
		Tasks: []protocol.TaskState{{Task: "a", Snapshot: protocol.TaskSnapshot{Handle: "a@3", Shared: []protocol.SharedPiece{piece("p", 3)}, TakenFor: 3}}}}
	cfg := protocol.DefaultConfig()
	cfg.RetainedCheckpoints = 1
	cases := []struct {
		mode        protocol.RestoreMode
		reuseAborts bool
		deleted     []string // when checkpoint 5 subsumes 4 (4 subsumed 3)
		deleted4    []string // when checkpoint 4 subsumes 3
	}{
		{protocol.RestoreClaim, false, []string{"a@4", "p@3", "q@4"}, []string{"a@3"}},
		{protocol.RestoreLegacy, false, []string{"a@4", "q@4"}, nil},
		{protocol.RestoreNoClaim, true, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.mode.String(), func(t *testing.T) {
			durable := protocol.Durable{HighestID: 3, Completed: []protocol.CompletedCheckpoint{restored},
				Restored: protocol.Restored{From: 3, Mode: tc.mode}}
			c, err := protocol.NewCoordinator(cfg, oneTask, durable, 0)
			if err != nil {
				t.Fatal(err)
			}
			c.Ready()
			rd := runCheckpoint(t, c, 4, piece("p", 3), piece("q", 4))
			if aborted := len(rd.Aborted) == 1 && rd.Aborted[0].Reason == protocol.ReasonSharedStateGone; aborted != tc.reuseAborts {
				t.Fatalf("checkpoint 4 reusing p@3: aborted %v, want %v (%+v)", aborted, tc.reuseAborts, rd.Aborted)
			}
			if tc.reuseAborts {
				// Checkpoint 5 uploads afresh, completes and subsumes 3, whose state stays.
				rd = runCheckpoint(t, c, 5, piece("r", 5))
				if got := deleted(rd); len(rd.Completed) != 1 || slices.Contains(got, "a@3") || slices.Contains(got, "p@3") {
					t.Fatalf("no-claim: checkpoint 5 completed %d, deleted %v", len(rd.Completed), got)
				}
				return
			}
			if got := deleted(rd); !slices.Equal(got, tc.deleted4) {
				t.Fatalf("checkpoint 4 subsumes 3: deleted %v, want %v", got, tc.deleted4)
			}
			rd = runCheckpoint(t, c, 5, piece("r", 5))
			if got := deleted(rd); !slices.Equal(got, tc.deleted) {
				t.Fatalf("checkpoint 5 subsumes 4: deleted %v, want %v", got, tc.deleted)
			}
		})
	}
}

// TestRestoredMustBeCovered: a restore that names no checkpoint the counter covers, or no
// mode, is refused.
func TestRestoredMustBeCovered(t *testing.T) {
	for _, r := range []protocol.Restored{{From: 9, Mode: protocol.RestoreClaim}, {From: 2}, {From: 2, Mode: 7}} {
		if _, err := protocol.NewCoordinator(protocol.DefaultConfig(), oneTask, protocol.Durable{HighestID: 3, Restored: r}, 0); err == nil {
			t.Errorf("Restored %v accepted", r)
		}
	}
}
