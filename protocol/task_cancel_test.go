package protocol

import (
	"fmt"
	"strings"
	"testing"
)

// TestSendKeepsIdsIncreasing: the assertion where events leave a task lets an unaligned
// task's cancel marker follow its own barrier, and catches any barrier or marker below
// what already went downstream, and a barrier after its own marker.
func TestSendKeepsIdsIncreasing(t *testing.T) {
	barrier := func(id CheckpointID) ChannelEvent { return Barrier(id, KindCheckpoint, ModeAligned, 0) }
	for name, tc := range map[string]struct {
		first, then ChannelEvent
		want        string // "" for no panic
	}{
		"marker after its barrier":   {barrier(2), CancelMarker(2), ""},
		"barrier after older marker": {CancelMarker(1), barrier(2), ""},
		"barrier after newer marker": {CancelMarker(2), barrier(1), "barrier cp=1 checkpoint aligned sent after checkpoint 2"},
		"marker after newer barrier": {barrier(2), CancelMarker(1), "cancel-marker cp=1 sent after checkpoint 2"},
		"barrier after its marker":   {CancelMarker(2), barrier(2), "barrier cp=2 checkpoint aligned sent after checkpoint 2"},
		"barrier twice":              {barrier(2), barrier(2), "sent after checkpoint 2"},
	} {
		_, task := invariantJob(t)
		task.send(tc.first, false)
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg = fmt.Sprint(r)
				}
			}()
			task.send(tc.then, false)
			return ""
		}()
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: panicked %q", name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: panic %q, want one naming %q", name, got, tc.want)
		}
	}
}
