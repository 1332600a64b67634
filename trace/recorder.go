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
// The hash is taken over each event's binary form (binary.go), collected in a chunk of
// about chunkBytes and hashed a chunk at a time: the hash of the concatenation is the hash
// of the stream however it is cut. Only a Recorder that writes a file (or is asked for the
// version 1 hash, HashV1) renders canonical lines, collected and written a chunk at a time
// too, since one large write costs far less than many small ones. Hash and Flush take in
// whatever the current chunks hold.
//
// A Recorder belongs to one simulation and is used from one goroutine.
type Recorder struct {
	seq        uint64
	keys       *keyLists // attribute key lists found valid, by identity; nil until an event has one
	hash       *xxh64
	chunkLimit int    // chunkBytes, or less in tests that want many chunks
	forms      []byte // binary forms of events, not yet hashed
	lines      bool   // whether events are rendered as lines (a writer, or hashV1)
	pending    []byte // canonical lines, each with its newline, not yet written (or hashed by hashV1)
	hashV1     hash.Hash
	header     []byte // the header line, until it is written ahead of the first chunk
	out        io.Writer
	err        error // first write error; later writes are skipped
	keep       bool
	events     []Event
	watches    []func(*Event)
	watched    []*Event // what watchers see, by depth of nesting (watch)
	depth      int
}

// chunkBytes is how many bytes of binary forms, or of lines, the Recorder collects before it
// hashes or writes them: small enough to stay in the first-level cache.
const chunkBytes = 16 << 10

// NewRecorder returns a Recorder that writes the header and then every event to w, or only
// hashes (and possibly keeps) them when w is nil.
func NewRecorder(w io.Writer, h Header) *Recorder {
	r := &Recorder{hash: newXXH64(), chunkLimit: chunkBytes, forms: make([]byte, 1, chunkBytes+1024)}
	r.forms[0] = hashVersion
	if w != nil {
		r.out = w
		r.lines = true
		r.pending = make([]byte, 0, chunkBytes+1024)
		if h.Version == 0 {
			h.Version = Version
		}
		r.header = append(appendHeader(nil, h), '\n')
	}
	return r
}

// HashV1 makes the Recorder compute the version 1 trace hash as well, SHA-256 over the
// canonical lines, which HashV1Sum returns: a replay of a run recorded by an older build
// can then be compared with the hash it recorded. It costs what version 1 cost, a line
// rendered and hashed for every event. Call it before the first Emit.
func (r *Recorder) HashV1() {
	if r.seq != 0 {
		panic("trace: HashV1 after the first event")
	}
	r.hashV1 = sha256.New()
	if !r.lines {
		r.lines = true
		r.pending = make([]byte, 0, chunkBytes+1024)
	}
}

// KeepEvents makes the Recorder retain every event in memory, for checkers that judge the run
// when it ends. Call it before the first Emit.
func (r *Recorder) KeepEvents() {
	if r.seq != 0 {
		panic("trace: KeepEvents after the first event")
	}
	r.keep = true
}

// KeepEventsIn is KeepEvents into buf's array: the events are kept from its start, and a new
// array is made only when they outgrow it. A caller that records run after run, such as a
// sweep's worker, passes what Events returned for the last run, once nothing reads it any
// more, and so allocates (and collects) the events' array once rather than every run.
func (r *Recorder) KeepEventsIn(buf []Event) {
	r.KeepEvents()
	r.events = buf[:0]
}

// Watch registers fn to see every event after it is recorded, in registration order. Watchers
// drive event-triggered faults; a watcher may Emit, and the nested event is recorded after the
// one being watched, before later watchers see that one. fn gets the recorded event by
// pointer, because every watcher sees every event: it must neither change the event nor keep
// the pointer after it returns.
func (r *Recorder) Watch(fn func(*Event)) {
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
	r.forms = appendBinary(r.forms, e, true, valuesPlain)
	if len(r.forms) >= r.chunkLimit {
		r.hashChunk()
	}
	if r.lines {
		r.pending = appendLine(r.pending, e, true, valuesPlain)
		r.pending = append(r.pending, '\n')
		if len(r.pending) >= r.chunkLimit {
			r.flushLines()
		}
	}
	if r.keep {
		if len(r.events) == cap(r.events) {
			// append grows a long slice by a quarter at a time, copying it whole each time;
			// a kept trace only grows, so doubling copies each event about once, not four
			// times, and allocates half as much.
			r.events = slices.Grow(r.events, max(len(r.events), 256))
		}
		r.events = append(r.events, *e)
	}
	if len(r.watches) > 0 {
		r.watch(e)
	}
}

// watch shows e to the watchers. They get a copy held by the Recorder, one per depth of
// nesting (a watcher may Emit), rather than e itself: a pointer to e would make every
// emitter's event escape to the heap, and a copy per watcher would copy each event several
// times. A watcher that panics leaves the depth raised, but a panic ends the run.
func (r *Recorder) watch(e *Event) {
	if r.depth == len(r.watched) {
		r.watched = append(r.watched, new(Event))
	}
	seen := r.watched[r.depth]
	*seen = *e
	r.depth++
	for _, fn := range r.watches {
		fn(seen)
	}
	r.depth--
}

// hashChunk hashes the binary forms collected so far.
func (r *Recorder) hashChunk() {
	r.hash.Write(r.forms)
	r.forms = r.forms[:0]
}

// flushLines writes out the pending lines (and hashes them for HashV1).
func (r *Recorder) flushLines() {
	if r.hashV1 != nil {
		r.hashV1.Write(r.pending)
	}
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

// Hash returns the trace hash of the events so far, as HashDigits hex digits.
func (r *Recorder) Hash() string {
	r.hashChunk()
	return formatHash(r.hash.Sum64())
}

// HashV1Sum returns the version 1 trace hash of the events so far, as 64 hex digits, if
// HashV1 asked for it, or "" otherwise.
func (r *Recorder) HashV1Sum() string {
	if r.hashV1 == nil {
		return ""
	}
	r.flushLines()
	var sum [sha256.Size]byte
	return hex.EncodeToString(r.hashV1.Sum(sum[:0]))
}

// Events returns the events kept so far (see KeepEvents). The slice must not be changed.
func (r *Recorder) Events() []Event { return r.events }

// Flush writes out buffered lines and returns the first write error, if any.
func (r *Recorder) Flush() error {
	if r.out == nil {
		return nil
	}
	r.flushLines()
	r.writeHeader() // no event yet: the file still gets its header
	if r.err != nil {
		return fmt.Errorf("trace: writing: %w", r.err)
	}
	return nil
}

// HashEvents returns the trace hash of events, as a Recorder that emitted them would report
// it. Checkers use it to hash a trace read back from a file.
func HashEvents(events []Event) string {
	h := newXXH64()
	forms := make([]byte, 1, chunkBytes+1024)
	forms[0] = hashVersion
	for i := range events {
		e := events[i]
		if !attrsSorted(e.Attrs) {
			e.Attrs = sortedAttrs(e.Attrs)
		}
		forms = appendBinary(forms, &e, false, false)
		if len(forms) >= chunkBytes {
			h.Write(forms)
			forms = forms[:0]
		}
	}
	h.Write(forms)
	return formatHash(h.Sum64())
}

// HashDigits is the length of a trace hash: 16 lower-case hex digits, XXH64 (seed 0) of the
// hashed stream (binary.go). A hash of 64 digits is of version 1 (see HashEventsV1).
const HashDigits = 16

// HashV1Digits is the length of a version 1 trace hash.
const HashV1Digits = 64

func formatHash(sum uint64) string {
	const digits = "0123456789abcdef"
	var b [HashDigits]byte
	for i := HashDigits - 1; i >= 0; i-- {
		b[i] = digits[sum&0xf]
		sum >>= 4
	}
	return string(b[:])
}

// HashVersion returns the version of a trace hash from its form: 2 for 16 lower-case hex
// digits, 1 for 64, and 0 for anything else, which is no trace hash.
func HashVersion(hash string) int {
	for _, c := range []byte(hash) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0
		}
	}
	switch len(hash) {
	case HashDigits:
		return 2
	case HashV1Digits:
		return 1
	}
	return 0
}

// HashEventsAs returns the trace hash of events in the version of recorded (HashVersion),
// so that a hash recorded by an older build is checked under its own version.
func HashEventsAs(events []Event, recorded string) string {
	if HashVersion(recorded) == 1 {
		return HashEventsV1(events)
	}
	return HashEvents(events)
}

// HashEventsV1 returns the version 1 trace hash of events: SHA-256 over their canonical
// lines, each followed by a newline, as 64 hex digits. Builds before hash version 2 recorded
// it in artifacts and references; this build still checks such a hash against a trace.
func HashEventsV1(events []Event) string {
	h := sha256.New()
	line := make([]byte, 0, chunkBytes+1024)
	for i := range events {
		e := events[i]
		line = appendEvent(line, &e)
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
