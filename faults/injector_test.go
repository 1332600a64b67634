package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/trace"
)

type kindCase struct {
	fault Fault
	call  string
}

// everyKind has one fault of each kind and the Target call it must produce (effect id 1).
var everyKind = []kindCase{
	{Fault{Kind: CrashTask, Task: "sum-2"}, "CrashTask(sum-2)"},
	{Fault{Kind: CrashHost, Host: "h1", Window: 50}, "CrashHost(1, h1)"},
	{Fault{Kind: CrashCoordinator}, "CrashCoordinator()"},
	{Fault{Kind: TriggerSavepoint}, "TriggerSavepoint()"},
	{Fault{Kind: TriggerCheckpoint}, "TriggerCheckpoint()"},
	{Fault{Kind: ResubmitClaim}, "ResubmitJob(claim)"},
	{Fault{Kind: ResubmitNoClaim}, "ResubmitJob(no-claim)"},
	{Fault{Kind: ResubmitLegacy}, "ResubmitJob(legacy)"},
	{Fault{Kind: StopWithSavepoint}, "StopWithSavepoint(false)"},
	{Fault{Kind: StopWithSavepointDrain}, "StopWithSavepoint(true)"},
	{Fault{Kind: Rescale, Operator: "sum", Parallelism: 3}, "RescaleJob(sum, 3, claim)"},
	{Fault{Kind: Rescale, Operator: "sum", Parallelism: 3, RestoreMode: "no-claim"}, "RescaleJob(sum, 3, no-claim)"},
	{Fault{Kind: PauseHost, Host: "h2", Window: 50}, "PauseHost(1, h2)"},
	{Fault{Kind: RestartDelay, Delay: 70, Window: 50}, "DelayRestarts(1, 70)"},
	{Fault{Kind: NetDrop, Message: MessageAck, From: "sum-2", To: Coordinator, Probability: 0.5, Window: 50},
		"DropMessages(1, sum-2->coordinator, ack, 0.5)"},
	{Fault{Kind: NetDrop, Message: MessageBarrier, Probability: 0.25, Window: 50},
		"DropMessages(1, ->, barrier, 0.25)"},
	{Fault{Kind: NetBreak, From: "src-0", To: "sum-2"}, "BreakChannel(src-0->sum-2)"},
	{Fault{Kind: NetDelay, From: "src-0", To: "sum-2", Delay: 9, Window: 50}, "DelayLink(1, src-0->sum-2, 9)"},
	{Fault{Kind: NetPartition, From: "src-0", To: "sum-2", OneWay: true, Window: 50}, "Partition(1, src-0->sum-2, true)"},
	{Fault{Kind: NetPartition, From: Coordinator, To: "sum-2", Window: 50}, "Partition(1, coordinator->sum-2, false)"},
	{Fault{Kind: NetClog, From: "src-0", To: "sum-2", Window: 50}, "Clog(1, src-0->sum-2)"},
	{Fault{Kind: DataDrop, From: "src-0", To: "sum-2", Probability: 0.1, Window: 50}, "DropRecords(1, src-0->sum-2, 0.1)"},
	{Fault{Kind: DataDuplicate, Probability: 0.2, Window: 50}, "DuplicateRecords(1, ->, 0.2)"},
	{Fault{Kind: DataReorder, From: "src-0", To: "sum-2", Window: 50}, "ReorderRecords(1, src-0->sum-2)"},
	{Fault{Kind: StorageFail, Store: "checkpoints", Probability: 1, Window: 50}, "FailWrites(1, checkpoints, 1)"},
	{Fault{Kind: StorageSlow, Delay: 30, Window: 50}, "SlowWrites(1, , 30, 0)"},
	{Fault{Kind: StorageSlow, Key: "state/7/", Probability: 0.25, Delay: 30, Window: 50}, "SlowWrites(1, state/7/, 30, 0.25)"},
	{Fault{Kind: StorageTorn, Store: "metadata", Probability: 0.5, Window: 50}, "TearWrites(1, metadata, 0.5)"},
	{Fault{Kind: StorageCorrupt, Probability: 0.5, Window: 50}, "CorruptWrites(1, , 0.5)"},
	{Fault{Kind: StorageUnavailable, Store: "metadata", Window: 50}, "MakeUnavailable(1, metadata)"},
	{Fault{Kind: StorageLost, Probability: 0.01, Window: 50}, "LoseAckedWrites(1, , 0.01)"},
	{Fault{Kind: ExternalTimeout, Timeout: 40, Window: 50}, "TimeOutTransactions(1, 40)"},
	{Fault{Kind: ExternalCommitFail, Probability: 0.3, Window: 50}, "FailCommits(1, 0.3)"},
	{Fault{Kind: ClockSkew, Host: "h1", SkewPPM: -5000, Window: 50}, "SkewTimers(1, h1, -5000)"},
	{Fault{Kind: StorageReadFail, Store: "metadata", Key: "meta/completed.1", Probability: 1, Window: 50},
		"FailReads(1, metadatameta/completed.1, 1)"},
	{Fault{Kind: StorageFail, Key: "state/", Probability: 0.5, Window: 50}, "FailWrites(1, state/, 0.5)"},
	{Fault{Kind: ExternalWriteFail, Probability: 0.5, Window: 50}, "FailSinkWrites(1, 0.5, false)"},
	{Fault{Kind: ExternalWriteLost, Probability: 0.25, Window: 50}, "FailSinkWrites(1, 0.25, true)"},
}

func TestEveryKindIsCoveredByEveryKindTable(t *testing.T) {
	for _, k := range Kinds() {
		if !slices.ContainsFunc(everyKind, func(c kindCase) bool { return c.fault.Kind == k }) {
			t.Errorf("kind %s has no case in everyKind", k)
		}
	}
}

// Each kind calls its Target method with its parameters at the trigger time; a windowed kind
// is undone by End exactly when its window runs out; an instant kind is never ended.
func TestEveryKindTakesEffectAndItsWindowEnds(t *testing.T) {
	for _, c := range everyKind {
		t.Run(c.fault.String(), func(t *testing.T) {
			if err := c.fault.Validate(); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{{At(100), c.fault}}}})
			h.inj.Start()
			h.clock.runUntil(999)
			want := []string{"t=100 " + c.call}
			if c.fault.Kind.Windowed() {
				want = append(want, "t=150 End(1)")
			}
			if diff := cmp.Diff(want, h.target.callStrings()); diff != "" {
				t.Errorf("target calls (-want +got):\n%s", diff)
			}
			if got := h.inj.Active(); len(got) != 0 {
				t.Errorf("active after the window: %v", got)
			}
			faults := h.faultEvents()
			if len(faults) != 1 || faults[0].Fault != string(c.fault.Kind) || faults[0].T != 100 {
				t.Fatalf("fault events: %v", faults)
			}
		})
	}
}

func TestFaultEventCarriesParametersInKeyOrder(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{At(10), Fault{Kind: CrashCoordinator}},
		{At(20), Fault{Kind: NetDrop, Message: MessageAck, From: "sum-2", To: Coordinator, Probability: 0.5, Window: 30}},
	}}})
	h.inj.Start()
	h.clock.runUntil(999)
	want := []string{
		`{"seq":0,"t":0,"kind":"phase","phase":"fault"}`,
		`{"seq":1,"t":10,"kind":"fault","task":"coordinator","fault":"crash.coordinator","entry":"0","id":"1"}`,
		`{"seq":2,"t":10,"kind":"coordinator.crash","task":"coordinator"}`,
		`{"seq":3,"t":20,"kind":"fault","from":"sum-2","to":"coordinator","fault":"net.drop","entry":"1","id":"2","message":"ack","probability":"0.5","window_ns":"30"}`,
		`{"seq":4,"t":50,"kind":"fault","from":"sum-2","to":"coordinator","fault":"net.drop","end":"true","entry":"1","id":"2","message":"ack","probability":"0.5","window_ns":"30"}`,
	}
	if diff := cmp.Diff(want, h.lines()); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// Heal ends every active effect in id order, then calls Target.Heal; nothing is injected
// after it, and window ends that were due later do nothing. The phases follow at their times.
func TestHealUndoesEverythingAndRefusesNewFaults(t *testing.T) {
	var phases []Phase
	h := newHarness(t, Config{
		Schedule: Schedule{Entries: []Entry{
			{At(100), Fault{Kind: NetPartition, From: "a", To: "b", Window: 5000}},
			{At(200), Fault{Kind: PauseHost, Host: "h1", Window: 5000}},
			{At(300), Fault{Kind: StorageUnavailable, Window: 100}}, // ends before heal
			{At(400), Fault{Kind: ClockSkew, Host: "h2", SkewPPM: 10, Window: 5000}},
			{At(1500), Fault{Kind: CrashTask, Task: "a"}},                               // after heal: never
			{Nth(1, Match{Kind: trace.KindSnapshotAck}), Fault{Kind: CrashCoordinator}}, // after heal: never
		}},
		OnPhase: func(p Phase) { phases = append(phases, p) },
	})
	h.inj.Start()
	h.clock.runUntil(999)
	if got, want := h.inj.Active(), []EffectID{1, 2, 4}; !slices.Equal(got, want) {
		t.Fatalf("active before heal = %v, want %v", got, want)
	}
	h.clock.runUntil(1000)
	h.emit(trace.KindSnapshotAck, "a", 1)
	h.clock.runUntil(10_000)

	want := []string{
		"t=100 Partition(1, a->b, false)",
		"t=200 PauseHost(2, h1)",
		"t=300 MakeUnavailable(3, )",
		"t=400 SkewTimers(4, h2, 10)",
		"t=400 End(3)",
		"t=1000 End(1)",
		"t=1000 End(2)",
		"t=1000 End(4)",
		"t=1000 Heal()",
	}
	if diff := cmp.Diff(want, h.target.callStrings()); diff != "" {
		t.Errorf("target calls (-want +got):\n%s", diff)
	}
	if got := h.inj.Injected(); got != 4 {
		t.Errorf("Injected() = %d, want 4", got)
	}
	if want := []Phase{PhaseFault, PhaseHeal, PhaseLiveness, PhaseEnd}; !slices.Equal(phases, want) {
		t.Errorf("phases = %v, want %v", phases, want)
	}
	var phaseLines []string
	for _, e := range h.rec.Events() {
		if e.Kind == trace.KindPhase {
			v, _ := e.Attr(trace.AttrPhase)
			phaseLines = append(phaseLines, fmt.Sprintf("%s@%d", v, e.T))
		}
	}
	if want := []string{"fault@0", "heal@1000", "liveness@1100", "end@1600"}; !slices.Equal(phaseLines, want) {
		t.Errorf("phase events = %v, want %v", phaseLines, want)
	}
}

// An early Heal shortens the fault phase; the heal Start scheduled later is then a no-op.
func TestEarlyHeal(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{At(10), Fault{Kind: NetClog, From: "a", To: "b", Window: 900}},
	}}})
	h.inj.Start()
	h.clock.runUntil(20)
	h.inj.Heal()
	h.clock.runUntil(10_000)
	want := []string{"t=10 Clog(1, a->b)", "t=20 End(1)", "t=20 Heal()"}
	if diff := cmp.Diff(want, h.target.callStrings()); diff != "" {
		t.Errorf("target calls (-want +got):\n%s", diff)
	}
	if h.inj.Phase() != PhaseEnd {
		t.Errorf("phase = %s, want end", h.inj.Phase())
	}
}

// "Crash sum-2 at its 3rd snapshot.ack": not at the 2nd or 4th, not at another task's ack,
// and the fault event (then the crash it causes) comes right after the triggering event.
func TestNthTriggerFiresAtExactlyTheMatchingEvent(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{Nth(3, Match{Kind: trace.KindSnapshotAck, Task: "sum-2"}), Fault{Kind: CrashTask, Task: "sum-2"}},
	}}})
	h.inj.Start()
	var acks []trace.Event // sum-2's acks
	for cp := uint64(1); cp <= 5; cp++ {
		h.clock.runUntil(int64(cp) * 10)
		h.emit(trace.KindSnapshotAck, "sum-1", cp)
		h.emit(trace.KindSnapshotTaken, "sum-2", cp)
		acks = append(acks, h.emit(trace.KindSnapshotAck, "sum-2", cp))
		h.emit(trace.KindSnapshotAck, "sum-3", cp)
	}
	faults := h.faultEvents()
	if len(faults) != 1 {
		t.Fatalf("fault events: %v", faults)
	}
	third := acks[2]
	if faults[0].Seq != third.Seq+1 || faults[0].T != third.T {
		t.Errorf("fault %v does not follow the 3rd ack %v", faults[0], third)
	}
	events := h.rec.Events()
	if crash := events[third.Seq+2]; crash.Kind != trace.KindTaskCrash || crash.Task != "sum-2" {
		t.Errorf("event after the fault = %v, want task.crash of sum-2", crash)
	}
	if want := []string{"t=30 CrashTask(sum-2)"}; !slices.Equal(h.target.callStrings(), want) {
		t.Errorf("target calls = %v, want %v", h.target.callStrings(), want)
	}
}

// The match on checkpoint id: nth counts only events of that checkpoint.
func TestNthTriggerMatchesCheckpoint(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{Nth(2, Match{Kind: trace.KindBarrierRecv, CP: 7}), Fault{Kind: CrashTask, Task: "x"}},
	}}})
	h.inj.Start()
	h.emit(trace.KindBarrierRecv, "a", 7)
	h.emit(trace.KindBarrierRecv, "b", 6)
	h.emit(trace.KindBarrierRecv, "b", 8)
	if h.inj.Injected() != 0 {
		t.Fatal("fired before the 2nd barrier.recv of checkpoint 7")
	}
	second := h.emit(trace.KindBarrierRecv, "b", 7)
	if f := h.faultEvents(); len(f) != 1 || f[0].Seq != second.Seq+1 {
		t.Fatalf("fault events %v, want one right after %v", f, second)
	}
}

// An event trigger with from_ns counts only the events from that time on.
func TestEventTriggerCountsFromItsTime(t *testing.T) {
	tr := Nth(1, Match{Kind: trace.KindCheckpointComplete})
	tr.After = 25
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{{tr, Fault{Kind: CrashCoordinator}}}}})
	h.inj.Start()
	h.clock.runUntil(10)
	h.emit(trace.KindCheckpointComplete, "coordinator", 1)
	h.clock.runUntil(20)
	h.emit(trace.KindCheckpointComplete, "coordinator", 2)
	if h.inj.Injected() != 0 {
		t.Fatal("fired before its from_ns")
	}
	h.clock.runUntil(30)
	third := h.emit(trace.KindCheckpointComplete, "coordinator", 3)
	if f := h.faultEvents(); len(f) != 1 || f[0].Seq != third.Seq+1 {
		t.Fatalf("fault events %v, want one right after %v", f, third)
	}
}

// "Crash the coordinator after checkpoint.complete and before any notify": the engine below
// emits checkpoint.complete and then, in the same step, sends notifications only while its
// coordinator is alive, as Target obligation 1 asks. None goes out for checkpoint 2.
func TestCoordinatorCrashBetweenCompleteAndNotify(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{Nth(2, Match{Kind: trace.KindCheckpointComplete, Task: Coordinator}), Fault{Kind: CrashCoordinator}},
	}}})
	h.inj.Start()
	completeCheckpoint := func(cp uint64) {
		h.emit(trace.KindCheckpointComplete, Coordinator, cp)
		for _, task := range []string{"src-0", "sum-1"} {
			if h.target.coordinator {
				return // the incarnation is dead: its outputs are dropped
			}
			h.emit(trace.KindNotifyComplete, task, cp)
		}
	}
	completeCheckpoint(1)
	completeCheckpoint(2)
	var kinds []string
	for _, e := range h.rec.Events()[1:] {
		kinds = append(kinds, fmt.Sprintf("%s/%d", e.Kind, e.CP))
	}
	want := []string{
		"checkpoint.complete/1", "notify.complete/1", "notify.complete/1",
		"checkpoint.complete/2", "fault/0", "coordinator.crash/0",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// Events before Start and after heal do not count toward nth triggers.
func TestEventTriggersCountOnlyInTheFaultPhase(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{Nth(2, Match{Kind: trace.KindSnapshotAck}), Fault{Kind: CrashTask, Task: "a"}},
	}}})
	h.emit(trace.KindSnapshotAck, "a", 1) // before Start
	h.inj.Start()
	h.emit(trace.KindSnapshotAck, "a", 2)
	if h.inj.Injected() != 0 {
		t.Fatal("an event before Start was counted")
	}
	h.emit(trace.KindSnapshotAck, "a", 3)
	if h.inj.Injected() != 1 {
		t.Fatal("the 2nd ack in the fault phase did not fire")
	}
}

// chanceRun replays the same 200 events through a chance trigger and returns the sequence
// numbers of the fault events.
func chanceRun(t *testing.T, seed uint64, max int) []uint64 {
	h := newHarness(t, Config{
		Schedule: Schedule{Entries: []Entry{
			{Chance(0.1, max, Match{Kind: trace.KindBarrierRecv, Task: "sum-2"}), Fault{Kind: CrashTask, Task: "sum-2"}},
		}},
		Rand: rand.New(rand.NewPCG(seed, 1)),
	})
	h.inj.Start()
	for i := range 200 {
		h.emit(trace.KindBarrierRecv, []string{"sum-1", "sum-2"}[i%2], uint64(i))
	}
	var seqs []uint64
	for _, e := range h.faultEvents() {
		if prev := h.rec.Events()[e.Seq-1]; prev.Kind != trace.KindBarrierRecv || prev.Task != "sum-2" {
			t.Fatalf("fault %v follows %v, not a barrier.recv of sum-2", e, prev)
		}
		seqs = append(seqs, e.Seq)
	}
	return seqs
}

func TestChanceTriggerIsDeterministicPerSeed(t *testing.T) {
	distinct := map[string]bool{}
	for seed := range uint64(8) {
		a, b := chanceRun(t, seed, 100), chanceRun(t, seed, 100)
		if !slices.Equal(a, b) {
			t.Fatalf("seed %d: %v then %v", seed, a, b)
		}
		// 100 matching events at p=0.1: about 10 fires; 0 or more than 30 would take odds
		// below 1e-4 per seed (and the seeds are fixed, so this never flakes).
		if len(a) == 0 || len(a) > 30 {
			t.Errorf("seed %d: fired %d times at p=0.1 over 100 events", seed, len(a))
		}
		distinct[fmt.Sprint(a)] = true
	}
	if len(distinct) < 6 {
		t.Errorf("8 seeds gave only %d distinct firing patterns", len(distinct))
	}
	if got := chanceRun(t, 3, 2); len(got) != 2 {
		t.Errorf("max=2 fired %d times", len(got))
	}
}

func TestMaxFaultsBoundsInjection(t *testing.T) {
	var entries []Entry
	for i := range 5 {
		entries = append(entries, Entry{At(Duration(10 * i)), Fault{Kind: CrashTask, Task: "a"}})
	}
	h := newHarness(t, Config{Schedule: Schedule{Entries: entries}, MaxFaults: 3})
	h.inj.Start()
	h.clock.runUntil(999)
	if h.inj.Injected() != 3 || h.inj.Skipped() != 2 || len(h.target.calls) != 3 {
		t.Errorf("injected %d, skipped %d, calls %v", h.inj.Injected(), h.inj.Skipped(), h.target.calls)
	}
}

// Entries due at the same time fire in schedule order.
func TestSameTimeEntriesFireInScheduleOrder(t *testing.T) {
	h := newHarness(t, Config{Schedule: Schedule{Entries: []Entry{
		{At(5), Fault{Kind: CrashTask, Task: "b"}},
		{At(5), Fault{Kind: CrashTask, Task: "a"}},
		{At(5), Fault{Kind: CrashTask, Task: "c"}},
	}}})
	h.inj.Start()
	h.clock.runUntil(999)
	want := []string{"t=5 CrashTask(b)", "t=5 CrashTask(a)", "t=5 CrashTask(c)"}
	if diff := cmp.Diff(want, h.target.callStrings()); diff != "" {
		t.Errorf("target calls (-want +got):\n%s", diff)
	}
}

func TestNewInjectorRejectsBadConfig(t *testing.T) {
	rec := trace.NewRecorder(nil, trace.Header{})
	clock := &fakeClock{}
	target := newFakeTarget(clock, rec)
	good := Config{Phases: testPhases, Target: target, Scheduler: clock, Recorder: rec}
	chance := Schedule{Entries: []Entry{{Chance(0.5, 1, Match{}), Fault{Kind: CrashCoordinator}}}}
	for name, c := range map[string]Config{
		"no target":       {Phases: testPhases, Scheduler: clock, Recorder: rec},
		"no fault phase":  {Target: target, Scheduler: clock, Recorder: rec, Phases: Phases{Liveness: 1}},
		"negative max":    {Phases: testPhases, Target: target, Scheduler: clock, Recorder: rec, MaxFaults: -1},
		"chance, no rand": {Phases: testPhases, Target: target, Scheduler: clock, Recorder: rec, Schedule: chance},
		"invalid schedule": {Phases: testPhases, Target: target, Scheduler: clock, Recorder: rec,
			Schedule: Schedule{Entries: []Entry{{At(1), Fault{Kind: "nope"}}}}},
	} {
		if _, err := NewInjector(c); err == nil || !strings.HasPrefix(err.Error(), "faults: ") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := NewInjector(good); err != nil {
		t.Errorf("good config: %v", err)
	}
}
