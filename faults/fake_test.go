package faults

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// fakeClock is a minimal event queue: callbacks run in (time, order of At) order.
type fakeClock struct {
	now   int64
	seq   int
	queue []timer
}

type timer struct {
	atNanos int64
	seq     int
	fn      func()
}

func (c *fakeClock) Now() int64 { return c.now }

func (c *fakeClock) At(tNanos int64, fn func()) {
	if tNanos < c.now {
		panic(fmt.Sprintf("fakeClock: At(%d) in the past (now %d)", tNanos, c.now))
	}
	c.queue = append(c.queue, timer{tNanos, c.seq, fn})
	c.seq++
}

// runUntil runs every callback due at or before tNanos, then sets the clock to tNanos.
func (c *fakeClock) runUntil(tNanos int64) {
	for len(c.queue) > 0 {
		i := 0
		for j, t := range c.queue {
			if cmp.Or(cmp.Compare(t.atNanos, c.queue[i].atNanos), cmp.Compare(t.seq, c.queue[i].seq)) < 0 {
				i = j
			}
		}
		next := c.queue[i]
		if next.atNanos > tNanos {
			break
		}
		c.queue = slices.Delete(c.queue, i, i+1)
		c.now = next.atNanos
		next.fn()
	}
	c.now = tNanos
}

// call is one recorded Target call.
type call struct {
	atNanos int64
	what    string
}

func (c call) String() string { return fmt.Sprintf("t=%d %s", c.atNanos, c.what) }

// fakeTarget records every call with the virtual time it came at. Like a real glue it emits
// task.crash and coordinator.crash when it crashes them, and it tracks liveness so that a test
// can play an engine that checks it after each emit (Target obligation 1).
type fakeTarget struct {
	clock       *fakeClock
	rec         *trace.Recorder
	calls       []call
	deadTasks   map[string]bool
	coordinator bool // crashed
}

func newFakeTarget(clock *fakeClock, rec *trace.Recorder) *fakeTarget {
	return &fakeTarget{clock: clock, rec: rec, deadTasks: map[string]bool{}}
}

func (f *fakeTarget) log(format string, args ...any) {
	f.calls = append(f.calls, call{f.clock.Now(), fmt.Sprintf(format, args...)})
}

func (f *fakeTarget) CrashTask(task string) {
	f.log("CrashTask(%s)", task)
	f.deadTasks[task] = true
	f.rec.Emit(f.clock.Now(), trace.Event{Kind: trace.KindTaskCrash, Task: task})
}
func (f *fakeTarget) CrashCoordinator() {
	f.log("CrashCoordinator()")
	f.coordinator = true
	f.rec.Emit(f.clock.Now(), trace.Event{Kind: trace.KindCoordinatorCrash, Task: Coordinator})
}
func (f *fakeTarget) CrashHost(id EffectID, host string) { f.log("CrashHost(%d, %s)", id, host) }
func (f *fakeTarget) TriggerSavepoint()                  { f.log("TriggerSavepoint()") }
func (f *fakeTarget) StopWithSavepoint(drain bool) {
	f.log("StopWithSavepoint(%v)", drain)
}
func (f *fakeTarget) TriggerCheckpoint()      { f.log("TriggerCheckpoint()") }
func (f *fakeTarget) ResubmitJob(mode string) { f.log("ResubmitJob(%s)", mode) }
func (f *fakeTarget) RescaleJob(op string, p int, mode string) {
	f.log("RescaleJob(%s, %d, %s)", op, p, mode)
}
func (f *fakeTarget) PauseHost(id EffectID, host string) { f.log("PauseHost(%d, %s)", id, host) }
func (f *fakeTarget) DelayRestarts(id EffectID, delayNanos int64) {
	f.log("DelayRestarts(%d, %d)", id, delayNanos)
}
func (f *fakeTarget) DropMessages(id EffectID, l Link, class Message, p float64) {
	f.log("DropMessages(%d, %s, %s, %v)", id, l, class, p)
}
func (f *fakeTarget) BreakChannel(l Link) { f.log("BreakChannel(%s)", l) }
func (f *fakeTarget) DelayLink(id EffectID, l Link, delayNanos int64) {
	f.log("DelayLink(%d, %s, %d)", id, l, delayNanos)
}
func (f *fakeTarget) Partition(id EffectID, l Link, oneWay bool) {
	f.log("Partition(%d, %s, %v)", id, l, oneWay)
}
func (f *fakeTarget) Clog(id EffectID, l Link) { f.log("Clog(%d, %s)", id, l) }
func (f *fakeTarget) DropRecords(id EffectID, l Link, p float64) {
	f.log("DropRecords(%d, %s, %v)", id, l, p)
}
func (f *fakeTarget) DuplicateRecords(id EffectID, l Link, p float64) {
	f.log("DuplicateRecords(%d, %s, %v)", id, l, p)
}
func (f *fakeTarget) ReorderRecords(id EffectID, l Link) { f.log("ReorderRecords(%d, %s)", id, l) }
func (f *fakeTarget) FailWrites(id EffectID, keys Keys, p float64) {
	f.log("FailWrites(%d, %s, %v)", id, keys.Store+keys.Prefix, p)
}
func (f *fakeTarget) SlowWrites(id EffectID, keys Keys, delayNanos int64, probability float64) {
	f.log("SlowWrites(%d, %s, %d, %v)", id, keys.Store+keys.Prefix, delayNanos, probability)
}
func (f *fakeTarget) TearWrites(id EffectID, keys Keys, p float64) {
	f.log("TearWrites(%d, %s, %v)", id, keys.Store+keys.Prefix, p)
}
func (f *fakeTarget) CorruptWrites(id EffectID, keys Keys, p float64) {
	f.log("CorruptWrites(%d, %s, %v)", id, keys.Store+keys.Prefix, p)
}
func (f *fakeTarget) MakeUnavailable(id EffectID, store string) {
	f.log("MakeUnavailable(%d, %s)", id, store)
}
func (f *fakeTarget) LoseAckedWrites(id EffectID, keys Keys, p float64) {
	f.log("LoseAckedWrites(%d, %s, %v)", id, keys.Store+keys.Prefix, p)
}
func (f *fakeTarget) TimeOutTransactions(id EffectID, timeoutNanos int64) {
	f.log("TimeOutTransactions(%d, %d)", id, timeoutNanos)
}
func (f *fakeTarget) FailCommits(id EffectID, p float64) { f.log("FailCommits(%d, %v)", id, p) }
func (f *fakeTarget) FailReads(id EffectID, keys Keys, p float64) {
	f.log("FailReads(%d, %s, %v)", id, keys.Store+keys.Prefix, p)
}
func (f *fakeTarget) FailSinkWrites(id EffectID, p float64, lost bool) {
	f.log("FailSinkWrites(%d, %v, %v)", id, p, lost)
}
func (f *fakeTarget) SkewTimers(id EffectID, host string, skewPPM int64) {
	f.log("SkewTimers(%d, %s, %d)", id, host, skewPPM)
}
func (f *fakeTarget) End(id EffectID) { f.log("End(%d)", id) }
func (f *fakeTarget) Heal()           { f.log("Heal()") }

func (f *fakeTarget) callStrings() []string {
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		out[i] = c.String()
	}
	return out
}

// harness is one injector on a fake clock, a fake target and a recorder that keeps events.
type harness struct {
	clock  *fakeClock
	rec    *trace.Recorder
	target *fakeTarget
	inj    *Injector
}

var testPhases = Phases{Fault: 1000, Heal: 100, Liveness: 500}

func newHarness(t *testing.T, c Config) *harness {
	t.Helper()
	h := &harness{clock: &fakeClock{}, rec: trace.NewRecorder(nil, trace.Header{})}
	h.rec.KeepEvents()
	h.target = newFakeTarget(h.clock, h.rec)
	c.Target, c.Scheduler, c.Recorder = h.target, h.clock, h.rec
	if c.Phases == (Phases{}) {
		c.Phases = testPhases
	}
	inj, err := NewInjector(c)
	if err != nil {
		t.Fatalf("NewInjector: %v", err)
	}
	h.inj = inj
	return h
}

// emit records an engine event at the current time.
func (h *harness) emit(kind, task string, cp uint64) trace.Event {
	return h.rec.Emit(h.clock.Now(), trace.Event{Kind: kind, Task: task, CP: cp})
}

// lines returns the kept events as canonical trace lines.
func (h *harness) lines() []string {
	var out []string
	for _, e := range h.rec.Events() {
		out = append(out, e.String())
	}
	return out
}

// faultEvents returns the fault events that start an effect (not their ends).
func (h *harness) faultEvents() []trace.Event {
	var out []trace.Event
	for _, e := range h.rec.Events() {
		if _, end := e.Attr(AttrEnd); e.Kind == trace.KindFault && !end {
			out = append(out, e)
		}
	}
	return out
}
