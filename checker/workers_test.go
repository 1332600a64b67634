package checker

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestWorkersOfIsTheNaiveScan: the tasks at work that the trace index lists, skipping runs
// of one task, are those a scan of every work event with a map finds, in the same order,
// each with the kind of its first work event.
func TestWorkersOfIsTheNaiveScan(t *testing.T) {
	kinds := []string{trace.KindBarrierSend, trace.KindSinkWrites, trace.KindTaskFinish, trace.KindSnapshotTaken, trace.KindCheckpointTrigger}
	tasks := []string{"", "src-0", "sum-1", trace.CoordinatorTask, "sink-0", "sum-1", "src-0"}
	var events []trace.Event
	for i := range 300 {
		// A run of one task now and then, and every task and kind over and over.
		task := tasks[(i/3+i*i/7)%len(tasks)]
		events = append(events, trace.Event{Seq: uint64(i), Kind: kinds[(i*5/3)%len(kinds)], Task: task})
	}
	var want []worker
	seen := map[string]bool{}
	for i := range events {
		e := &events[i]
		if workKinds.has(e.Kind) && !seen[e.Task] && e.Task != "" && e.Task != trace.CoordinatorTask {
			seen[e.Task] = true
			want = append(want, worker{task: e.Task, kind: e.Kind})
		}
	}
	if len(want) < 3 {
		t.Fatalf("the trace shows %d tasks at work; the test wants several", len(want))
	}
	if got := newTraceIndex(events).workers(); !slices.Equal(got, want) {
		t.Fatalf("workers %v, want %v", got, want)
	}
}
