package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// newTestRecorder returns a Recorder with small chunks, hashing them on goroutines of their
// own or not whatever GOMAXPROCS is, so that tests see many hand-overs either way.
func newTestRecorder(w *bytes.Buffer, chunkLimit int, parallel bool) *Recorder {
	var r *Recorder
	if w == nil {
		r = NewRecorder(nil, Header{Scenario: "chunks"})
	} else {
		r = NewRecorder(w, Header{Scenario: "chunks"})
	}
	r.chunkLimit = chunkLimit
	r.hasher.parallel = parallel
	return r
}

// Whatever the chunk size, with or without a hashing goroutine, and whenever Hash is asked,
// the trace hash is SHA-256 over the reference lines one by one, and the file is the header
// and those lines.
func TestChunkedHashEqualsLineByLineHash(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var file *bytes.Buffer
		if rapid.Bool().Draw(t, "writer") {
			file = new(bytes.Buffer)
		}
		r := newTestRecorder(file, rapid.IntRange(1, 2000).Draw(t, "chunkLimit"), rapid.Bool().Draw(t, "parallel"))
		lineByLine := sha256.New()
		var lines bytes.Buffer
		for i, n := 0, rapid.IntRange(0, 60).Draw(t, "events"); i < n; i++ {
			e := drawEvent(t)
			recorded := r.Emit(e.T, e)
			e.Seq = uint64(i)
			line := referenceLine(e) + "\n"
			lineByLine.Write([]byte(line))
			lines.WriteString(line)
			if recorded.String()+"\n" != line {
				t.Fatalf("Emit returned %s, want %s", recorded, line)
			}
			if rapid.IntRange(0, 9).Draw(t, "ask") == 0 {
				if got, want := r.Hash(), hex.EncodeToString(lineByLine.Sum(nil)); got != want {
					t.Fatalf("after %d events: hash %s, line by line %s", i+1, got, want)
				}
			}
		}
		if got, want := r.Hash(), hex.EncodeToString(lineByLine.Sum(nil)); got != want {
			t.Fatalf("hash %s, line by line %s", got, want)
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
// slice afterwards changes nothing in the hash, however late the chunk is hashed.
func TestHashIsFixedWhenEmitReturns(t *testing.T) {
	r := newTestRecorder(nil, 64, true)
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

// A Recorder dropped in the middle of a run, without Hash or Flush, leaves no goroutine
// behind once the chunk in flight is hashed.
func TestDroppedRecorderLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		r := newTestRecorder(nil, 256, true)
		for i := range 10_000 {
			r.Emit(int64(i), Event{Kind: KindBarrierSend, Task: "src-0", To: "sum-1", CP: 1})
		}
	}()
	// The last hand-over's goroutine ends as soon as it has hashed 256 bytes; give the
	// scheduler time to run it, with a bound far beyond that so a leak fails the test.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before recording, %d after", before, runtime.NumGoroutine())
		}
		time.Sleep(time.Millisecond)
	}
}
