package protocol

import (
	"errors"
	"strings"
	"testing"
)

// Each invariant check must catch the broken state it names: the negative controls of the
// checks that every simulated run turns on.

func invariantJob(t *testing.T) (*Coordinator, *Task) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.CheckInvariants = true
	cfg.MaxConcurrent = 2
	topo := Topology{
		Tasks:    []TaskID{"s", "k"},
		Channels: []ChannelID{{From: "s", To: "k"}},
	}
	c, err := NewCoordinator(cfg, topo, Durable{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	task, err := NewTask(cfg.TaskConfig("k", topo.Inputs("k"), nil))
	if err != nil {
		t.Fatal(err)
	}
	return c, task
}

func TestCoordinatorInvariantsCatchBrokenState(t *testing.T) {
	for name, tc := range map[string]struct {
		breakIt func(c *coordinatorState)
		want    string
	}{
		"order": {func(c *coordinatorState) {
			c.pending = append(c.pending, &pendingCheckpoint{id: 2, phase: phaseReserving}, &pendingCheckpoint{id: 1, phase: phaseReserving})
			c.highestID = 2
		}, "out of order: 1 after 2"},
		"checkpoints": {func(c *coordinatorState) {
			for id := CheckpointID(1); id <= 3; id++ {
				c.pending = append(c.pending, &pendingCheckpoint{id: id, kind: KindCheckpoint, phase: phaseReserving})
			}
			c.highestID = 3
		}, "3 checkpoints in flight, above MaxConcurrent 2"},
		// Only where savepoints wait for a slot does a started one count
		// against the bound.
		"slots": {func(c *coordinatorState) {
			c.cfg.Mode = ModeAlignedWithTimeout
			c.pending = append(c.pending, &pendingCheckpoint{id: 1, kind: KindCheckpoint, phase: phaseReserving},
				&pendingCheckpoint{id: 2, kind: KindSavepoint, phase: phaseCollecting},
				&pendingCheckpoint{id: 3, kind: KindCheckpoint, phase: phaseReserving})
			c.highestID = 3
		}, "3 checkpoints occupy a slot, above MaxConcurrent 2"},
		"acks": {func(c *coordinatorState) {
			c.pending = append(c.pending, &pendingCheckpoint{id: 1, phase: phaseCollecting, deadline: 10,
				expected: []bool{true, true}, acked: []bool{true, false}, carried: []bool{false, false}, remaining: 2})
			c.highestID = 1
		}, "checkpoint 1: 1 snapshots missing, counted 2"},
		"subsumed": {func(c *coordinatorState) {
			c.pending = append(c.pending, &pendingCheckpoint{id: 1, kind: KindCheckpoint, phase: phaseReserving})
			c.highestID, c.highestCompleted = 2, 2
		}, "still pending though 2 completed"},
		"failures": {func(c *coordinatorState) { c.failures = c.cfg.TolerableFailures + 1 }, "no failover asked for"},
		"store":    {func(c *coordinatorState) { c.completed = []CompletedCheckpoint{{ID: 1, Kind: KindSavepoint}} }, "savepoint 1 retained"},
	} {
		c, _ := invariantJob(t)
		if broken := c.invariants(); broken != "" {
			t.Fatalf("%s: a fresh coordinator breaks %q", name, broken)
		}
		tc.breakIt(&c.coordinatorState)
		if broken := c.invariants(); !strings.Contains(broken, tc.want) {
			t.Errorf("%s: invariants() = %q, want %q", name, broken, tc.want)
		}
	}
}

func TestTaskInvariantsCatchBrokenState(t *testing.T) {
	for name, tc := range map[string]struct {
		breakIt func(t *taskState)
		want    string
	}{
		"inputs":    {func(t *taskState) { t.openInputs = 2 }, "1 inputs open, counted 2"},
		"blocked":   {func(t *taskState) { t.action[0] = inputBlock }, "input 0 blocked with no aligned checkpoint"},
		"recording": {func(t *taskState) { t.action[0] = inputRecord }, "input 0 recorded as channel state"},
		"twice": {func(t *taskState) {
			t.inflight = []inflightSnapshot{{id: 3}, {id: 3}}
		}, "two snapshots for one checkpoint"},
		"exit": {func(t *taskState) {
			t.exited = true
			t.inflight = []inflightSnapshot{{id: 1}}
		}, "exited with 0 alignments and 1 snapshots in flight"},
		"heard": {func(t *taskState) {
			t.alignments = []*alignment{{id: 4, seen: []bool{false}, missing: 1}}
		}, "aligning for 4, above the highest id heard of 0"},
		"sent": {func(t *taskState) { t.sentUpTo = 2 }, "sent checkpoint 2 downstream, above the highest id heard of 0"},
		"owed": {func(t *taskState) { t.staleUpTo, t.cancelOwed = 3, 3 }, "owes the cancel marker of 3 with no older alignment"},
	} {
		_, task := invariantJob(t)
		if broken := task.invariants(); broken != "" {
			t.Fatalf("%s: a fresh task breaks %q", name, broken)
		}
		tc.breakIt(&task.taskState)
		if broken := task.invariants(); !strings.Contains(broken, tc.want) {
			t.Errorf("%s: invariants() = %q, want %q", name, broken, tc.want)
		}
	}
}

// TestBrokenInvariantPanicsOnlyWhenAsked: the next call after the state broke panics with an
// *InvariantError when the config asks for checks, and carries on when it does not.
func TestBrokenInvariantPanicsOnlyWhenAsked(t *testing.T) {
	c, _ := invariantJob(t)
	c.failures = c.cfg.TolerableFailures + 1
	func() {
		defer func() {
			err, _ := recover().(error)
			var broken *InvariantError
			if !errors.As(err, &broken) || broken.Who != "coordinator" {
				t.Errorf("recovered %v, want an *InvariantError at the coordinator", err)
			}
		}()
		c.Tick(1)
	}()
	c.cfg.CheckInvariants = false
	c.Tick(2) // no panic
}
