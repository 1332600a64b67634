package protocol_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// threeTasks is twoTasks with its sink rescaled from one task to two.
var threeTasks = protocol.Topology{
	Tasks:    []protocol.TaskID{"src", "sink-0", "sink-1"},
	Channels: []protocol.ChannelID{{From: "src", To: "sink-0"}, {From: "src", To: "sink-1"}},
}

// TestRescaledRestoreTakesTheEarlierJobsCheckpoint: a coordinator of a new parallelism
// accepts the checkpoint it was restored from only when Restored says the job was
// rescaled; it refuses one holding a final snapshot; and once newer checkpoints subsume
// it, every snapshot of the earlier job's tasks is released.
func TestRescaledRestoreTakesTheEarlierJobsCheckpoint(t *testing.T) {
	old := storedCheckpoint(twoTasks, 4)
	restored := protocol.Restored{From: 4, Mode: protocol.RestoreClaim}
	durable := protocol.Durable{HighestID: 4, Completed: []protocol.CompletedCheckpoint{old}, Restored: restored}
	if _, err := protocol.NewCoordinator(protocol.DefaultConfig(), threeTasks, durable, 0); err == nil {
		t.Fatal("a checkpoint of other tasks was accepted without Rescaled")
	}
	durable.Restored.Rescaled = true
	final := durable
	final.Completed = []protocol.CompletedCheckpoint{storedCheckpoint(twoTasks, 4, "src")}
	if _, err := protocol.NewCoordinator(protocol.DefaultConfig(), threeTasks, final, 0); err == nil || !strings.Contains(err.Error(), "final snapshot") {
		t.Fatalf("a rescaled restore from a checkpoint with a finished task: %v", err)
	}
	cfg := protocol.DefaultConfig()
	cfg.RetainedCheckpoints = 1
	c, err := protocol.NewCoordinator(cfg, threeTasks, durable, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.LatestRestorable(); got == nil || got.ID != 4 {
		t.Fatalf("latest restorable = %v, want the restored checkpoint 4", got)
	}
	c.Ready()
	released := completeOneCheckpoint(t, c, threeTasks)
	want := []string{"sink@4", "src@4"}
	if strings.Join(released, " ") != strings.Join(want, " ") {
		t.Fatalf("released after the first checkpoint of the new job: %v, want %v", released, want)
	}
}

// completeOneCheckpoint triggers a checkpoint, acks it from every task of topo, and
// returns the handles released, sorted.
func completeOneCheckpoint(t *testing.T, c *protocol.Coordinator, topo protocol.Topology) []string {
	t.Helper()
	if err := c.TriggerCheckpoint(1); err != nil {
		t.Fatal(err)
	}
	rd := c.Ready()
	for _, id := range rd.CounterWrites {
		c.CounterPersisted(2, id, nil)
	}
	rd = c.Ready()
	if len(rd.Triggered) != 1 {
		t.Fatalf("triggered %v", rd.Triggered)
	}
	id := rd.Triggered[0].ID
	for _, task := range topo.Tasks {
		snap := protocol.TaskSnapshot{Handle: string(task) + "@new"}
		if err := c.Step(3, protocol.AckMessage(task, id, snap)); err != nil {
			t.Fatal(err)
		}
	}
	rd = c.Ready()
	for _, cc := range rd.MetadataWrites {
		c.MetadataPersisted(4, cc.ID, nil)
	}
	var released []string
	for range 3 {
		for _, r := range c.Ready().Released {
			released = append(released, r.Snapshot.Handle)
		}
	}
	slices.Sort(released)
	return released
}
