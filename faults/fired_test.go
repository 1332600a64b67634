package faults

import (
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// Fired counts injections per entry, and Unfired names the entries that never fired: an nth
// trigger whose count is never reached, a time trigger after heal, and a trigger that came
// due once MaxFaults faults had been injected. A chance trigger that fired twice and a
// windowed fault that heal cut short both fired.
func TestUnfiredListsEveryEntryThatNeverFired(t *testing.T) {
	h := newHarness(t, Config{MaxFaults: 3, Schedule: Schedule{Entries: []Entry{
		{At(10), Fault{Kind: CrashTask, Task: "a"}},
		{Nth(500, Match{Kind: trace.KindSnapshotAck}), Fault{Kind: CrashTask, Task: "a"}},
		{At(Duration(testPhases.Fault.Nanos() + 1)), Fault{Kind: CrashCoordinator}},
		{Nth(1, Match{Kind: trace.KindSnapshotAck}), Fault{Kind: PauseHost, Host: "h1", Window: 5000}},
		{Nth(2, Match{Kind: trace.KindSnapshotAck}), Fault{Kind: CrashTask, Task: "b"}},
		{Nth(3, Match{Kind: trace.KindSnapshotAck}), Fault{Kind: CrashTask, Task: "c"}},
	}}})
	h.inj.Start()
	h.clock.runUntil(10)
	for range 3 {
		h.emit(trace.KindSnapshotAck, "a", 1)
	}
	h.clock.runUntil(10_000)
	if got, want := h.inj.Fired(), []int{1, 0, 0, 1, 1, 0}; !slices.Equal(got, want) {
		t.Errorf("Fired() = %v, want %v", got, want)
	}
	if got, want := h.inj.Unfired(), []int{1, 2, 5}; !slices.Equal(got, want) {
		t.Errorf("Unfired() = %v, want %v", got, want)
	}
	if h.inj.Skipped() != 1 {
		t.Errorf("Skipped() = %d, want 1 (entry 5, past MaxFaults)", h.inj.Skipped())
	}
}

// A time trigger at the fault phase's last instant fires before heal.
func TestTimeTriggerAtTheEndOfTheFaultPhaseFires(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{At(testPhases.Fault), Fault{Kind: CrashTask, Task: "a"}},
	}}})
	h.inj.Start()
	h.clock.runUntil(10_000)
	if got := h.inj.Unfired(); len(got) != 0 {
		t.Errorf("Unfired() = %v, want none", got)
	}
	sys := wordCount
	sys.FaultPhase = testPhases.Fault
	if err := sys.CheckTimes(Schedule{Entries: []Entry{{At(testPhases.Fault), Fault{Kind: CrashCoordinator}}}}); err != nil {
		t.Errorf("CheckTimes refused a trigger that fires: %v", err)
	}
}

// CheckSchedule refuses a time trigger after the fault phase, naming the entry and why.
func TestCheckScheduleRefusesATimeTriggerAfterTheFaultPhase(t *testing.T) {
	sched := Schedule{Entries: []Entry{
		{At(1e9), Fault{Kind: CrashCoordinator}},
		{At((wordCount.FaultPhase + 1)), Fault{Kind: CrashTask, Task: "sum-0"}},
	}}
	err := wordCount.CheckSchedule(sched)
	want := "entries[1].trigger.at_ns: 10.000000001s is after the fault phase, which ends at 10s: faults are injected only in the fault phase, so this crash.task would never fire"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if err := wordCount.CheckNames(sched); err != nil {
		t.Errorf("CheckNames judged a time: %v", err)
	}
}
