package protocol_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// taskCycle drives a task with two inputs and two outputs through one
// aligned checkpoint (both barriers, the upload, the completion) and
// reports whether every Ready held what it should. It allocates nothing of
// its own, so that AllocsPerRun counts the protocol's allocations alone.
func taskCycle(task *protocol.Task, id protocol.CheckpointID, snap protocol.TaskSnapshot) bool {
	b := protocol.Barrier(id, protocol.KindCheckpoint, protocol.ModeAligned, 0)
	if task.Receive(0, 0, b) != nil || task.HasReady() || task.Receive(0, 1, b) != nil {
		return false
	}
	rd := task.Ready()
	if len(rd.Snapshots) != 1 || len(rd.Sends) != 2 || rd.Sends[1].Event.Checkpoint != id {
		return false
	}
	if task.SnapshotCompleted(0, id, snap) != nil {
		return false
	}
	rd = task.Ready()
	if len(rd.Messages) != 1 || rd.Messages[0].Type != protocol.MsgAck {
		return false
	}
	if task.Step(0, protocol.NotifyCompleteMessage("t", id)) != nil {
		return false
	}
	rd = task.Ready()
	return len(rd.Notifications) == 1 && rd.Notifications[0].Checkpoint == id
}

func newCycleTask(t *testing.T) *protocol.Task {
	t.Helper()
	cfg := protocol.DefaultConfig()
	inputs := []protocol.ChannelID{{From: "a", To: "t"}, {From: "b", To: "t"}}
	outputs := []protocol.ChannelID{{From: "t", To: "x"}, {From: "t", To: "y"}}
	task, err := protocol.NewTask(cfg.TaskConfig("t", inputs, outputs))
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestTaskCheckpointAllocations pins that a task's steady state costs less
// than one allocation per checkpoint: the Ready slices come out of chunks
// shared by many Readys, and ended alignments are reused. (AllocsPerRun
// rounds the average down, so 0 means fewer than one per cycle.) It used
// to be about eight: an alignment and its table, and each Ready slice
// grown from nil.
func TestTaskCheckpointAllocations(t *testing.T) {
	task := newCycleTask(t)
	snap := protocol.TaskSnapshot{Handle: "h", StateSizeBytes: 1}
	id := protocol.CheckpointID(0)
	ok := true
	allocs := testing.AllocsPerRun(1000, func() {
		id++
		ok = ok && taskCycle(task, id, snap)
	})
	if !ok {
		t.Fatal("a checkpoint cycle did not produce the expected outputs")
	}
	if allocs != 0 {
		t.Errorf("a task allocates %v times per checkpoint, want fewer than one", allocs)
	}
}

// TestCoordinatorCheckpointAllocations pins the coordinator's steady state.
// Per checkpoint it allocates what the host keeps: the task states
// (CompletedCheckpoint.Tasks) and the three Ready slices that hold the
// checkpoint (MetadataWrites, Completed and, at retention, Discarded, which
// stay out of shared chunks so as not to keep old checkpoints' states
// alive); plus its share of the chunks the other Ready slices come from,
// about one here, where each checkpoint of four tasks sends eight messages
// and releases four states out of chunks of sixteen. It used to be fourteen.
func TestCoordinatorCheckpointAllocations(t *testing.T) {
	cfg := protocol.DefaultConfig()
	topo := protocol.Topology{Tasks: []protocol.TaskID{"a", "b", "c", "d"}}
	c, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Handles differ between consecutive checkpoints, so that retention
	// releases the state of the one it discards.
	var handles [8][4]string
	for k := range handles {
		for i := range handles[k] {
			handles[k][i] = fmt.Sprintf("h%d-%d", k, i)
		}
	}
	ok := true
	released := 0
	allocs := testing.AllocsPerRun(1000, func() {
		now := c.NextDeadline()
		c.Tick(now)
		rd := c.Ready()
		if len(rd.CounterWrites) != 1 {
			ok = false
			return
		}
		id := rd.CounterWrites[0]
		c.CounterPersisted(now, id, nil)
		if rd = c.Ready(); len(rd.Messages) != len(topo.Tasks) || len(rd.Triggered) != 1 {
			ok = false
			return
		}
		for i, task := range topo.Tasks {
			snap := protocol.TaskSnapshot{Handle: handles[id%8][i], StateSizeBytes: 1}
			if c.Step(now, protocol.AckMessage(task, id, snap)) != nil {
				ok = false
			}
		}
		if rd = c.Ready(); len(rd.MetadataWrites) != 1 {
			ok = false
			return
		}
		c.MetadataPersisted(now, id, nil)
		rd = c.Ready()
		ok = ok && len(rd.Completed) == 1 && len(rd.Messages) == len(topo.Tasks)
		released += len(rd.Released)
	})
	if !ok || released == 0 {
		t.Fatalf("a checkpoint cycle did not produce the expected outputs (released %d)", released)
	}
	if allocs > 5 {
		t.Errorf("a coordinator allocates %v times per checkpoint, want at most five (what the host keeps, and chunk shares)", allocs)
	}
}

// TestReadySlicesBelongToTheHost checks what the chunks must preserve: a
// Ready's slices are never written by the protocol again, whatever the host
// does next (take further Readys while it keeps this one, or append to it).
func TestReadySlicesBelongToTheHost(t *testing.T) {
	task := newCycleTask(t)
	var kept []protocol.TaskReady
	var copies []protocol.TaskReady
	for id := protocol.CheckpointID(1); id <= 100; id++ {
		b := protocol.Barrier(id, protocol.KindCheckpoint, protocol.ModeAligned, protocol.Time(id))
		task.Receive(0, 0, b)
		task.Receive(0, 1, b)
		rd := task.Ready()
		// The host appends to what it got: that must not reach the
		// protocol's later outputs.
		_ = append(rd.Sends, protocol.Send{Output: 99})
		kept = append(kept, rd)
		copies = append(copies, protocol.TaskReady{Snapshots: slices.Clone(rd.Snapshots), Sends: slices.Clone(rd.Sends)})
		task.SnapshotCompleted(0, id, protocol.TaskSnapshot{Handle: "h"})
		task.Step(0, protocol.NotifyCompleteMessage("t", id))
		task.Ready()
	}
	for k := range kept {
		if !slices.Equal(kept[k].Snapshots, copies[k].Snapshots) || !slices.Equal(kept[k].Sends, copies[k].Sends) {
			t.Fatalf("the Ready of checkpoint %d changed after later inputs: %v, was %v", k+1, kept[k].Sends, copies[k].Sends)
		}
		for _, s := range kept[k].Sends {
			if s.Event.Checkpoint != protocol.CheckpointID(k+1) || s.Output == 99 {
				t.Fatalf("checkpoint %d's Ready holds %v", k+1, s)
			}
		}
	}
}
