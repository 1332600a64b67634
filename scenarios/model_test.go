package scenarios

import (
	"testing"

	"github.com/ckptsim/ckptsim/faults"
)

// Two out-of-model kinds are in model in some runs: lost writes beside verified writes,
// and transaction timeouts above what the run's transactions need.
func TestInModelDependsOnTheRun(t *testing.T) {
	s := &Scenario{Checkpoint: Checkpoint{Interval: Millis(100), Timeout: Seconds(1), TolerableFailures: Tolerating(0)}}
	lost := faults.Fault{Kind: faults.StorageLost, Probability: 1, Window: 1}
	bound := s.OpenTransactionBound()
	for _, c := range []struct {
		what       string
		f          faults.Fault
		unverified bool
		want       bool
	}{
		{"a crash", faults.Fault{Kind: faults.CrashTask, Task: "a"}, false, true},
		{"dropped records", faults.Fault{Kind: faults.DataDrop, Probability: 1, Window: 1}, false, false},
		{"a lost write, read back", lost, false, true},
		{"a lost write, trusted", lost, true, false},
		{"a timeout at the bound", faults.Fault{Kind: faults.ExternalTimeout, Timeout: bound, Window: 1}, false, true},
		{"a timeout below it", faults.Fault{Kind: faults.ExternalTimeout, Timeout: Duration(bound.Nanos() - 1), Window: 1}, false, false},
	} {
		s.Checkpoint.UnverifiedWrites = c.unverified
		if got := s.InModel(c.f); got != c.want {
			t.Errorf("%s: in model %v, want %v", c.what, got, c.want)
		}
	}
}
