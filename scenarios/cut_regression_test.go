package scenarios

import (
	"os"
	"slices"
	"testing"
)

func loadTestScenario(t *testing.T, path string) *Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// With several checkpoints in flight, a pending checkpoint can complete with a finished
// task's final snapshot carried over from an earlier one. These seeds raised a false
// consistent-cut alarm ("source-0 sent 22 records to sum-2, which took no snapshot for it")
// while the carried snapshot left no trace event and only senders fell back to it.
func TestCarriedSnapshotsRaiseNoFalseAlarm(t *testing.T) {
	s := loadTestScenario(t, "testdata/concurrent-checkpoints.json")
	sim := NewSimulation()
	for _, seed := range []uint64{20, 85, 100} {
		_, res, err := Execute(sim, s, seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Unexpected {
			t.Errorf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
	}
}

// Records an unaligned barrier overtook in the sender's output queue are output-side
// channel state. When the planted bug forgets them, these seeds lose records; before
// snapshot.taken counted them (out.<to>) and sent included them, consistent-cut passed.
func TestForgottenOutputChannelStateBreaksTheCut(t *testing.T) {
	s := loadTestScenario(t, "testdata/forgotten-output-state.json")
	sim := NewSimulation()
	for _, seed := range []uint64{3, 10, 11} {
		_, res, err := Execute(sim, s, seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(res.ViolatedProperties(), PropertyConsistentCut) {
			t.Errorf("seed %d: consistent-cut not violated: %s %v", seed, res.Verdict, res.ViolatedProperties())
		}
	}
}
