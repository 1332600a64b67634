package scenarios

import (
	"testing"

	"github.com/ckptsim/ckptsim/checker"
)

// Catalogue scenarios with one setting changed, each a configuration a user may write. The
// engine is correct, so a verdict may only say that the job made no progress where the
// setting allows none (a timeout too short for any checkpoint to complete): liveness and
// recovery-bound. Anything else is a verdict that blames the wrong thing: a liveness failure
// reported as lost records, a failover the failure count disagrees with, an abort notice
// waited for that never needs to come.
var variants = []struct {
	scenario, change string
	apply            func(*Scenario)
}{
	{"storage-faults", "short timeout", shortTimeout},
	{"failover-while-persisting", "short timeout", shortTimeout},
	{"failover-during-counter-write", "short timeout", shortTimeout},
	{"ambiguous-metadata", "short timeout", shortTimeout},
	{"too-many-pending", "short timeout", shortTimeout},
	{"unaligned-too-many-uploads", "short timeout", shortTimeout},
	{"sink-pending-full", "short timeout", shortTimeout},
	{"concurrent-at-end", "short timeout", shortTimeout},
	{"end-trigger-ends-alignment", "short timeout", shortTimeout},
	{"abort-notice-lost-downstream", "no tolerable failure", func(s *Scenario) {
		zero := 0
		s.Checkpoint.TolerableFailures = &zero
	}},
	{"savepoint-outlived", "long input, long interval, short timeout", func(s *Scenario) {
		// The savepoint expires after the tasks were told of a newer checkpoint: its
		// abort notice is moot.
		s.Workload.Records = 3000
		s.Checkpoint.Interval = Duration(5e9)
		s.Checkpoint.MinPause = Duration(5e9)
		s.Checkpoint.Timeout = Duration(40e6)
	}},
}

// shortTimeout sets the checkpoint timeout to 0.4 of the interval.
func shortTimeout(s *Scenario) { s.Checkpoint.Timeout = s.Checkpoint.Interval * 4 / 10 }

// progress are the properties a configuration that allows no progress rightly fails.
var progress = map[checker.Property]bool{checker.PropLiveness: true, checker.PropRecoveryBound: true}

func TestOneSettingChangedBlamesOnlyProgress(t *testing.T) {
	sim := NewSimulation()
	for _, v := range variants {
		s, err := Lookup(v.scenario)
		if err != nil {
			t.Fatal(err)
		}
		s = s.Clone()
		v.apply(s)
		if err := s.Complete(""); err != nil {
			t.Fatalf("%s with %s: %v", v.scenario, v.change, err)
		}
		for seed := uint64(1); seed <= 2; seed++ {
			_, res, err := Execute(sim, s, seed, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, violation := range res.Violations {
				if !progress[violation.Property] {
					t.Errorf("%s with %s, seed %d: %s", v.scenario, v.change, seed, violation)
				}
			}
		}
	}
}
