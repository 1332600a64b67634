package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"slices"
)

// Recorder numbers, hashes and writes events as they happen. It keeps nothing per event
// unless asked to (KeepEvents), so a long run streams its trace in constant memory.
//
// Lines are collected in a chunk of about chunkBytes and hashed (and written) a chunk at a
// time: SHA-256 over the concatenation of the lines is the same hash as over each line in
// turn, and one large write costs far less than many small ones. Hash and Flush take in
// whatever the current chunk holds.
//
// A Recorder belongs to one simulation and is used from one goroutine.
type Recorder struct {
	seq        uint64
	keys       *keyLists // attribute key lists found valid, by identity; nil until an event has one
	hash       hash.Hash
	chunkLimit int    // chunkBytes, or less in tests that want many chunks
	pending    []byte // canonical lines, each with its newline, not yet hashed or written
	header     []byte // the header line, until it is written ahead of the first chunk
	out        io.Writer
	err        error // first write error; later writes are skipped
	keep       bool
	events     []Event
	watches    []func(Event)
}

// chunkBytes is how many bytes of lines the Recorder collects before it hashes and writes
// them.
const chunkBytes = 32 << 10

// NewRecorder returns a Recorder that writes the header and then every event to w, or only
// hashes (and possibly keeps) them when w is nil.
func NewRecorder(w io.Writer, h Header) *Recorder {
	r := &Recorder{hash: sha256.New(), chunkLimit: chunkBytes, pending: make([]byte, 0, chunkBytes+1024)}
	if w != nil {
		r.out = w
		if h.Version == 0 {
			h.Version = Version
		}
		r.header = append(appendHeader(nil, h), '\n')
	}
	return r
}

// KeepEvents makes the Recorder retain every event in memory, for checkers that judge the run
// when it ends. Call it before the first Emit.
func (r *Recorder) KeepEvents() {
	if r.seq != 0 {
		panic("trace: KeepEvents after the first event")
	}
	r.keep = true
}

// Watch registers fn to see every event after it is recorded, in registration order. Watchers
// drive event-triggered faults; a watcher may Emit, and the nested event is recorded after the
// one being watched, before later watchers see that one.
func (r *Recorder) Watch(fn func(Event)) {
	r.watches = append(r.watches, fn)
}

// Emit records e at virtual time t, assigning its sequence number, and returns the recorded
// event. It panics if an attribute key is invalid or appears twice, since that is a bug in the
// emitter: a line with a repeated key would not read back to the event that was hashed. For
// the same reason a Recorder that keeps events panics if e.PlainValues vouches for a value
// that is not plain.
func (r *Recorder) Emit(t int64, e Event) Event {
	// Small enough to inline: a caller that drops the result (most do) then copies no event
	// back, and record works on the caller's copy.
	r.record(t, &e)
	return e
}

// record is Emit on an event it may change: it sets Seq and T, clears PlainValues and may
// replace Attrs with a sorted copy.
func (r *Recorder) record(t int64, e *Event) {
	valuesPlain := e.PlainValues
	if valuesPlain {
		e.PlainValues = false // not part of the event (see Event.PlainValues)
		if r.keep {
			checkPlainValues(e)
		}
	}
	if len(e.Attrs) > 0 {
		if r.keys == nil {
			r.keys = new(keyLists) // here rather than in NewRecorder: many runs are short
		}
		if !r.keys.check(e) {
			// Rare: emitters pass sorted attributes. Strictly increasing keys cannot repeat.
			if key, dup := repeatedKey(e.Attrs); dup {
				panic(fmt.Sprintf("trace: attribute key %q appears twice on %s", key, e.Kind))
			}
			e.Attrs = sortedAttrs(e.Attrs)
		}
	}
	e.Seq = r.seq
	e.T = t
	r.seq++
	r.pending = appendLine(r.pending, e, true, valuesPlain)
	r.pending = append(r.pending, '\n')
	if len(r.pending) >= r.chunkLimit {
		r.flushChunk()
	}
	if r.keep {
		r.events = append(r.events, *e)
	}
	for _, fn := range r.watches {
		fn(*e)
	}
}

// flushChunk hashes the pending lines and writes them out.
func (r *Recorder) flushChunk() {
	r.hash.Write(r.pending)
	r.write(r.pending)
	r.pending = r.pending[:0]
}

// write writes lines out after the header, unless there is no writer or a write failed.
func (r *Recorder) write(lines []byte) {
	r.writeHeader()
	if r.out != nil && r.err == nil && len(lines) > 0 {
		_, r.err = r.out.Write(lines)
	}
}

// writeHeader writes the header line if it has not been written yet.
func (r *Recorder) writeHeader() {
	if r.out == nil || r.err != nil || r.header == nil {
		return
	}
	_, r.err = r.out.Write(r.header)
	r.header = nil
}

// checkPlainValues panics unless every attribute value of e is plain, as e.PlainValues said.
func checkPlainValues(e *Event) {
	for _, a := range e.Attrs {
		if !plainString(a.Value) {
			panic(fmt.Sprintf("trace: attribute %q of %s was passed as plain (PlainValues) but needs escaping: %q", a.Key, e.Kind, a.Value))
		}
	}
}

// repeatedKey returns a key that appears more than once in attrs, if any.
func repeatedKey(attrs []Attr) (string, bool) {
	keys := make([]string, len(attrs))
	for i, a := range attrs {
		keys[i] = a.Key
	}
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return keys[i], true
		}
	}
	return "", false
}

// Len returns the number of events recorded so far.
func (r *Recorder) Len() uint64 { return r.seq }

// Hash returns the trace hash of the events so far, as 64 hex digits.
func (r *Recorder) Hash() string {
	r.flushChunk()
	var sum [sha256.Size]byte
	return hex.EncodeToString(r.hash.Sum(sum[:0]))
}

// Events returns the events kept so far (see KeepEvents). The slice must not be changed.
func (r *Recorder) Events() []Event { return r.events }

// Flush writes out buffered lines and returns the first write error, if any.
func (r *Recorder) Flush() error {
	if r.out == nil {
		return nil
	}
	r.flushChunk()
	r.writeHeader() // no event yet: the file still gets its header
	if r.err != nil {
		return fmt.Errorf("trace: writing: %w", r.err)
	}
	return nil
}

// HashEvents returns the trace hash of events, as a Recorder that emitted them would report
// it. Checkers use it to hash a trace read back from a file.
func HashEvents(events []Event) string {
	h := sha256.New()
	line := make([]byte, 0, chunkBytes+1024)
	for i := range events {
		line = appendEvent(line, &events[i])
		line = append(line, '\n')
		if len(line) >= chunkBytes {
			h.Write(line)
			line = line[:0]
		}
	}
	h.Write(line)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
