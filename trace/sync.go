package trace

import (
	"sync"
	"time"
)

// SyncRecorder is a Recorder that many goroutines may use at once: the trace writer of a live
// engine whose coordinator, tasks and sinks each run on goroutines of their own and read a
// wall clock. It wraps a Recorder and serialises every call with one lock; the Recorder keeps
// doing the numbering, the encoding and the hashing, so a SyncRecorder's file reads back and
// hashes exactly as a Recorder's does.
//
// # What order means
//
// Seq is the order in which emits take the lock. A live engine's trace is therefore one of
// the many interleavings its goroutines could have produced, and two runs of the same job
// give different traces. The checkers accept any of them: they judge causality through the
// protocol's own ids (checkpoint, transaction and record ids), and where one event must come
// before another (a checkpoint.complete before the notify.complete it causes) the host fixes
// that order itself, by emitting an event before it sends the message or channel event that
// carries its effect to another goroutine (package protocol, "Tracing"). Emit returns only
// once the event has its place, so "emit, then send" is all a goroutine has to do; emitting
// after the send leaves the order to the scheduler, which a pause of a millisecond turns
// around.
//
// # Time
//
// T is stamped under the lock too, so that time never goes back in the trace (the
// well-formed property requires it): Emit reads the clock the SyncRecorder was built with,
// and EmitAt takes the caller's time; either way an event whose time is earlier than the
// last event's is recorded at the last event's time (its goroutine read the clock and then
// waited for the lock, or the clock stepped back), and a time before 0 at 0. Times are
// nanoseconds on one clock for the whole trace; Since makes such a clock from the wall
// clock's monotonic reading.
type SyncRecorder struct {
	mu     sync.Mutex
	rec    *Recorder
	clock  func() int64
	last   int64 // T of the last event recorded; never decreases
	closed bool
	err    error // Close's result, returned again by later calls
}

// NewSyncRecorder returns a SyncRecorder that records into rec, stamping events with clock
// (nanoseconds; it may be nil if only EmitAt is used). Set rec up first (KeepEvents, Watch)
// and then use it only through the SyncRecorder. Watchers run under the lock, in the
// goroutine that emits: they may Emit on rec itself, as a Recorder allows, but must not call
// the SyncRecorder, which would wait for itself. It panics if rec has recorded events
// already, since their times are unknown to it and the next event could go back in time.
func NewSyncRecorder(rec *Recorder, clock func() int64) *SyncRecorder {
	if rec.Len() != 0 {
		panic("trace: NewSyncRecorder on a Recorder that has recorded events")
	}
	return &SyncRecorder{rec: rec, clock: clock}
}

// Since returns a clock for NewSyncRecorder: the nanoseconds elapsed since start, read from
// the monotonic clock, so that it never goes back even if the wall clock is set back.
func Since(start time.Time) func() int64 {
	return func() int64 { return int64(time.Since(start)) }
}

// Emit records e at the clock's current time and returns the recorded event, with its Seq
// and T. It panics without a clock, after Close, or where Recorder.Emit panics (an invalid
// or repeated attribute key).
func (s *SyncRecorder) Emit(e Event) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clock == nil {
		panic("trace: SyncRecorder.Emit without a clock; use EmitAt or give NewSyncRecorder one")
	}
	return s.emitLocked(s.clock(), e)
}

// EmitAt records e at time t, or at the last event's time if t is earlier, and returns the
// recorded event. It panics after Close, or where Recorder.Emit panics.
func (s *SyncRecorder) EmitAt(t int64, e Event) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emitLocked(t, e)
}

func (s *SyncRecorder) emitLocked(t int64, e Event) Event {
	if s.closed {
		// An event dropped here would be missing from the trace without a word; the
		// host has a goroutine that outlived the run.
		panic("trace: SyncRecorder: " + e.Kind + " emitted after Close")
	}
	s.last = max(s.last, t)
	return s.rec.Emit(s.last, e)
}

// Now returns the time the next event would be stamped with: the clock's reading, or the
// last event's time if that is later. Use it for the start attribute of an operation that an
// event will end (sink.commit, sink.read), so that start is never after the event. It panics
// without a clock.
func (s *SyncRecorder) Now() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clock == nil {
		panic("trace: SyncRecorder.Now without a clock")
	}
	return max(s.last, s.clock())
}

// Len returns the number of events recorded so far.
func (s *SyncRecorder) Len() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.Len()
}

// Hash returns the trace hash of the events so far (Recorder.Hash).
func (s *SyncRecorder) Hash() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.Hash()
}

// Events returns a copy of the events kept so far (Recorder.KeepEvents): the Recorder's own
// slice grows under the lock, so handing it out would race with the next Emit.
func (s *SyncRecorder) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := s.rec.Events()
	return append([]Event(nil), kept...)
}

// Flush writes out buffered lines and returns the first write error, if any.
func (s *SyncRecorder) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.err
	}
	return s.rec.Flush()
}

// Close flushes the trace and ends it: every later Emit or EmitAt panics. It returns the
// first write error, if any, and so does every later Close or Flush. It does not close the
// Recorder's writer, which belongs to the caller. Call it once every goroutine that emits
// has stopped emitting.
func (s *SyncRecorder) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.err = s.rec.Flush()
	}
	return s.err
}
