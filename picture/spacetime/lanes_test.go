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

// TestLaneLivesShowARescale: after a rescale from two sum tasks to one, sum-1's lane ends at
// its last event and a task that only the rescaled job has begins at its first; lanes of
// tasks that run throughout span the run, as every lane does without a rescale.
func TestLaneLivesShowARescale(t *testing.T) {
	events := []trace.Event{
		{T: 0, Kind: trace.KindTaskRestore, Task: "sum-0"},
		{T: 1, Kind: trace.KindTaskRestore, Task: "sum-1"},
		{T: 5, Kind: trace.KindSnapshotTaken, Task: "sum-1", CP: 1},
		trace.JobRescale(1, "claim", "sum", 1, []string{"sum-0", "sink-2"}),
		{T: 20, Kind: trace.KindTaskRestore, Task: "sink-2", CP: 1},
		{T: 30, Kind: trace.KindTaskFinish, Task: "sum-0"},
	}
	events[3].T = 10
	lanes := []string{"coordinator", "sum-0", "sum-1", "sink-2"}
	got := laneLives(events, lanes, 0, 30)
	want := []int64{0, 30, 0, 30, 0, 5, 20, 30}
	if !slices.Equal(got, want) {
		t.Errorf("lives %v, want %v", got, want)
	}
	if got := laneLives(events[:3], lanes[:3], 0, 5); !slices.Equal(got, []int64{0, 5, 0, 5, 0, 5}) {
		t.Errorf("lives without a rescale %v, want the run for every lane", got)
	}
}
