package spacetime

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func TestLaneOrder(t *testing.T) {
	events := []trace.Event{
		{Kind: trace.KindPhase},
		{Kind: trace.KindFault, From: "link-a", To: "link-b"}, // harness names are no lanes
		{Kind: trace.KindTaskRestore, Task: "source-1"},
		{Kind: trace.KindTaskRestore, Task: "sum-10"},
		{Kind: trace.KindTaskRestore, Task: "source-0"},
		{Kind: trace.KindTaskRestore, Task: "sum-2"},
		{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 1},
		{Kind: trace.KindBarrierSend, Task: "sum-2", To: "sink-0", CP: 1}, // sink-0 known by the message alone
		{Kind: trace.KindSinkRead, Task: "reader"},
		{Kind: trace.KindTaskRestore, Task: "source-x"},
	}
	got := laneOrder(events)
	want := []string{"coordinator", "source-0", "source-1", "sum-2", "sum-10", "sink-0", "reader", "source-x"}
	if !slices.Equal(got, want) {
		t.Errorf("lanes %q, want %q", got, want)
	}
}

func TestSplitTask(t *testing.T) {
	for _, c := range []struct {
		name, op string
		index    int
	}{
		{"sum-12", "sum", 12}, {"a-b-3", "a-b", 3}, {"coordinator", "coordinator", -1},
		{"x-", "x-", -1}, {"-3", "-3", -1}, {"sum-+3", "sum-+3", -1}, {"sum-3a", "sum-3a", -1},
	} {
		op, index := splitTask(c.name)
		if op != c.op || index != c.index {
			t.Errorf("splitTask(%q) = %q, %d; want %q, %d", c.name, op, index, c.op, c.index)
		}
	}
}
