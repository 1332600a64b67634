package spacetime

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func TestMatchArrows(t *testing.T) {
	events := []trace.Event{
		{Kind: trace.KindBarrierSend, Task: "a", To: "b", CP: 1},    // 0: received at 3
		{Kind: trace.KindBarrierSend, Task: "a", To: "c", CP: 1},    // 1: never received
		{Kind: trace.KindBarrierSend, Task: "a", To: "b", CP: 1},    // 2: re-sent after a restore, received at 4
		{Kind: trace.KindBarrierRecv, Task: "b", From: "a", CP: 1},  // 3
		{Kind: trace.KindBarrierRecv, Task: "b", From: "a", CP: 1},  // 4
		{Kind: trace.KindBarrierRecv, Task: "b", From: "a", CP: 2},  // 5: no send of cp 2
		{Kind: trace.KindRecordSend, Task: "a", To: "b", RID: "r1"}, // 6: a record is not a barrier
		{Kind: trace.KindRecordRecv, Task: "b", From: "a", RID: "r1"},
		{Kind: trace.KindSnapshotTaken, Task: "a", CP: 1},
	}
	lanes := map[string]int{"coordinator": 0, "a": 1, "b": 2, "c": 3}
	got := matchArrows(events, lanes)
	want := arrows{
		Send: []int{0, 1, 2, -1, 6},
		Recv: []int{3, -1, 4, 5, 7},
		Peer: []int{2, 3, 2, 1, 2},
	}
	if !slices.Equal(got.Send, want.Send) || !slices.Equal(got.Recv, want.Recv) || !slices.Equal(got.Peer, want.Peer) {
		t.Errorf("arrows %+v, want %+v", got, want)
	}
}
