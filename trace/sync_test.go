package trace

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSyncRecorderManyGoroutines emits from many goroutines at once, half with the clock and
// half with times of their own that lag behind, while another goroutine reads the
// SyncRecorder's state. Run it with -race. The file must read back as a trace whose seq
// counts up by one and whose time never goes back, with every event once, each goroutine's
// events in the order it emitted them, and the hash the SyncRecorder reported.
func TestSyncRecorderManyGoroutines(t *testing.T) {
	const goroutines, perGoroutine = 8, 300
	var out bytes.Buffer
	rec := NewRecorder(&out, Header{Scenario: "sync", Build: "test"})
	rec.KeepEvents()
	var ticks atomic.Int64
	s := NewSyncRecorder(rec, func() int64 { return ticks.Add(7) })

	var emitters, reader sync.WaitGroup
	stop := make(chan struct{})
	reader.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if i%64 == 0 { // a copy of everything so far: not every time
				if n := uint64(len(s.Events())); n > s.Len() {
					t.Errorf("Events() holds %d events, Len() says fewer", n)
				}
			}
			_ = s.Now()
		}
	})
	for g := range goroutines {
		emitters.Go(func() {
			task := "task-" + strconv.Itoa(g)
			for i := range perGoroutine {
				e := SinkWrite(task, "txn-1", task+"/"+strconv.Itoa(i), strconv.Itoa(i))
				if g%2 == 0 {
					s.Emit(e)
				} else {
					// A time read a while ago: the SyncRecorder must not let it go back.
					s.EmitAt(ticks.Load()-100, e)
				}
			}
		})
	}
	emitters.Wait()
	close(stop)
	reader.Wait()
	hash := s.Hash()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	h, events, err := ReadAll(&out)
	if err != nil {
		t.Fatal(err)
	}
	if h.Scenario != "sync" {
		t.Errorf("header = %+v", h)
	}
	if len(events) != goroutines*perGoroutine {
		t.Fatalf("read %d events, want %d", len(events), goroutines*perGoroutine)
	}
	next := map[string]int{}
	for i, e := range events {
		if e.Seq != uint64(i) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		if i > 0 && e.T < events[i-1].T {
			t.Fatalf("seq %d: time goes back from %d to %d", e.Seq, events[i-1].T, e.T)
		}
		want := e.Task + "/" + strconv.Itoa(next[e.Task])
		if e.RID != want {
			t.Fatalf("seq %d: %s emitted %s, want %s next", e.Seq, e.Task, e.RID, want)
		}
		next[e.Task]++
	}
	if got := HashEvents(events); got != hash {
		t.Errorf("the file hashes to %s, the SyncRecorder said %s", got, hash)
	}
	if kept := s.Events(); len(kept) != len(events) || kept[len(kept)-1].String() != events[len(events)-1].String() {
		t.Errorf("kept events differ from the file")
	}
}

// TestSyncRecorderTimeNeverGoesBack: an event stamped before the last one recorded is
// recorded at the last one's time, and a time before 0 at 0.
func TestSyncRecorderTimeNeverGoesBack(t *testing.T) {
	clock := []int64{50, 20, 80}
	s := NewSyncRecorder(NewRecorder(nil, Header{}), func() int64 {
		now := clock[0]
		clock = clock[1:]
		return now
	})
	var got []int64
	for _, e := range []Event{
		s.EmitAt(-5, TaskFinish("a")),
		s.EmitAt(100, TaskFinish("b")),
		s.EmitAt(60, TaskFinish("c")), // waited for the lock
		s.Emit(TaskFinish("d")),       // the clock says 50
		s.EmitAt(120, TaskFinish("e")),
	} {
		got = append(got, e.T)
	}
	if want := []int64{0, 100, 100, 100, 120}; !slices.Equal(got, want) {
		t.Errorf("times = %v, want %v", got, want)
	}
	if now := s.Now(); now != 120 { // the clock says 20
		t.Errorf("Now() = %d, want the last event's 120", now)
	}
	if e := s.Emit(TaskFinish("f")); e.T != 120 || e.Seq != 5 { // the clock says 80
		t.Errorf("after the clock went back: %v", e)
	}
}

// TestSyncRecorderClose: Close flushes, reports the write error every time it is asked, and
// an emit after it panics rather than losing the event without a word.
func TestSyncRecorderClose(t *testing.T) {
	var out bytes.Buffer
	s := NewSyncRecorder(NewRecorder(&out, Header{}), Since(time.Now()))
	s.Emit(CheckpointTrigger(1, false))
	if out.Len() != 0 {
		t.Fatal("a single event was written before Close; the test expects it buffered")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"kind":"checkpoint.trigger"`) {
		t.Errorf("Close did not flush: %q", out.String())
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	mustPanic(t, "emitted after Close", func() { s.Emit(CheckpointComplete(1)) })
	mustPanic(t, "emitted after Close", func() { s.EmitAt(5, CheckpointComplete(1)) })

	bad := NewSyncRecorder(NewRecorder(&failingWriter{}, Header{}), nil) // failingWriter: trace_test.go
	bad.EmitAt(1, TaskFinish("a"))
	if err := bad.Flush(); err == nil || !strings.Contains(err.Error(), "trace: writing") {
		t.Errorf("Flush = %v, want the write error", err)
	}
	first := bad.Close()
	if first == nil || bad.Close() == nil || bad.Flush() == nil {
		t.Errorf("Close and Flush after it must keep reporting the write error; first Close: %v", first)
	}
}

// TestSyncRecorderMisuse: what would make a wrong trace panics at once.
func TestSyncRecorderMisuse(t *testing.T) {
	noClock := NewSyncRecorder(NewRecorder(nil, Header{}), nil)
	mustPanic(t, "without a clock", func() { noClock.Emit(TaskFinish("a")) })
	mustPanic(t, "without a clock", func() { noClock.Now() })

	used := NewRecorder(nil, Header{})
	used.Emit(10, TaskFinish("a"))
	mustPanic(t, "has recorded events", func() { NewSyncRecorder(used, nil) })
}

// TestSinceNeverGoesBack: the clock of Since counts up from about zero.
func TestSinceNeverGoesBack(t *testing.T) {
	clock := Since(time.Now())
	a := clock()
	b := clock()
	if a < 0 || b < a {
		t.Errorf("Since gave %d then %d", a, b)
	}
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("no panic; want one saying %q", want)
			return
		}
		if msg, _ := r.(string); !strings.Contains(msg, want) {
			t.Errorf("panic %v; want one saying %q", r, want)
		}
	}()
	f()
}
