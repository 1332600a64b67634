package protocol_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// storedCheckpoint builds a completed checkpoint of topo whose task states
// are named task@id (final for the tasks listed in final).
func storedCheckpoint(topo protocol.Topology, id protocol.CheckpointID, final ...protocol.TaskID) protocol.CompletedCheckpoint {
	cc := protocol.CompletedCheckpoint{ID: id, Kind: protocol.KindCheckpoint, TriggeredAt: protocol.Time(id), CompletedAt: protocol.Time(id)}
	for _, task := range topo.Tasks {
		snap := protocol.TaskSnapshot{Handle: fmt.Sprintf("%s@%d", task, id), Final: slices.Contains(final, task)}
		cc.Tasks = append(cc.Tasks, protocol.TaskState{Task: task, Snapshot: snap})
	}
	return cc
}

var twoTasks = protocol.Topology{
	Tasks:    []protocol.TaskID{"src", "sink"},
	Channels: []protocol.ChannelID{{From: "src", To: "sink"}},
}

// TestRecoverContinuesAboveStoredIDs: a stored checkpoint above the stored
// counter (the host lost a counter write) still moves the counter: reusing
// its id would make a stale barrier look new.
func TestRecoverContinuesAboveStoredIDs(t *testing.T) {
	durable := protocol.Durable{HighestID: 1, Completed: []protocol.CompletedCheckpoint{storedCheckpoint(twoTasks, 3)}}
	c, err := protocol.NewCoordinator(protocol.DefaultConfig(), twoTasks, durable, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Status().HighestID; got != 3 {
		t.Fatalf("HighestID after recovery = %v, want 3", got)
	}
	c.Ready()
	if err := c.TriggerCheckpoint(0); err != nil {
		t.Fatal(err)
	}
	if got := c.Ready().CounterWrites; !slices.Equal(got, []protocol.CheckpointID{4}) {
		t.Fatalf("first reservation after recovery writes %v, want [4]", got)
	}
}

// TestRecoverRefusesDuplicateIDs: a store holding one id twice is corrupt.
func TestRecoverRefusesDuplicateIDs(t *testing.T) {
	cc := storedCheckpoint(twoTasks, 2)
	durable := protocol.Durable{HighestID: 2, Completed: []protocol.CompletedCheckpoint{cc, cc}}
	_, err := protocol.NewCoordinator(protocol.DefaultConfig(), twoTasks, durable, 0)
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("NewCoordinator with a duplicate id: %v", err)
	}
}

// TestRecoverAppliesRetention: a store left with more checkpoints than
// retained (a crash between writing a new one and removing an old one) is
// trimmed by the new incarnation; the state of the discarded ones is
// released, except a final snapshot that a later checkpoint carries.
func TestRecoverAppliesRetention(t *testing.T) {
	durable := protocol.Durable{HighestID: 3, Completed: []protocol.CompletedCheckpoint{
		storedCheckpoint(twoTasks, 3, "src"),
		storedCheckpoint(twoTasks, 1),
		storedCheckpoint(twoTasks, 2, "src"),
	}}
	// Checkpoint 3 carries src's final snapshot of 2.
	durable.Completed[0].Tasks[0].Snapshot = durable.Completed[2].Tasks[0].Snapshot
	cfg := protocol.DefaultConfig()
	cfg.RetainedCheckpoints = 1
	c, err := protocol.NewCoordinator(cfg, twoTasks, durable, 0)
	if err != nil {
		t.Fatal(err)
	}
	rd := c.Ready()
	var discarded []protocol.CheckpointID
	for _, d := range rd.Discarded {
		discarded = append(discarded, d.ID)
	}
	if !slices.Equal(discarded, []protocol.CheckpointID{1, 2}) {
		t.Fatalf("discarded %v, want [1 2]", discarded)
	}
	var released []string
	for _, r := range rd.Released {
		released = append(released, r.Snapshot.Handle)
	}
	if want := []string{"src@1", "sink@1", "sink@2"}; !slices.Equal(released, want) {
		t.Fatalf("released %v, want %v (src@2 is carried by 3)", released, want)
	}
	st := c.Status()
	if got := st.Retained; len(got) != 1 || got[0].ID != 3 {
		t.Fatalf("retained %v, want only 3", got)
	}
	if want := []protocol.TaskID{"src"}; !slices.Equal(st.FullyFinished, want) {
		t.Fatalf("fully finished %v, want %v", st.FullyFinished, want)
	}
}

// TestCounterPersistedForAWriteNeverAskedForPanics: the host confirming a
// value the coordinator did not ask for (a stale answer, or a write it made
// up) breaks the one-write-at-a-time rule that keeps the counter monotonic.
func TestCounterPersistedForAWriteNeverAskedForPanics(t *testing.T) {
	c, err := protocol.NewCoordinator(protocol.DefaultConfig(), twoTasks, protocol.Durable{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c.TriggerCheckpoint(0)
	c.Ready()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "never asked for") {
			t.Fatalf("CounterPersisted(5) with 1 outstanding: recovered %v", r)
		}
	}()
	c.CounterPersisted(0, 5, nil)
}

// TestCycleNamesTheCycle checks Topology.Cycle on graphs with and without
// cycles, and that NewCoordinator's refusal wraps ErrCyclicTopology.
func TestCycleNamesTheCycle(t *testing.T) {
	ch := func(from, to protocol.TaskID) protocol.ChannelID { return protocol.ChannelID{From: from, To: to} }
	cases := []struct {
		topo protocol.Topology
		want string
	}{
		{protocol.Topology{Tasks: []protocol.TaskID{"a"}}, ""},
		{protocol.Topology{Tasks: []protocol.TaskID{"a", "b", "c", "d"},
			Channels: []protocol.ChannelID{ch("a", "b"), ch("a", "c"), ch("b", "d"), ch("c", "d")}}, ""},
		{protocol.Topology{Tasks: []protocol.TaskID{"a", "b"},
			Channels: []protocol.ChannelID{ch("a", "b"), ch("b", "a")}}, "a b a"},
		{protocol.Topology{Tasks: []protocol.TaskID{"s", "a", "b", "c"},
			Channels: []protocol.ChannelID{ch("s", "a"), ch("a", "b"), ch("b", "c"), ch("c", "a")}}, "a b c a"},
		{protocol.Topology{Tasks: []protocol.TaskID{"a"}, Channels: []protocol.ChannelID{ch("a", "a")}}, "a a"},
	}
	for _, tc := range cases {
		var got []string
		for _, id := range tc.topo.Cycle() {
			got = append(got, string(id))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("Cycle(%v) = %v, want %q", tc.topo.Channels, got, tc.want)
		}
		_, err := protocol.NewCoordinator(protocol.DefaultConfig(), tc.topo, protocol.Durable{}, 0)
		if (tc.want != "") != errors.Is(err, protocol.ErrCyclicTopology) {
			t.Errorf("NewCoordinator(%v) in aligned mode: %v", tc.topo.Channels, err)
		}
	}
}
