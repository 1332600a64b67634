package scenarios

import (
	"testing"

	"github.com/ckptsim/ckptsim/faults"
)

// The bound on how long a transaction stays open, worked by hand for one schedule: two
// attempts of a cycle without faults, and for each fault its window, its delay and a
// failover, restart.delay lengthening every failover.
func TestOpenTransactionBound(t *testing.T) {
	s := &Scenario{Checkpoint: Checkpoint{Interval: Millis(100), MinPause: Millis(20), Timeout: Seconds(1),
		TolerableFailures: Tolerating(1)}}
	cycle := Millis(1120)
	if got, want := openTransactionBound(s), 3*cycle+Seconds(1); got != want {
		t.Fatalf("no faults: bound %s, want %s", got, want)
	}
	s.Faults = []faults.Entry{
		{Trigger: faults.At(0), Fault: faults.Fault{Kind: faults.CrashCoordinator}},
		{Trigger: faults.Chance(0.5, 3, faults.Match{}), Fault: faults.Fault{Kind: faults.PauseHost, Host: "h", WindowNanos: Millis(200).Nanos()}},
		{Trigger: faults.At(0), Fault: faults.Fault{Kind: faults.RestartDelay, DelayNanos: Millis(30).Nanos(), WindowNanos: Millis(400).Nanos()}},
	}
	restart := Millis(50) + Millis(30) // the engine's restart delay and the one restart.delay
	held := 3*Millis(200) + Millis(430)
	want := 3*cycle + Seconds(1) + held + 5*(restart+cycle)
	if got := openTransactionBound(s); got != want {
		t.Errorf("three faults, five firings: bound %s, want %s", got, want)
	}
}
