package simtarget_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/trace"
)

// "Clog src->sum at sum's 3rd barrier.recv": the fault is injected from inside sum's receive
// event, is the next line of the trace after that barrier.recv, and holds at once: the
// records behind the barrier wait for the clog to end.
func TestNthTriggerClogsAtTheThirdBarrier(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 40)
	r.stream(srcSum, simtarget.ClassBarrier, msAt(5.5), 5*time.Millisecond, 6) // due at 6.5, 11.5, 16.5, ...
	r.inject(rigPhases, faults.Entry{
		Trigger: faults.Nth(3, faults.Match{Kind: trace.KindBarrierRecv, Task: "sum"}),
		Fault:   faults.Fault{Kind: faults.NetClog, From: "src", To: "sum", Window: faults.Duration(nanos(5))},
	})
	r.run(100)
	events := r.rec.Events()
	i := slices.IndexFunc(events, func(e trace.Event) bool { return e.Kind == trace.KindFault })
	if i < 1 {
		t.Fatalf("no fault event in %v", events)
	}
	trigger := events[i-1]
	if trigger.Kind != trace.KindBarrierRecv || trigger.CP != 2 || events[i].T != trigger.T {
		t.Errorf("fault event follows %v, want sum's barrier.recv of barrier #2 at the same instant", trigger)
	}
	if got := r.arrivalsBetween(srcSum, msAt(16.5), msAt(21.5)); len(got) != 0 {
		t.Errorf("delivered while clogged: %v", got)
	}
	if got := r.arrival(srcSum, simtarget.ClassRecord, 16); got != msAt(21.5) { // due at 18ms
		t.Errorf("record #16 arrived at %v, want at the end of the clog, 21.5ms", got)
	}
	check(t, "records", seq(0, 40), r.received(srcSum, simtarget.ClassRecord))
}

// A chance trigger on sum's record.recv partitions the control links of sum at most twice;
// each fault event comes right after the record.recv that drew it, and the same seed draws
// the same faults.
func TestChanceTriggerIsReproducible(t *testing.T) {
	run := func(seed uint64) (faultLines []string, hash string) {
		r := newRig(t, rigOptions{seed: seed})
		r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 60)
		r.stream(coordSum, simtarget.ClassTrigger, ms, time.Millisecond, 60)
		r.inject(rigPhases, faults.Entry{
			Trigger: faults.Chance(0.1, 2, faults.Match{Kind: trace.KindRecordRecv, Task: "sum"}),
			Fault:   faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum", Window: faults.Duration(nanos(3))},
		})
		r.run(100)
		events := r.rec.Events()
		for i, e := range events {
			if _, end := e.Attr(faults.AttrEnd); e.Kind != trace.KindFault || end {
				continue
			}
			if prev := events[i-1]; prev.Kind != trace.KindRecordRecv || prev.T != e.T {
				t.Errorf("seed %d: fault %v follows %v, want a record.recv at the same instant", seed, e, prev)
			}
			faultLines = append(faultLines, e.String())
		}
		if lost := 60 - len(r.received(coordSum, simtarget.ClassTrigger)); lost == 0 {
			t.Errorf("seed %d: the partitions lost no trigger", seed)
		}
		return faultLines, r.rec.Hash()
	}
	lines, hash := run(11)
	if len(lines) != 2 {
		t.Fatalf("seed 11: %d faults injected, want 2 (max): %v", len(lines), lines)
	}
	again, hashAgain := run(11)
	check(t, "faults of the same seed", lines, again)
	if hash != hashAgain {
		t.Errorf("same seed, different trace hashes %s and %s", hash, hashAgain)
	}
	if other, _ := run(12); slices.Equal(other, lines) {
		t.Errorf("seeds 11 and 12 injected the same faults: %v", lines)
	}
}
