package engine

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
	"pgregory.net/rapid"
)

// TestCompletedEncoderMatchesEncodeCompleted checks the encoder that reuses checkpoints'
// encodings against the plain encoding, over a run of writes as the coordinator makes
// them: a sliding window of retained checkpoints, each write adding one, some writes
// failing (the next leaves the failed checkpoint out), and checkpoints that come back as
// copies with the same id but other content (as if rebuilt), which must be encoded anew.
func TestCompletedEncoderMatchesEncodeCompleted(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var enc completedEncoder
		var stored []protocol.CompletedCheckpoint
		nextID := protocol.CheckpointID(1)
		for write := range rapid.IntRange(1, 12).Draw(t, "writes") {
			c := protocol.CompletedCheckpoint{ID: nextID, TriggeredAt: protocol.Time(nextID) * 100, CompletedAt: protocol.Time(nextID)*100 + 7}
			nextID++
			for i := range rapid.IntRange(0, 4).Draw(t, "tasks") {
				task := TaskID("op", i)
				c.Tasks = append(c.Tasks, protocol.TaskState{Task: protocol.TaskID(task), Snapshot: protocol.TaskSnapshot{
					Handle: inlinePrefix + rapid.StringN(0, 40, -1).Draw(t, "state"), StateSizeBytes: int64(i)}})
			}
			if len(stored) > 0 && rapid.Bool().Draw(t, "rebuild") {
				// Same id and times, a new task list with changed content.
				i := rapid.IntRange(0, len(stored)-1).Draw(t, "rebuilt")
				old := stored[i]
				stored[i].Tasks = slices.Clone(old.Tasks)
				stored[i].Tasks = append(stored[i].Tasks, protocol.TaskState{Task: "extra-0"})
			}
			content := append(slices.Clone(stored), c)
			version := uint64(write + 1)
			got := enc.slotValue(version, content)
			if want := encodeSlot(version, encodeCompleted(content)); !bytes.Equal(got, want) {
				t.Fatalf("write %d: encoder renders %x, encodeCompleted %x", write, got, want)
			}
			if rapid.Bool().Draw(t, "fails") {
				continue
			}
			stored = content
			if keep := rapid.IntRange(1, 4).Draw(t, "retained"); len(stored) > keep {
				stored = stored[len(stored)-keep:]
			}
		}
	})
}
