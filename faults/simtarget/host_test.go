package simtarget_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/faults/simtarget"
	"github.com/ckptsim/ckptsim/sim"
)

// clock.skew: a 10ms host timer armed in the window fires late (positive skew) or early
// (negative); overlapping skews add up; timers armed before and after run true.
func TestTimerSkew(t *testing.T) {
	for _, c := range []struct {
		name   string
		skews  []int64
		skewed sim.Time // when the timer armed at 15ms fires
	}{
		{"slow clock", []int64{500_000}, 30 * ms},
		{"fast clock", []int64{-500_000}, 20 * ms},
		{"two skews add up", []int64{200_000, 300_000}, 30 * ms},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, rigOptions{seed: 1})
			r.timerAt(5*ms, "h-sum", 10*time.Millisecond, "before")
			r.timerAt(15*ms, "h-sum", 10*time.Millisecond, "during")
			r.timerAt(15*ms, "h-src", 10*time.Millisecond, "other host")
			r.timerAt(35*ms, "h-sum", 10*time.Millisecond, "after")
			var entries []faults.Entry
			for _, ppm := range c.skews {
				entries = append(entries, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
					Fault: faults.Fault{Kind: faults.ClockSkew, Host: "h-sum", SkewPPM: ppm, Window: faults.Duration(nanos(20))}})
			}
			r.inject(rigPhases, entries...)
			r.run(100)
			check(t, "timers", map[string]sim.Time{
				"before": 15 * ms, "during": c.skewed, "other host": 25 * ms, "after": 45 * ms,
			}, r.timers)
		})
	}
}

// crash.host: the host goes down at once (in-flight messages to it lost, nothing delivered
// while down, its timers gone) and boots again, a new incarnation, when the window ends.
func TestCrashHost(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 40)
	r.stream(coordSum, simtarget.ClassTrigger, ms, time.Millisecond, 40)
	r.timerAt(5*ms, "h-sum", 10*time.Millisecond, "armed before the crash")
	r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault: faults.Fault{Kind: faults.CrashHost, Host: "h-sum", Window: faults.Duration(nanos(10))}})
	r.run(15)
	if r.hosts["h-sum"].Up() {
		t.Fatal("h-sum is up inside its crash window")
	}
	r.run(100)
	for _, l := range []faults.Link{srcSum, coordSum} {
		if got := r.arrivalsBetween(l, msAt(10.5), msAt(20.5)); len(got) != 0 {
			t.Errorf("%s delivered to a crashed host: %v", l, got)
		}
	}
	// #9 was in flight at the crash; #10..#19 were sent to a down host.
	check(t, "records", concat(seq(0, 9), seq(20, 40)), r.received(srcSum, simtarget.ClassRecord))
	check(t, "triggers", concat(seq(0, 9), seq(20, 40)), r.received(coordSum, simtarget.ClassTrigger))
	check(t, "boots", map[string]int{"h-src": 1, "h-sum": 2, "h-coord": 1}, r.boots)
	if _, fired := r.timers["armed before the crash"]; fired {
		t.Error("a timer of the crashed incarnation fired")
	}
	if got := r.arrival(srcSum, simtarget.ClassRecord, 20); got != 22*ms {
		t.Errorf("first record after the restart arrived at %v, want 22ms", got)
	}
}

// restart.delay puts off the restart at the end of a crash; two overlapping crashes keep
// the host down until the later one ends, and it boots once.
func TestCrashHostRestartDelayAndOverlap(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 60)
	r.inject(rigPhases,
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(1))), Fault: faults.Fault{Kind: faults.RestartDelay, Delay: faults.Duration(nanos(5)), Window: faults.Duration(nanos(50))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{Kind: faults.CrashHost, Host: "h-sum", Window: faults.Duration(nanos(10))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(15.5))), Fault: faults.Fault{Kind: faults.CrashHost, Host: "h-sum", Window: faults.Duration(nanos(10))}},
	)
	for _, c := range []struct {
		at float64
		up bool
	}{{20, false}, {25, false}, {30, false}, {30.5, true}} {
		r.run(c.at)
		if got := r.hosts["h-sum"].Up(); got != c.up {
			t.Errorf("at %vms h-sum up = %v, want %v", c.at, got, c.up)
		}
	}
	r.run(100)
	if got := r.world.RestartDelay(); got != 0 {
		t.Errorf("RestartDelay after its window = %v, want 0", got)
	}
	// Up at 30.5ms (25.5 + 5): #30, sent at 31ms, is the first record it gets.
	check(t, "records", concat(seq(0, 9), seq(30, 60)), r.received(srcSum, simtarget.ClassRecord))
	check(t, "boots", 2, r.boots["h-sum"])
}

// pause.host: nothing on the host runs during the window (deliveries, timers), nothing is
// lost, and what was due happens, in order, when it resumes: 1ns after the window here,
// because the window is a whole number of pause quanta.
func TestPauseHost(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 40)
	r.stream(coordSum, simtarget.ClassTrigger, ms, time.Millisecond, 40)
	r.timerAt(5*ms, "h-sum", 10*time.Millisecond, "due at 15ms")
	r.timerAt(5*ms, "h-src", 10*time.Millisecond, "other host")
	r.inject(rigPhases, faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))),
		Fault: faults.Fault{Kind: faults.PauseHost, Host: "h-sum", Window: faults.Duration(nanos(10))}})
	r.run(100)
	resume := msAt(20.5) + 1
	for _, l := range []faults.Link{srcSum, coordSum} {
		if got := r.arrivalsBetween(l, msAt(10.5), resume); len(got) != 0 {
			t.Errorf("%s delivered to a paused host: %v", l, got)
		}
		check(t, l.String(), seq(0, 40), r.received(l, classOf(l)))
		if got := r.arrival(l, classOf(l), 9); got != resume {
			t.Errorf("%s #9 (due at 11ms) arrived at %v, want at the resume %v", l, got, resume)
		}
	}
	check(t, "timers", map[string]sim.Time{"due at 15ms": resume, "other host": 15 * ms}, r.timers)
	check(t, "boots", 1, r.boots["h-sum"])
}

func classOf(l faults.Link) simtarget.Class {
	switch l {
	case srcSum:
		return simtarget.ClassRecord
	case coordSum:
		return simtarget.ClassTrigger
	}
	return simtarget.ClassOther
}

// A pause that does not end on a quantum boundary resumes within one quantum, and a host
// restarted while a pause is in force comes back paused.
func TestPauseQuantumAndCrashDuringPause(t *testing.T) {
	r := newRig(t, rigOptions{seed: 1, config: simtarget.Config{PauseQuantum: 4 * time.Millisecond}})
	r.stream(srcSum, simtarget.ClassRecord, ms, time.Millisecond, 60)
	r.inject(rigPhases,
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(10.5))), Fault: faults.Fault{Kind: faults.PauseHost, Host: "h-sum", Window: faults.Duration(nanos(21))}},
		faults.Entry{Trigger: faults.At(faults.Duration(nanos(12.5))), Fault: faults.Fault{Kind: faults.CrashHost, Host: "h-sum", Window: faults.Duration(nanos(5))}},
	)
	r.run(100)
	// Crashed at 12.5ms and restarted at 17.5ms into the pause, which pauses the new
	// incarnation at once and renews every 4ms from there: 17.5, 21.5, 25.5, 29.5. The window
	// ends at 31.5ms, and the renewal at 29.5 holds the host until 33.5ms + 1ns, within one
	// quantum of the end.
	resume := msAt(33.5) + 1
	if got := r.arrivalsBetween(srcSum, msAt(10.5), resume); len(got) != 0 {
		t.Errorf("delivered while paused or down: %v", got)
	}
	// #11..#16 were lost to the crash (in flight at 12.5, or sent while down); #17 onwards
	// waited for the resume.
	check(t, "records", concat(seq(0, 9), seq(17, 60)), r.received(srcSum, simtarget.ClassRecord))
	if got := r.arrival(srcSum, simtarget.ClassRecord, 17); got != resume {
		t.Errorf("#17 arrived at %v, want %v", got, resume)
	}
}
