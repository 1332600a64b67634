package trace

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
)

// Recorder numbers, hashes and writes events as they happen. It keeps nothing per event
// unless asked to (KeepEvents), so a long run streams its trace in constant memory.
//
// A Recorder belongs to one simulation and is used from one goroutine.
type Recorder struct {
	seq     uint64
	hash    hash.Hash
	line    []byte // reused for every event
	out     *bufio.Writer
	err     error // first write error; later writes are skipped
	keep    bool
	events  []Event
	watches []func(Event)
}

// NewRecorder returns a Recorder that writes the header and then every event to w, or only
// hashes (and possibly keeps) them when w is nil.
func NewRecorder(w io.Writer, h Header) *Recorder {
	r := &Recorder{hash: sha256.New()}
	if w != nil {
		r.out = bufio.NewWriterSize(w, 64<<10)
		if h.Version == 0 {
			h.Version = Version
		}
		r.line = appendHeader(r.line[:0], h)
		r.write()
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
// event. It panics if an attribute key is invalid, since that is a bug in the emitter.
func (r *Recorder) Emit(t int64, e Event) Event {
	for _, a := range e.Attrs {
		if !validAttrKey(a.Key) {
			panic(fmt.Sprintf("trace: invalid attribute key %q on %s", a.Key, e.Kind))
		}
	}
	e.Seq = r.seq
	e.T = t
	r.seq++
	r.line = appendEvent(r.line[:0], &e)
	r.line = append(r.line, '\n')
	r.hash.Write(r.line)
	if r.out != nil {
		r.write()
	}
	if r.keep {
		r.events = append(r.events, e)
	}
	for _, fn := range r.watches {
		fn(e)
	}
	return e
}

func (r *Recorder) write() {
	if r.err != nil {
		return
	}
	if r.line[len(r.line)-1] != '\n' {
		r.line = append(r.line, '\n')
	}
	_, r.err = r.out.Write(r.line)
}

// Len returns the number of events recorded so far.
func (r *Recorder) Len() uint64 { return r.seq }

// Hash returns the trace hash of the events so far, as 64 hex digits.
func (r *Recorder) Hash() string {
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
	if r.err != nil {
		return fmt.Errorf("trace: writing: %w", r.err)
	}
	if err := r.out.Flush(); err != nil {
		return fmt.Errorf("trace: writing: %w", err)
	}
	return nil
}

// HashEvents returns the trace hash of events, as a Recorder that emitted them would report
// it. Checkers use it to hash a trace read back from a file.
func HashEvents(events []Event) string {
	h := sha256.New()
	var line []byte
	for i := range events {
		line = appendEvent(line[:0], &events[i])
		line = append(line, '\n')
		h.Write(line)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0]))
}
