package protocol_test

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// completeCheckpoint triggers a checkpoint on c, has every task in acks
// acknowledge it with a snapshot named task@id, and confirms its writes. It
// returns the metadata the coordinator asked the host to store: what a host
// traces snapshot.carried from.
func completeCheckpoint(t *testing.T, c *protocol.Coordinator, now protocol.Time, acks ...protocol.TaskID) protocol.CompletedCheckpoint {
	t.Helper()
	if err := c.TriggerCheckpoint(now); err != nil {
		t.Fatal(err)
	}
	rd := c.Ready()
	if len(rd.CounterWrites) != 1 {
		t.Fatalf("counter writes %v, want one", rd.CounterWrites)
	}
	id := rd.CounterWrites[0]
	c.CounterPersisted(now, id, nil)
	c.Ready()
	for _, task := range acks {
		snap := protocol.TaskSnapshot{Handle: string(task) + "@" + id.String()}
		if err := c.Step(now, protocol.AckMessage(task, id, snap)); err != nil {
			t.Fatalf("ack of %s for %v: %v", task, id, err)
		}
	}
	rd = c.Ready()
	if len(rd.MetadataWrites) != 1 || rd.MetadataWrites[0].ID != id {
		t.Fatalf("metadata writes %v, want checkpoint %v", rd.MetadataWrites, id)
	}
	c.MetadataPersisted(now, id, nil)
	c.Ready()
	return rd.MetadataWrites[0]
}

// TestCarriedSnapshotNamesTheCheckpointItWasTakenFor: a finished task's
// final snapshot carried into a later checkpoint says which checkpoint it was
// taken for, so that a host can trace snapshot.carried (attribute taken)
// without knowing how its own handles are spelt. Acked snapshots name the
// checkpoint they were acked for, even when the ack's message left it out;
// a coordinator recovered from the store keeps carrying the stored id.
func TestCarriedSnapshotNamesTheCheckpointItWasTakenFor(t *testing.T) {
	cfg := protocol.DefaultConfig()
	cfg.Interval = 0
	c, err := protocol.NewCoordinator(cfg, twoTasks, protocol.Durable{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.Ready()
	if err := c.Step(1, protocol.TaskFinishedMessage("src")); err != nil {
		t.Fatal(err)
	}
	// The final checkpoint, 1: src acks with a final snapshot.
	if err := c.TriggerCheckpoint(2); err != nil {
		t.Fatal(err)
	}
	rd := c.Ready()
	c.CounterPersisted(2, rd.CounterWrites[0], nil)
	c.Ready()
	final := protocol.TaskSnapshot{Handle: "src-final", Final: true}
	for _, m := range []protocol.Message{protocol.AckMessage("src", 1, final), protocol.AckMessage("sink", 1, protocol.TaskSnapshot{Handle: "sink@1"})} {
		if err := c.Step(3, m); err != nil {
			t.Fatal(err)
		}
	}
	first := c.Ready().MetadataWrites[0]
	c.MetadataPersisted(3, 1, nil)
	c.Ready()
	for _, ts := range first.Tasks {
		if ts.Snapshot.TakenFor != 1 || ts.Snapshot.Carried(1) {
			t.Errorf("checkpoint 1 holds %s's snapshot %v, want taken for 1", ts.Task, ts.Snapshot)
		}
	}

	second := completeCheckpoint(t, c, 10, "sink")
	wantCarried(t, second, "src", 1)

	// A new incarnation recovered from the store carries the stored id on.
	recovered, err := protocol.NewCoordinator(cfg, twoTasks, protocol.Durable{HighestID: second.ID, Completed: []protocol.CompletedCheckpoint{second}}, 20)
	if err != nil {
		t.Fatal(err)
	}
	recovered.Ready()
	third := completeCheckpoint(t, recovered, 30, "sink")
	wantCarried(t, third, "src", 1)
}

// wantCarried checks that cc holds task's final snapshot taken for taken, and
// every other task's snapshot taken for cc itself.
func wantCarried(t *testing.T, cc protocol.CompletedCheckpoint, task protocol.TaskID, taken protocol.CheckpointID) {
	t.Helper()
	for _, ts := range cc.Tasks {
		s := ts.Snapshot
		switch {
		case ts.Task == task && (!s.Final || s.TakenFor != taken || !s.Carried(cc.ID)):
			t.Errorf("checkpoint %v holds %s's snapshot %v, want the final one carried from %v", cc.ID, task, s, taken)
		case ts.Task != task && (s.TakenFor != cc.ID || s.Carried(cc.ID)):
			t.Errorf("checkpoint %v holds %s's snapshot %v, want taken for %v", cc.ID, ts.Task, s, cc.ID)
		}
	}
}

// TestTaskAckNamesItsCheckpoint: the task fills TakenFor into its ack, as it
// fills Final, whatever the host put there.
func TestTaskAckNamesItsCheckpoint(t *testing.T) {
	task, err := protocol.NewTask(protocol.DefaultConfig().TaskConfig("src", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Step(0, protocol.TriggerMessage("src", 4, protocol.KindCheckpoint, protocol.ModeAligned, 0)); err != nil {
		t.Fatal(err)
	}
	task.Ready()
	if err := task.SnapshotCompleted(1, 4, protocol.TaskSnapshot{Handle: "h", TakenFor: 9}); err != nil {
		t.Fatal(err)
	}
	msgs := task.Ready().Messages
	if len(msgs) != 1 || msgs[0].Type != protocol.MsgAck || msgs[0].Snapshot.TakenFor != 4 {
		t.Fatalf("messages %v, want an ack of a snapshot taken for 4", msgs)
	}
}

// TestRecoverRefusesSnapshotsTakenForAnotherCheckpoint: a stored snapshot
// that names a later checkpoint, or an earlier one without being final, is
// a store that mixed up its records; the carried snapshots traced from it
// would be wrong, so NewCoordinator refuses it, naming checkpoint and task.
// An unknown TakenFor (0, a store that does not keep it) is accepted.
func TestRecoverRefusesSnapshotsTakenForAnotherCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name     string
		takenFor protocol.CheckpointID
		final    bool
		refused  bool
	}{
		{"later", 3, true, true},
		{"earlier, not final", 1, false, true},
		{"earlier, final", 1, true, false},
		{"its own", 2, false, false},
		{"unknown", 0, false, false},
	} {
		cc := storedCheckpoint(twoTasks, 2)
		cc.Tasks[0].Snapshot.TakenFor = tc.takenFor
		cc.Tasks[0].Snapshot.Final = tc.final
		_, err := protocol.NewCoordinator(protocol.DefaultConfig(), twoTasks, protocol.Durable{HighestID: 2, Completed: []protocol.CompletedCheckpoint{cc}}, 0)
		if refused := err != nil; refused != tc.refused {
			t.Errorf("%s: NewCoordinator: %v, want refused %v", tc.name, err, tc.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "checkpoint 2 holds a snapshot of src taken for") {
			t.Errorf("%s: error %q does not name checkpoint and task", tc.name, err)
		}
	}
}
