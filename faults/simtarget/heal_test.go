package simtarget_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
)

// Every kernel-level kind at once, with windows far beyond the fault phase: at heal the
// injector ends them all and Heal repairs what is left (the broken channel, the crashed
// host), and afterwards the world behaves as if no fault had ever been there.
func TestHealUndoesEverything(t *testing.T) {
	r := newRig(t, rigOptions{seed: 5})
	long := nanos(1000)
	var entries []faults.Entry
	for _, f := range []faults.Fault{
		{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum", Window: faults.Duration(long)},
		{Kind: faults.NetPartition, From: "src", To: faults.Coordinator, OneWay: true, Window: faults.Duration(long)},
		{Kind: faults.NetClog, From: "src", To: "sum", Window: faults.Duration(long)},
		{Kind: faults.NetDelay, From: "sum", To: "src", Delay: faults.Duration(nanos(7)), Window: faults.Duration(long)},
		{Kind: faults.NetDrop, Message: faults.MessageBarrier, Probability: 1, Window: faults.Duration(long)},
		{Kind: faults.NetDrop, Message: faults.MessageTrigger, Probability: 1, Window: faults.Duration(long)},
		{Kind: faults.DataDrop, Probability: 1, Window: faults.Duration(long)},
		{Kind: faults.DataDuplicate, Probability: 1, Window: faults.Duration(long)},
		{Kind: faults.DataReorder, Window: faults.Duration(long)},
		{Kind: faults.StorageFail, Probability: 1, Window: faults.Duration(long)},
		{Kind: faults.StorageSlow, Delay: faults.Duration(nanos(9)), Window: faults.Duration(long)},
		{Kind: faults.StorageUnavailable, Store: "meta", Window: faults.Duration(long)},
		{Kind: faults.StorageLost, Probability: 1, Window: faults.Duration(long)},
		{Kind: faults.ClockSkew, Host: "h-src", SkewPPM: 700_000, Window: faults.Duration(long)},
		{Kind: faults.RestartDelay, Delay: faults.Duration(long), Window: faults.Duration(long)},
		{Kind: faults.CrashHost, Host: "h-coord", Window: faults.Duration(long)},
		{Kind: faults.PauseHost, Host: "h-sum", Window: faults.Duration(long)},
		{Kind: faults.NetBreak, From: "sum", To: "src"},
	} {
		entries = append(entries, faults.Entry{Trigger: faults.At(faults.Duration(nanos(5))), Fault: f})
	}
	inj := r.inject(faults.Phases{Fault: faults.Duration(nanos(20)), Liveness: faults.Duration(nanos(100))}, entries...)
	r.run(10)
	if r.world.Active() != len(entries)-1 {
		t.Fatalf("%d effects active, want %d", r.world.Active(), len(entries)-1)
	}
	r.run(25)                                                         // heal at 20ms; the pause runs out within a quantum
	if inj.Phase() != faults.PhaseLiveness || r.world.Active() != 0 { // no heal time: liveness at once
		t.Fatalf("after heal: phase %v, %d effects active", inj.Phase(), r.world.Active())
	}
	for _, l := range rigLinks {
		sl := r.links[l]
		if sl.Partitioned() || sl.Clogged() || sl.Broken() {
			t.Errorf("%s after heal: partitioned %v, clogged %v, broken %v", l, sl.Partitioned(), sl.Clogged(), sl.Broken())
		}
	}
	for _, name := range []string{"h-src", "h-sum", "h-coord"} {
		h := r.hosts[name]
		if !h.Up() || h.Paused() {
			t.Errorf("%s after heal: up %v, paused %v", name, h.Up(), h.Paused())
		}
	}

	// Fresh traffic from 30ms on: every message arrives once, in order, exactly 1ms later.
	start := len(r.got)
	for _, l := range rigLinks {
		for _, class := range []simtarget.Class{simtarget.ClassRecord, simtarget.ClassBarrier, simtarget.ClassTrigger} {
			r.stream(l, class, 30*ms, time.Millisecond, 10)
		}
	}
	r.timerAt(30*ms, "h-src", 10*time.Millisecond, "h-src timer")
	puts := []*storeResult{r.put(30*ms, "disk", "k", "v"), r.put(30*ms, "meta", "k", "v")}
	r.run(200)
	fresh := r.got[start:]
	if want := len(rigLinks) * 3 * 10; len(fresh) != want {
		t.Errorf("%d fresh deliveries, want %d", len(fresh), want)
	}
	next := map[string]int{}
	for _, d := range fresh {
		key := d.link + "/" + d.class.String()
		if d.n != next[key] || d.at != 31*ms+sim.Time(d.n)*ms {
			t.Errorf("after heal: %s #%d arrived at %v, want #%d at %v", key, d.n, d.at, next[key], 31*ms+sim.Time(next[key])*ms)
		}
		next[key] = d.n + 1
	}
	check(t, "timers", map[string]sim.Time{"h-src timer": 40 * ms}, r.timers)
	for _, p := range puts {
		if p.err != nil || p.at != 31*ms {
			t.Errorf("put after heal: err %v at %v, want nil at 31ms", p.err, p.at)
		}
	}
	for _, st := range []string{"disk", "meta"} {
		if _, err := r.stores[st].Peek("k"); err != nil {
			t.Errorf("%s: value written after heal: %v", st, err)
		}
	}
	check(t, "boots", map[string]int{"h-src": 1, "h-sum": 1, "h-coord": 2}, r.boots)
	check(t, "engine calls", []string{"Heal()"}, r.engine.calls)
}

// World.Heal on its own (a harness that heals without an injector) brings a host back even
// when its restart was put off, and drops the pending restart.
func TestHealRestartsAHostWhoseRestartWasDelayed(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	w := r.world
	w.DelayRestarts(1, nanos(50))
	w.CrashHost(2, "h-sum")
	w.End(2) // restart due at +50ms
	w.End(1)
	r.run(10)
	if r.hosts["h-sum"].Up() {
		t.Fatal("h-sum restarted before its delay")
	}
	w.Heal()
	if !r.hosts["h-sum"].Up() {
		t.Fatal("Heal did not start h-sum")
	}
	r.run(100) // the put-off restart must not fire on a host that is up
	check(t, "boots", 2, r.boots["h-sum"])
}
