package engine

import (
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// testCatalog is the catalog the drawn snapshots' records come from: a source's partitions
// and keys, and the tasks of a JobKind.
var testCatalog = newCatalog(&Graph{Operators: []Operator{
	{Name: "src", Parallelism: 2, Logic: Source{Partitions: 3, Keys: 5}},
	{Name: "tok", Parallelism: 2, Logic: testKind{}},
}})

func drawRecord(t *rapid.T, label string) rec {
	return rec{
		origin: uint32(rapid.IntRange(0, len(testCatalog.origins)-1).Draw(t, label+".origin")),
		key:    uint32(rapid.IntRange(0, len(testCatalog.keys)-1).Draw(t, label+".key")),
		seq:    rapid.Int64().Draw(t, label+".seq"),
		value:  rapid.Int64().Draw(t, label+".value"),
	}
}

func drawSnapshot(t *rapid.T) *snapshotData {
	d := &snapshotData{task: rapid.StringMatching(`[a-z]{1,5}-[0-9]`).Draw(t, "task"), cp: rapid.Uint64().Draw(t, "cp")}
	d.operator = rapid.SliceOf(rapid.Byte()).Draw(t, "operator")
	if len(d.operator) == 0 {
		d.operator = nil
	}
	d.offsets = rapid.SliceOf(rapid.Int64()).Draw(t, "offsets")
	d.sent = rapid.SliceOf(rapid.Int64()).Draw(t, "sent")
	inputs := rapid.IntRange(0, 4).Draw(t, "inputs")
	d.recv = make([]int64, inputs)
	d.channel = make([][]rec, inputs)
	for i := range inputs {
		d.recv[i] = rapid.Int64().Draw(t, "recv")
		n := rapid.IntRange(0, 3).Draw(t, "records")
		for range n {
			d.channel[i] = append(d.channel[i], drawRecord(t, "chan"))
		}
	}
	if outputs := rapid.IntRange(0, 3).Draw(t, "outputs"); outputs > 0 {
		d.output = make([][]rec, outputs)
		for i := range outputs {
			for range rapid.IntRange(0, 2).Draw(t, "overtaken") {
				d.output[i] = append(d.output[i], drawRecord(t, "out"))
			}
		}
	}
	for range rapid.IntRange(0, 3).Draw(t, "pending") {
		d.twoPhase.Pending = append(d.twoPhase.Pending, protocol.PendingTransaction{
			Checkpoint: protocol.CheckpointID(rapid.Uint64().Draw(t, "pcp")), Transaction: protocol.TransactionID(rapid.String().Draw(t, "ptxn"))})
	}
	d.twoPhase.Current = protocol.TransactionID(rapid.String().Draw(t, "current"))
	if rapid.Bool().Draw(t, "tokens") {
		d.kind = &KindState{Held: rapid.Int64().Draw(t, "balance"), Position: rapid.Int64().Draw(t, "transfers")}
	}
	return d
}

// TestSnapshotRoundTrip: decoding an encoding gives the same snapshot, and encoding is a
// function of the content (so the digest can stand for it).
func TestSnapshotRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := drawSnapshot(t)
		blob := d.encode(testCatalog)
		back, err := decodeSnapshot(testCatalog, blob)
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		if diff := cmp.Diff(d, back, cmp.AllowUnexported(snapshotData{}, rec{})); diff != "" {
			t.Fatalf("round trip changed the snapshot (-want +got):\n%s", diff)
		}
		if Digest(back.encode(testCatalog)) != Digest(blob) {
			t.Fatal("re-encoding changed the digest")
		}
	})
}

// TestSnapshotDecodeRejectsDamage: truncations and trailing bytes are errors, not panics
// or silent misreads.
func TestSnapshotDecodeRejectsDamage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		blob := drawSnapshot(t).encode(testCatalog)
		cut := rapid.IntRange(0, len(blob)-1).Draw(t, "cut")
		if _, err := decodeSnapshot(testCatalog, blob[:cut]); err == nil {
			t.Fatalf("truncated to %d of %d bytes and decoded", cut, len(blob))
		}
		if _, err := decodeSnapshot(testCatalog, append(blob, 0)); err == nil {
			t.Fatal("trailing byte accepted")
		}
	})
}

// TestCompletedRoundTrip: the completed-checkpoint store reads back what was written,
// TakenFor included: a recovered coordinator carries src-0's final snapshot of 5 into later
// checkpoints, and the engine traces snapshot.carried from it.
func TestCompletedRoundTrip(t *testing.T) {
	cps := []protocol.CompletedCheckpoint{{
		ID: 7, Kind: protocol.KindCheckpoint, TriggeredAt: 100, CompletedAt: 250,
		Tasks: []protocol.TaskState{
			{Task: "src-0", Snapshot: protocol.TaskSnapshot{Handle: "state/5/src-0", StateSizeBytes: 40,
				SourceOffsets: []protocol.SourceOffset{{Split: "src:0", Offset: 12}}, Final: true, TakenFor: 5}},
			{Task: "sum-0", Snapshot: protocol.TaskSnapshot{Handle: "state/7/sum-0", StateSizeBytes: 90, TakenFor: 7,
				ChannelState: []protocol.ChannelStateHandle{{Input: protocol.ChannelID{From: "src-0", To: "sum-0"}, Handle: "state/7/sum-0#src-0", Records: 3}}}},
		},
	}, {ID: 9, Kind: protocol.KindSavepoint, Tasks: []protocol.TaskState{{Task: "src-0"}}}}
	back, err := decodeCompleted(encodeCompleted(cps))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cps, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	id, err := decodeCounter(encodeCounter(1 << 40))
	if err != nil || id != 1<<40 {
		t.Errorf("counter round trip: %d, %v", id, err)
	}
	if _, err := decodeCounter([]byte{0x80}); err == nil {
		t.Error("truncated counter accepted")
	}
}

func TestKeyedStateSnapshotIsSorted(t *testing.T) {
	c := newCatalog(&Graph{Operators: []Operator{{Name: "s", Parallelism: 1, Logic: Source{Partitions: 2, Keys: 12}}}})
	s := newKeyedState(c)
	for _, k := range []string{"s/1/10", "s/0/2", "s/0/11", "s/1/0"} {
		s.put(c.key(k), int64(len(k)))
	}
	var w1, w2 stateWriter
	s.snapshot(&w1)
	keys := &stateReader{buf: w1.bytes()}
	keys.expect("keyed")
	var got []string
	for range keys.count() {
		got = append(got, keys.string())
		keys.int()
	}
	if want := []string{"s/0/11", "s/0/2", "s/1/0", "s/1/10"}; !slices.Equal(got, want) {
		t.Errorf("snapshot writes keys %v, want %v", got, want)
	}
	r := newKeyedState(c)
	r.restore(&stateReader{buf: w1.bytes()})
	r.snapshot(&w2)
	if string(w1.bytes()) != string(w2.bytes()) || r.len() != 4 {
		t.Error("keyed state does not round-trip to the same bytes")
	}
	// Out-of-order keys mean the bytes were not written by snapshot.
	var bad stateWriter
	bad.tag("keyed")
	bad.uint(2)
	bad.string("s/0/3")
	bad.int(1)
	bad.string("s/0/2")
	bad.int(1)
	rd := &stateReader{buf: bad.bytes()}
	newKeyedState(c).restore(rd)
	if rd.done() == nil {
		t.Error("unsorted keyed state accepted")
	}
	// A key the job cannot have means state from another job, or corruption.
	var alien stateWriter
	alien.tag("keyed")
	alien.uint(1)
	alien.string("other/0/1")
	alien.int(1)
	rd = &stateReader{buf: alien.bytes()}
	newKeyedState(c).restore(rd)
	if rd.done() == nil {
		t.Error("keyed state with an unknown key accepted")
	}
}
