package simtarget_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
)

// oneOfEach has a fault of every kind, each valid for the rig.
var oneOfEach = map[faults.Kind]faults.Fault{
	faults.CrashTask:              {Kind: faults.CrashTask, Task: "sum"},
	faults.CrashHost:              {Kind: faults.CrashHost, Host: "h-sum"},
	faults.CrashCoordinator:       {Kind: faults.CrashCoordinator},
	faults.TriggerSavepoint:       {Kind: faults.TriggerSavepoint},
	faults.TriggerCheckpoint:      {Kind: faults.TriggerCheckpoint},
	faults.ResubmitClaim:          {Kind: faults.ResubmitClaim},
	faults.ResubmitNoClaim:        {Kind: faults.ResubmitNoClaim},
	faults.ResubmitLegacy:         {Kind: faults.ResubmitLegacy},
	faults.StopWithSavepoint:      {Kind: faults.StopWithSavepoint},
	faults.StopWithSavepointDrain: {Kind: faults.StopWithSavepointDrain},
	faults.Rescale:                {Kind: faults.Rescale, Operator: "sum", Parallelism: 3},
	faults.PauseHost:              {Kind: faults.PauseHost, Host: "h-src"},
	faults.RestartDelay:           {Kind: faults.RestartDelay, Delay: 5},
	faults.NetDrop:                {Kind: faults.NetDrop, Message: faults.MessageNotify, Probability: 0.5},
	faults.NetBreak:               {Kind: faults.NetBreak, From: "src", To: "sum"},
	faults.NetDelay:               {Kind: faults.NetDelay, From: "sum", To: "src", Delay: 5},
	faults.NetPartition:           {Kind: faults.NetPartition, From: faults.Coordinator, To: "src"},
	faults.NetClog:                {Kind: faults.NetClog, From: "src", To: "sum"},
	faults.DataDrop:               {Kind: faults.DataDrop, Probability: 0.5},
	faults.DataDuplicate:          {Kind: faults.DataDuplicate, Probability: 0.5},
	faults.DataReorder:            {Kind: faults.DataReorder},
	faults.StorageFail:            {Kind: faults.StorageFail, Probability: 0.5},
	faults.StorageSlow:            {Kind: faults.StorageSlow, Store: "meta", Delay: 5},
	faults.StorageTorn:            {Kind: faults.StorageTorn, Probability: 0.5},
	faults.StorageCorrupt:         {Kind: faults.StorageCorrupt, Store: "disk", Probability: 0.5},
	faults.StorageUnavailable:     {Kind: faults.StorageUnavailable},
	faults.StorageLost:            {Kind: faults.StorageLost, Probability: 0.5},
	faults.ExternalTimeout:        {Kind: faults.ExternalTimeout, Timeout: 5},
	faults.ExternalCommitFail:     {Kind: faults.ExternalCommitFail, Probability: 0.5},
	faults.ClockSkew:              {Kind: faults.ClockSkew, Host: "h-coord", SkewPPM: 100},
	faults.StorageReadFail:        {Kind: faults.StorageReadFail, Key: "k", Probability: 0.5},
	faults.ExternalWriteFail:      {Kind: faults.ExternalWriteFail, Probability: 0.5},
	faults.ExternalWriteLost:      {Kind: faults.ExternalWriteLost, Probability: 0.25},
}

// Every kind goes through the composite Target: the engine half gets exactly the
// engine-level calls and the End of its own effects, the World takes and undoes the rest,
// and Heal reaches both halves, kernel first.
func TestTargetSplitsEveryKind(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	var entries []faults.Entry
	for i, k := range faults.Kinds() {
		f, ok := oneOfEach[k]
		if !ok {
			t.Fatalf("no fault of kind %s in oneOfEach", k)
		}
		if k.Windowed() {
			f.Window = faults.Duration(nanos(10))
		}
		entries = append(entries, faults.Entry{Trigger: faults.At(faults.Duration(nanos(1 + float64(i)))), Fault: f})
	}
	r.inject(faults.Phases{Fault: faults.Duration(nanos(32)), Liveness: faults.Duration(nanos(10))}, entries...)
	r.run(29.5)
	// The effects started after 19.5ms are still in force: heal ends them.
	if r.world.Active() == 0 {
		t.Fatal("no kernel-level effect in force before heal")
	}
	r.run(100)
	check(t, "engine calls", []string{
		"CrashTask(sum)",
		"CrashCoordinator()",
		"TimeOutTransactions(20, 5)",
		"FailCommits(21, 0.5)",
		"FailSinkWrites(24, 0.5, false)",
		"FailSinkWrites(25, 0.25, true)",
		"TriggerSavepoint()",
		"TriggerCheckpoint()",
		"ResubmitJob(claim)",
		"ResubmitJob(no-claim)",
		"ResubmitJob(legacy)",
		"End(20)",
		"StopWithSavepoint(false)",
		"End(21)",
		"StopWithSavepoint(true)",
		"End(24)",
		"End(25)",
		"Heal()",
	}, r.engine.calls)
	if r.world.Active() != 0 {
		t.Errorf("%d effects still active after heal", r.world.Active())
	}
}

// The scheduler runs callbacks at their instants, and those due at one instant in the order
// At was called, after what was already queued there.
func TestSchedulerRunsSameInstantCallbacksInOrder(t *testing.T) {
	k := sim.New(sim.Config{})
	s := simtarget.Scheduler{Kernel: k}
	var got []string
	k.At(sim.Time(20), func() { got = append(got, "kernel timer queued first") })
	s.At(20, func() {
		got = append(got, "a")
		s.At(s.Now(), func() { got = append(got, "d, queued at 20 for 20") })
	})
	s.At(10, func() { got = append(got, "at 10") })
	s.At(20, func() { got = append(got, "b") })
	s.At(20, func() { got = append(got, "c") })
	k.Run()
	check(t, "order", []string{"at 10", "kernel timer queued first", "a", "b", "c", "d, queued at 20 for 20"}, got)
	if s.Now() != 20 {
		t.Errorf("Now() = %d, want 20", s.Now())
	}
	defer func() {
		if recover() == nil {
			t.Error("At in the past did not panic")
		}
	}()
	s.At(5, func() {})
}

func TestNewWorldRejectsBadConfigs(t *testing.T) {
	k := sim.New(sim.Config{})
	a := k.AddHost("a", func(*sim.Host) {})
	b := k.AddHost("b", func(*sim.Host) {})
	ab := k.Connect("a->b", a, b, sim.LinkConfig{})
	other := sim.New(sim.Config{})
	foreign := other.AddHost("x", func(*sim.Host) {})
	foreignLink := other.Connect("x->x", foreign, foreign, sim.LinkConfig{})
	route := simtarget.Route{Link: faults.Link{From: "a", To: "b"}, Sim: ab}
	for _, c := range []struct {
		config simtarget.Config
		want   string
	}{
		{simtarget.Config{Hosts: []*sim.Host{a, a}}, "listed twice"},
		{simtarget.Config{Hosts: []*sim.Host{foreign}}, "not a host of this kernel"},
		{simtarget.Config{Routes: []simtarget.Route{route}}, "Classify"},
		{simtarget.Config{Routes: []simtarget.Route{{Link: faults.Link{From: "a"}, Sim: ab}}, Classify: classify}, "two different endpoints"},
		{simtarget.Config{Routes: []simtarget.Route{{Link: faults.Link{From: "a", To: "b"}, Sim: foreignLink}}, Classify: classify}, "no sim link of this kernel"},
		{simtarget.Config{PauseQuantum: -time.Millisecond}, "negative"},
	} {
		_, err := simtarget.NewWorld(k, c.config)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "simtarget: ") {
			t.Errorf("NewWorld(%+v) = %v, want an error about %q", c.config, err, c.want)
		}
	}
	if _, err := simtarget.NewWorld(nil, simtarget.Config{}); err == nil {
		t.Error("NewWorld without a kernel succeeded")
	}
}

func TestCheckSystem(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	good := faults.System{
		Tasks:      []string{"src", "sum"},
		Hosts:      []string{"h-src", "h-sum", "h-coord"},
		Channels:   []faults.Link{srcSum},
		Stores:     []string{"disk", "meta"},
		FaultPhase: faults.Duration(nanos(100)),
	}
	if err := r.world.CheckSystem(good); err != nil {
		t.Fatalf("CheckSystem(rig) = %v", err)
	}
	for _, c := range []struct {
		change func(*faults.System)
		want   string
	}{
		{func(s *faults.System) { s.Hosts = append(s.Hosts, "h-gone") }, `host "h-gone"`},
		{func(s *faults.System) { s.Stores = append(s.Stores, "tape") }, `store "tape"`},
		{func(s *faults.System) { s.Channels = append(s.Channels, faults.Link{From: "src", To: "sink"}) }, "src->sink has no route"},
	} {
		sys := good
		sys.Hosts, sys.Stores, sys.Channels = append([]string(nil), good.Hosts...), append([]string(nil), good.Stores...), append([]faults.Link(nil), good.Channels...)
		c.change(&sys)
		if err := r.world.CheckSystem(sys); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckSystem = %v, want an error about %s", err, c.want)
		}
	}
}

// Names the world does not know are a bug in the glue: the first fault that uses one panics
// with the name, rather than hitting nothing.
func TestUnknownHostOrStorePanics(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"host", func() { r.world.CrashHost(1, "h-gone") }},
		{"store", func() { r.world.FailWrites(2, faults.Keys{Store: "tape"}, 1) }},
	} {
		name, f := c.name, c.f
		func() {
			defer func() {
				if msg, _ := recover().(string); !strings.Contains(msg, "world does not know") {
					t.Errorf("unknown %s: recovered %q", name, msg)
				}
			}()
			f()
		}()
	}
}
