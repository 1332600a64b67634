package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// newTestRecorder returns a Recorder with small chunks, so that tests see many of them.
func newTestRecorder(w *bytes.Buffer, chunkLimit int) *Recorder {
	var r *Recorder
	if w == nil {
		r = NewRecorder(nil, Header{Scenario: "chunks"})
	} else {
		r = NewRecorder(w, Header{Scenario: "chunks"})
	}
	r.chunkLimit = chunkLimit
	return r
}

// Whatever the chunk size, and whenever Hash is asked, the trace hash is XXH64 over the
// version byte and the reference forms, the version 1 hash (when asked for) SHA-256 over the
// reference lines one by one, and the file is the header and those lines.
func TestChunkedHashEqualsLineByLineHash(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var file *bytes.Buffer
		if rapid.Bool().Draw(t, "writer") {
			file = new(bytes.Buffer)
		}
		r := newTestRecorder(file, rapid.IntRange(1, 2000).Draw(t, "chunkLimit"))
		v1 := rapid.Bool().Draw(t, "v1")
		if v1 {
			r.HashV1()
		}
		lineByLine := sha256.New()
		var lines bytes.Buffer
		var events []Event
		for i, n := 0, rapid.IntRange(0, 60).Draw(t, "events"); i < n; i++ {
			e := drawEvent(t)
			recorded := r.Emit(e.T, e)
			e.Seq = uint64(i)
			line := referenceLine(e) + "\n"
			lineByLine.Write([]byte(line))
			lines.WriteString(line)
			events = append(events, e)
			if recorded.String()+"\n" != line {
				t.Fatalf("Emit returned %s, want %s", recorded, line)
			}
			if rapid.IntRange(0, 9).Draw(t, "ask") == 0 {
				if got, want := r.Hash(), referenceHash(events); got != want {
					t.Fatalf("after %d events: hash %s, reference %s", i+1, got, want)
				}
				if got, want := r.HashV1Sum(), hex.EncodeToString(lineByLine.Sum(nil)); v1 && got != want {
					t.Fatalf("after %d events: version 1 hash %s, line by line %s", i+1, got, want)
				}
			}
		}
		if got, want := r.Hash(), referenceHash(events); got != want {
			t.Fatalf("hash %s, reference %s", got, want)
		}
		if got, want := r.HashV1Sum(), hex.EncodeToString(lineByLine.Sum(nil)); v1 && got != want {
			t.Fatalf("version 1 hash %s, line by line %s", got, want)
		}
		if got, want := HashEventsV1(events), hex.EncodeToString(lineByLine.Sum(nil)); got != want {
			t.Fatalf("HashEventsV1 %s, line by line %s", got, want)
		}
		if file == nil {
			return
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		header := string(appendHeader(nil, Header{Version: Version, Scenario: "chunks"})) + "\n"
		if got, want := file.String(), header+lines.String(); got != want {
			t.Fatalf("file:\n%s\nwant:\n%s", got, want)
		}
	})
}

// The Recorder encodes an event before Emit returns, so a caller that reuses the attribute
// slice afterwards changes nothing in the hash, though the chunk is hashed later.
func TestHashIsFixedWhenEmitReturns(t *testing.T) {
	r := newTestRecorder(nil, 64)
	attrs := make([]Attr, 2)
	var want []Event
	for i := range 100 {
		attrs[0] = Attr{"a", strconv.Itoa(i)}
		attrs[1] = Attr{"b", "v"}
		r.Emit(int64(i), Event{Kind: KindSnapshotTaken, Task: "t", CP: 1, Attrs: attrs})
		want = append(want, Event{Kind: KindSnapshotTaken, Task: "t", CP: 1, Attrs: slices.Clone(attrs)})
		attrs[0].Value, attrs[1].Value = "scribbled", "over"
	}
	for i := range want {
		want[i].Seq, want[i].T = uint64(i), int64(i)
	}
	if got := r.Hash(); got != HashEvents(want) {
		t.Fatalf("hash %s, want %s", got, HashEvents(want))
	}
}
