package engine

import (
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// snapshotOfSize returns a snapshot whose encoding is exactly size bytes.
func snapshotOfSize(t *testing.T, size int) []byte {
	t.Helper()
	d := &snapshotData{task: "sum-0", cp: 7, sent: []int64{1}, recv: []int64{1}, channel: make([][]rec, 1)}
	d.operator = make([]byte, size-64)
	for len(d.encode(testCatalog)) < size {
		d.operator = append(d.operator, 0)
	}
	blob := d.encode(testCatalog)
	if len(blob) != size {
		t.Fatalf("blob is %d bytes, want %d", len(blob), size)
	}
	return blob
}

// TestLargestInlineStateSurvivesMetadata: an inline handle is a string of the checkpoint's
// metadata, whose decoder refuses strings over maxStateString. The largest state the
// engine puts inline (MaxInlineStateBytes, whatever InlineStateBytes says) must come back
// intact through the metadata, and a byte more must not go inline: else a checkpoint would
// complete with metadata no coordinator can read back, and recovery would fall behind a
// completion it made visible (found by review).
func TestLargestInlineStateSurvivesMetadata(t *testing.T) {
	blob := snapshotOfSize(t, MaxInlineStateBytes)
	if !inlinable(len(blob), 1<<30) {
		t.Fatalf("a %d-byte state does not go inline", len(blob))
	}
	if inlinable(len(blob)+1, 1<<30) {
		t.Errorf("a %d-byte state goes inline, over MaxInlineStateBytes", len(blob)+1)
	}
	cps := []protocol.CompletedCheckpoint{{
		ID: 7, Kind: protocol.KindCheckpoint,
		Tasks: []protocol.TaskState{{Task: "sum-0", Snapshot: protocol.TaskSnapshot{Handle: inlineHandle(blob), StateSizeBytes: int64(len(blob))}}},
	}}
	back, err := decodeCompleted(encodeCompleted(cps))
	if err != nil {
		t.Fatalf("metadata holding a %d-byte inline state cannot be read back: %v", len(blob), err)
	}
	if got, ok := inlineState(back[0].Tasks[0].Snapshot.Handle); !ok || string(got) != string(blob) {
		t.Fatal("inline state changed on the way through the metadata")
	}
	cfg := DefaultConfig(KeyedSumGraph(1, 10, 0, TwoPhaseCommit))
	cfg.InlineStateBytes = MaxInlineStateBytes + 1
	if cfg.Validate() == nil {
		t.Error("Config.Validate accepts InlineStateBytes over MaxInlineStateBytes")
	}
}

// inlineHandle is the handle of state held inline (finalise builds it in place).
func inlineHandle(blob []byte) string { return inlinePrefix + string(blob) }
