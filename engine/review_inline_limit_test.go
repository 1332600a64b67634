package engine

import (
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// TestReviewInlineStateAtThresholdSurvivesMetadata: a snapshot whose encoding is exactly
// InlineStateBytes long goes inline (finalise: len(blob) <= InlineStateBytes), so its
// handle is inlinePrefix plus the blob and lands in the checkpoint's metadata. The
// scenarios allow inline_state_bytes up to 1 MiB (scenarios/validate.go) and the engine
// puts no bound on Config.InlineStateBytes, but decodeCompleted reads a handle as a
// string of at most maxStateString (1 MiB) bytes: a snapshot that restores fine from
// storage (its operator state is under the limit) makes, once inline, metadata that no
// coordinator can read back. VerifyWrites compares bytes, not decodes, so the write is
// accepted and the checkpoint completes; a later coordinator's readSlots then rejects the
// slot as corrupt and recovers from an older store (or none), behind completions it made
// visible.
func TestReviewInlineStateAtThresholdSurvivesMetadata(t *testing.T) {
	const threshold = 1 << 20 // the largest inline_state_bytes a scenario may set
	d := &snapshotData{task: "sum-0", cp: 7, sent: []int64{1}, recv: []int64{1}, channel: make([][]rec, 1)}
	// Grow the operator state until the whole snapshot is exactly threshold bytes.
	d.operator = make([]byte, threshold-64)
	for len(d.encode(testCatalog)) < threshold {
		d.operator = append(d.operator, 0)
	}
	blob := d.encode(testCatalog)
	if len(blob) != threshold {
		t.Fatalf("blob is %d bytes, want %d", len(blob), threshold)
	}
	// The snapshot itself is fine: it restores from storage.
	if _, err := decodeSnapshot(testCatalog, blob); err != nil {
		t.Fatalf("the snapshot does not decode by itself: %v", err)
	}
	cps := []protocol.CompletedCheckpoint{{
		ID: 7, Kind: protocol.KindCheckpoint,
		Tasks: []protocol.TaskState{{Task: "sum-0", Snapshot: protocol.TaskSnapshot{Handle: inlineHandle(blob), StateSizeBytes: int64(len(blob))}}},
	}}
	back, err := decodeCompleted(encodeCompleted(cps))
	if err != nil {
		t.Fatalf("metadata holding a %d-byte inline snapshot (InlineStateBytes %d) cannot be read back: %v", len(blob), threshold, err)
	}
	if got, ok := inlineState(back[0].Tasks[0].Snapshot.Handle); !ok || string(got) != string(blob) {
		t.Fatal("inline state changed on the way through the metadata")
	}
}
