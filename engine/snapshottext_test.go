package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
	"pgregory.net/rapid"
)

// TestDigestTextIsTheReference: the digest in traces is the XXH64 of the state in 16 hex
// digits, however it is rendered (pinned trace hashes depend on it). trace's tests check
// XXH64 itself against the reference values; the empty state's digest is XXH64's of "".
func TestDigestTextIsTheReference(t *testing.T) {
	if got := Digest(nil); got != "ef46db3751d8e999" {
		t.Fatalf("Digest of no bytes = %q, want XXH64's ef46db3751d8e999", got)
	}
	rapid.Check(t, func(t *rapid.T) {
		data := rapid.SliceOf(rapid.Byte()).Draw(t, "data")
		want := fmt.Sprintf("%016x", trace.XXH64(data))
		if got := Digest(data); got != want {
			t.Fatalf("Digest = %q, want %q", got, want)
		}
		prefix := rapid.StringN(0, 8, -1).Draw(t, "prefix")
		if got := string(appendDigest([]byte(prefix), data)); got != prefix+want {
			t.Fatalf("appendDigest after %q = %q, want %q", prefix, got, prefix+want)
		}
	})
}

// TestStateKeyIsTheReference: the storage key of a snapshot names the checkpoint and the
// task as it always has (completed checkpoints in storage name state by it).
func TestStateKeyIsTheReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		task := rapid.StringMatching(`[a-z]{1,8}-[0-9]{1,3}`).Draw(t, "task")
		cp := protocol.CheckpointID(rapid.Uint64().Draw(t, "cp"))
		want := "state/" + cp.String() + "/" + task
		if got := stateKey(task, cp); got != want {
			t.Fatalf("stateKey = %q, want %q", got, want)
		}
		if got := string(appendStateKey([]byte("x"), task, cp)); got != "x"+want {
			t.Fatalf("appendStateKey after %q = %q, want %q", "x", got, "x"+want)
		}
	})
}

// TestCompletedSizeCoversTheEncoding: the estimate encodeCompleted grows its buffer to is
// at least the size of the encoding for checkpoints of realistic ids, times and sizes, so
// the encoding allocates once, and not far above it.
func TestCompletedSizeCoversTheEncoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`[a-z]{1,8}-[0-9]{1,2}`)
		var cps []protocol.CompletedCheckpoint
		for range rapid.IntRange(0, 4).Draw(t, "checkpoints") {
			c := protocol.CompletedCheckpoint{
				ID:          protocol.CheckpointID(rapid.Uint64Range(1, 1<<20).Draw(t, "id")),
				Kind:        protocol.Kind(rapid.IntRange(0, 1).Draw(t, "kind")),
				TriggeredAt: protocol.Time(rapid.Int64Range(0, 1<<50).Draw(t, "triggered")),
				CompletedAt: protocol.Time(rapid.Int64Range(0, 1<<50).Draw(t, "completed")),
			}
			for range rapid.IntRange(0, 8).Draw(t, "tasks") {
				task := name.Draw(t, "task")
				ts := protocol.TaskState{Task: protocol.TaskID(task), Snapshot: protocol.TaskSnapshot{
					Handle:         stateKey(task, c.ID),
					StateSizeBytes: rapid.Int64Range(0, 1<<20).Draw(t, "size"),
					Final:          rapid.Bool().Draw(t, "final"),
				}}
				for range rapid.IntRange(0, 2).Draw(t, "offsets") {
					ts.Snapshot.SourceOffsets = append(ts.Snapshot.SourceOffsets, protocol.SourceOffset{
						Split: name.Draw(t, "split"), Offset: rapid.Int64Range(0, 1<<20).Draw(t, "offset")})
				}
				for range rapid.IntRange(0, 2).Draw(t, "channels") {
					from := name.Draw(t, "from")
					ts.Snapshot.ChannelState = append(ts.Snapshot.ChannelState, protocol.ChannelStateHandle{
						Input:  protocol.ChannelID{From: protocol.TaskID(from), To: protocol.TaskID(task), Index: rapid.IntRange(0, 100).Draw(t, "index")},
						Handle: ts.Snapshot.Handle + "#" + from, Records: rapid.IntRange(0, 1<<16).Draw(t, "records")})
				}
				c.Tasks = append(c.Tasks, ts)
			}
			cps = append(cps, c)
		}
		size, encoded := completedSize(cps), len(encodeCompleted(cps))
		if size < encoded {
			t.Fatalf("estimated %d bytes for an encoding of %d", size, encoded)
		}
		if size > 3*encoded {
			t.Fatalf("estimated %d bytes for an encoding of %d: the estimate wastes memory", size, encoded)
		}
	})
}

// TestByteStringWritesAsString: writing bytes as a string encodes as the string does.
func TestByteStringWritesAsString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		var a, b stateWriter
		a.string(s)
		b.byteString([]byte(s))
		if string(a.bytes()) != string(b.bytes()) || !strings.HasSuffix(string(a.bytes()), s) {
			t.Fatalf("string wrote %x, byteString %x", a.bytes(), b.bytes())
		}
	})
}
