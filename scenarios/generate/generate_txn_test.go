package generate

import (
	"testing"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// The bound on how long a transaction stays open, worked by hand for one schedule: two
// attempts of a cycle without faults, and for each fault its window, its delay and a
// failover, restart.delay lengthening every failover.
func TestOpenTransactionBound(t *testing.T) {
	s := &scenarios.Scenario{Checkpoint: scenarios.Checkpoint{Interval: scenarios.Millis(100), MinPause: scenarios.Millis(20), Timeout: scenarios.Seconds(1),
		TolerableFailures: scenarios.Tolerating(1)}}
	cycle := scenarios.Millis(1120)
	if got, want := s.OpenTransactionBound(), 3*cycle+scenarios.Seconds(1); got != want {
		t.Fatalf("no faults: bound %s, want %s", got, want)
	}
	s.Faults = []faults.Entry{
		{Trigger: faults.At(0), Fault: faults.Fault{Kind: faults.CrashCoordinator}},
		{Trigger: faults.Chance(0.5, 3, faults.Match{}), Fault: faults.Fault{Kind: faults.PauseHost, Host: "h", Window: scenarios.Millis(200)}},
		{Trigger: faults.At(0), Fault: faults.Fault{Kind: faults.RestartDelay, Delay: scenarios.Millis(30), Window: scenarios.Millis(400)}},
	}
	restart := scenarios.Millis(50) + scenarios.Millis(30) // the engine's restart delay and the one restart.delay
	held := 3*scenarios.Millis(200) + scenarios.Millis(430)
	want := 3*cycle + scenarios.Seconds(1) + held + 5*(restart+cycle)
	if got := s.OpenTransactionBound(); got != want {
		t.Errorf("three faults, five firings: bound %s, want %s", got, want)
	}
}
