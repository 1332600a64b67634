package simtarget_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
)

var (
	srcSum   = faults.Link{From: "src", To: "sum"}
	sumSrc   = faults.Link{From: "sum", To: "src"}
	coordSum = faults.Link{From: faults.Coordinator, To: "sum"}
	sumCoord = faults.Link{From: "sum", To: faults.Coordinator}
	srcCoord = faults.Link{From: "src", To: faults.Coordinator}
	coordSrc = faults.Link{From: faults.Coordinator, To: "src"}
)

func check[T any](t *testing.T, what string, want, got T) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(delivery{})); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// net.drop of barriers: records on the same channel all arrive, barriers sent during the
// window are lost, and barriers after it arrive again.
func TestDropBarriersOnly(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 50)      // at 1..50ms
	r.stream(srcSum, simtarget.ClassBarrier, 5*ms, 5*time.Millisecond, 10) // at 5, 10, ... 50ms
	r.inject(rigPhases, faults.Entry{
		Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault:   faults.Fault{Kind: faults.NetDrop, From: "src", To: "sum", Message: faults.MessageBarrier, Probability: 1, Window: faults.Duration(nanos(20))},
	})
	r.run(200)
	check(t, "records", seq(0, 50), r.received(srcSum, simtarget.ClassRecord))
	// Barriers sent at 15, 20, 25 and 30ms fall in [10.5, 30.5).
	check(t, "barriers", []int{0, 1, 6, 7, 8, 9}, r.received(srcSum, simtarget.ClassBarrier))
}

// net.drop of acks everywhere (empty link): both tasks' acks to the coordinator are lost,
// triggers on the same control links are not.
func TestDropControlMessagesEverywhere(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	for _, l := range []faults.Link{srcCoord, sumCoord} {
		r.stream(l, simtarget.ClassAck, ms, time.Millisecond, 30)
	}
	r.stream(coordSum, simtarget.ClassTrigger, ms, time.Millisecond, 30)
	r.inject(rigPhases, faults.Entry{
		Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault:   faults.Fault{Kind: faults.NetDrop, Message: faults.MessageAck, Probability: 1, Window: faults.Duration(nanos(10))},
	})
	r.run(200)
	acks := concat(seq(0, 10), seq(20, 30)) // sent at 11..20ms: lost
	check(t, "src acks", acks, r.received(srcCoord, simtarget.ClassAck))
	check(t, "sum acks", acks, r.received(sumCoord, simtarget.ClassAck))
	check(t, "triggers", seq(0, 30), r.received(coordSum, simtarget.ClassTrigger))
}

// net.break: both ends are told at once, the message in flight is lost, sends fail until
// heal repairs the channel, and traffic flows again after.
func TestBreakChannel(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 50)
	r.inject(faults.Phases{Fault: faults.Duration(nanos(20)), Liveness: faults.Duration(nanos(10))}, faults.Entry{
		Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault:   faults.Fault{Kind: faults.NetBreak, From: "src", To: "sum"},
	})
	r.run(15)
	if !r.links[srcSum].Broken() {
		t.Fatal("src->sum is not broken during the fault phase")
	}
	r.run(200)
	check(t, "broken notifications", []string{"h-src src->sum 10500000ns", "h-sum src->sum 10500000ns"}, r.broken)
	// #9 (sent at 10ms) was in flight; #10..#19 (11..20ms) were refused; heal at 20ms
	// repaired the link after the send due at that instant.
	check(t, "records", concat(seq(0, 9), seq(20, 50)), r.received(srcSum, simtarget.ClassRecord))
	check(t, "refused sends", map[error]int{sim.ErrLinkBroken: 10}, r.sendErrs)
}

// net.delay: messages sent during the window take 5ms longer, and later messages never
// overtake them.
func TestDelayKeepsOrder(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 40)
	r.inject(rigPhases, faults.Entry{
		Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault:   faults.Fault{Kind: faults.NetDelay, From: "src", To: "sum", Delay: faults.Duration(nanos(5)), Window: faults.Duration(nanos(10))},
	})
	r.run(200)
	check(t, "records", seq(0, 40), r.received(srcSum, simtarget.ClassRecord))
	for _, c := range []struct {
		n    int
		want sim.Time
	}{
		{9, 11 * ms},  // sent at 10ms, before the window
		{10, 17 * ms}, // sent at 11ms: 1 + 5
		{19, 26 * ms}, // sent at 20ms, the last in the window
		{20, 26 * ms}, // sent at 21ms: due at 22ms, held behind #19
		{25, 27 * ms}, // sent at 26ms: back to normal
	} {
		if got := r.arrival(srcSum, simtarget.ClassRecord, c.n); got != c.want {
			t.Errorf("record #%d arrived at %v, want %v", c.n, got, c.want)
		}
	}
}

// net.partition on control links loses messages: one way first (acks still get through),
// then both ways; after each window traffic flows again.
func TestPartitionOneWayThenBothWays(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(coordSum, simtarget.ClassTrigger, ms, time.Millisecond, 60)
	r.stream(sumCoord, simtarget.ClassAck, ms, time.Millisecond, 60)
	r.inject(rigPhases,
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
			Fault: faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum", OneWay: true, Window: faults.Duration(nanos(10))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(30.5))),
			Fault: faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum", Window: faults.Duration(nanos(10))}},
	)
	r.run(15)
	if !r.links[coordSum].Partitioned() || r.links[sumCoord].Partitioned() {
		t.Errorf("at 15ms: coordinator->sum partitioned=%v, sum->coordinator partitioned=%v; want true, false",
			r.links[coordSum].Partitioned(), r.links[sumCoord].Partitioned())
	}
	r.run(35)
	if !r.links[coordSum].Partitioned() || !r.links[sumCoord].Partitioned() {
		t.Error("at 35ms: want both directions partitioned")
	}
	r.run(200)
	// A message is lost if it is sent during a window or comes due in one: #9 is sent at
	// 10ms and due at 11ms.
	check(t, "triggers", concat(seq(0, 9), seq(20, 29), seq(40, 60)), r.received(coordSum, simtarget.ClassTrigger))
	check(t, "acks", concat(seq(0, 29), seq(40, 60)), r.received(sumCoord, simtarget.ClassAck))
}

// net.partition on a data channel holds records (a stalled connection) and delivers them in
// order when it heals; nothing is lost.
func TestPartitionOfDataChannelHoldsRecords(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 40)
	r.stream(sumSrc, simtarget.ClassOther, ms, time.Millisecond, 40) // credits flowing back
	r.inject(rigPhases, faults.Entry{
		Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault:   faults.Fault{Kind: faults.NetPartition, From: "src", To: "sum", Window: faults.Duration(nanos(10))},
	})
	r.run(200)
	check(t, "records", seq(0, 40), r.received(srcSum, simtarget.ClassRecord))
	check(t, "credits", seq(0, 40), r.received(sumSrc, simtarget.ClassOther))
	for _, l := range []faults.Link{srcSum, sumSrc} {
		if held := r.arrivalsBetween(l, msAt(10.5), msAt(20.5)); len(held) != 0 {
			t.Errorf("%s delivered during the partition: %v", l, held)
		}
		if got := r.arrival(l, classOn(l), 9); got != msAt(20.5) {
			t.Errorf("%s: #9, due at 11ms, arrived at %v, want at the heal, 20.5ms", l, got)
		}
	}
}

func classOn(l faults.Link) simtarget.Class {
	if l == srcSum {
		return simtarget.ClassRecord
	}
	return simtarget.ClassOther
}

// Two partitions on one link: it heals only when both have ended, and the reverse direction,
// cut only by the second, heals with it.
func TestOverlappingPartitionsHealWhenBothEnd(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(coordSum, simtarget.ClassTrigger, ms, time.Millisecond, 60)
	r.stream(sumCoord, simtarget.ClassAck, ms, time.Millisecond, 60)
	r.inject(rigPhases,
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
			Fault: faults.Fault{Kind: faults.NetPartition, From: faults.Coordinator, To: "sum", OneWay: true, Window: faults.Duration(nanos(20))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(20.5))),
			Fault: faults.Fault{Kind: faults.NetPartition, From: "sum", To: faults.Coordinator, Window: faults.Duration(nanos(20))}},
	)
	for _, c := range []struct {
		at               float64
		forward, reverse bool
	}{{15, true, false}, {25, true, true}, {35, true, true}, {45, false, false}} {
		r.run(c.at)
		if got := r.links[coordSum].Partitioned(); got != c.forward {
			t.Errorf("at %vms coordinator->sum partitioned = %v, want %v", c.at, got, c.forward)
		}
		if got := r.links[sumCoord].Partitioned(); got != c.reverse {
			t.Errorf("at %vms sum->coordinator partitioned = %v, want %v", c.at, got, c.reverse)
		}
	}
	r.run(200)
	check(t, "triggers", concat(seq(0, 9), seq(40, 60)), r.received(coordSum, simtarget.ClassTrigger))
	check(t, "acks", concat(seq(0, 19), seq(40, 60)), r.received(sumCoord, simtarget.ClassAck))
}

// net.clog holds everything and releases it in order; two overlapping clogs release only
// when the second ends.
func TestClogThenReleaseInOrder(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 50)
	r.stream(srcSum, simtarget.ClassBarrier, msAt(2.5), 5*time.Millisecond, 10)
	r.inject(rigPhases,
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{Kind: faults.NetClog, From: "src", To: "sum", Window: faults.Duration(nanos(10))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(15.5))), Fault: faults.Fault{Kind: faults.NetClog, From: "src", To: "sum", Window: faults.Duration(nanos(10))}},
	)
	r.run(200)
	check(t, "records", seq(0, 50), r.received(srcSum, simtarget.ClassRecord))
	check(t, "barriers", seq(0, 10), r.received(srcSum, simtarget.ClassBarrier))
	if held := r.arrivalsBetween(srcSum, msAt(10.5), msAt(25.5)); len(held) != 0 {
		t.Errorf("delivered while clogged: %v", held)
	}
	// Everything due in the window comes out at its end, in the order it was sent: records
	// #9..#23 (sent at 10..24ms) with barriers #2, #3, #4 (sent at 12.5, 17.5, 22.5ms).
	var released []string
	for _, d := range r.got {
		if d.at == msAt(25.5) {
			released = append(released, fmt.Sprintf("%s#%d", d.class, d.n))
		}
	}
	var want []string
	for n := 9; n <= 23; n++ {
		want = append(want, fmt.Sprintf("record#%d", n))
		if n%5 == 1 { // barrier b is sent at 2.5+5b ms, right after record #(5b+1)
			want = append(want, fmt.Sprintf("barrier#%d", (n-1)/5))
		}
	}
	check(t, "released at 25.5ms", want, released)
}

// The out-of-model data faults: drops and duplicates hit records only, inside their windows;
// reorder makes records overtake each other and loses none.
func TestDataDropDuplicateReorder(t *testing.T) {
	t.Run("drop", func(t *testing.T) {
		r := newRig(t, rigOptions{seed: 1})
		r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 60)
		r.stream(srcSum, simtarget.ClassBarrier, msAt(2.5), 5*time.Millisecond, 12)
		r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
			Fault: faults.Fault{Kind: faults.DataDrop, Probability: 0.5, Window: faults.Duration(nanos(30))}})
		r.run(200)
		got := r.received(srcSum, simtarget.ClassRecord)
		var lost []int
		for _, n := range seq(0, 60) {
			if !slices.Contains(got, n) {
				lost = append(lost, n)
			}
		}
		if len(lost) == 0 || slices.ContainsFunc(lost, func(n int) bool { return n < 10 || n >= 40 }) {
			t.Errorf("lost records %v: want some, all sent in [10.5, 40.5)ms", lost)
		}
		if !slices.IsSorted(got) {
			t.Errorf("records out of order: %v", got)
		}
		check(t, "barriers", seq(0, 12), r.received(srcSum, simtarget.ClassBarrier))
	})
	t.Run("duplicate", func(t *testing.T) {
		r := newRig(t, rigOptions{seed: 1})
		r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 60)
		r.stream(srcSum, simtarget.ClassBarrier, msAt(2.5), 5*time.Millisecond, 12)
		r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
			Fault: faults.Fault{Kind: faults.DataDuplicate, From: "src", To: "sum", Probability: 0.5, Window: faults.Duration(nanos(30))}})
		r.run(200)
		got := r.received(srcSum, simtarget.ClassRecord)
		var twice []int
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] {
				twice = append(twice, got[i])
			}
		}
		if len(twice) == 0 || slices.ContainsFunc(twice, func(n int) bool { return n < 10 || n >= 40 }) {
			t.Errorf("duplicated records %v: want some, all sent in [10.5, 40.5)ms", twice)
		}
		check(t, "distinct records", seq(0, 60), slices.Compact(slices.Clone(got)))
		check(t, "barriers", seq(0, 12), r.received(srcSum, simtarget.ClassBarrier))
	})
	t.Run("reorder", func(t *testing.T) {
		r := newRig(t, rigOptions{seed: 1})
		r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 60)
		r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
			Fault: faults.Fault{Kind: faults.DataReorder, From: "src", To: "sum", Window: faults.Duration(nanos(30))}})
		r.run(200)
		got := r.received(srcSum, simtarget.ClassRecord)
		var overtaken []int // records that arrived after a later one
		for i := 1; i < len(got); i++ {
			if got[i] < got[i-1] {
				overtaken = append(overtaken, got[i])
			}
		}
		if len(overtaken) == 0 || slices.ContainsFunc(overtaken, func(n int) bool { return n < 10 || n >= 40 }) {
			t.Errorf("overtaken records %v: want some, all sent in [10.5, 40.5)ms", overtaken)
		}
		check(t, "every record once", seq(0, 60), slices.Sorted(slices.Values(got)))
	})
}
