package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ckptsim/ckptsim/trace"
)

// Runs that take turns with one array for their events (RunOptions.Events, as a sweep's
// worker lends it) give what runs with arrays of their own give: a long run, a short one
// that fails (so its array still holds the long run's later events), and the long one again.
func TestLentEventsChangeNothing(t *testing.T) {
	var lent []trace.Event
	for _, c := range []struct {
		scenario string
		seed     uint64
	}{{StandardName, 1}, {"control-lost-state", 2}, {StandardName, 1}} {
		s, err := Lookup(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		_, own, err := Execute(NewSimulation(), s, c.seed, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, borrowed, err := Execute(NewSimulation(), s, c.seed, RunOptions{Events: &lent})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(own, borrowed, cmpopts.IgnoreFields(Result{}, "WallNanos")); diff != "" {
			t.Errorf("%s seed %d with a lent array (-own +lent):\n%s", c.scenario, c.seed, diff)
		}
		if c.scenario != StandardName && (borrowed.Verdict != VerdictFail || uint64(cap(lent)) <= borrowed.Events) {
			t.Fatalf("%s seed %d: verdict %s with %d events in an array of %d: the case should fail in an array a longer run left",
				c.scenario, c.seed, borrowed.Verdict, borrowed.Events, cap(lent))
		}
		if uint64(len(lent)) != borrowed.Events {
			t.Errorf("%s seed %d left %d events in the lent array, its trace has %d", c.scenario, c.seed, len(lent), borrowed.Events)
		}
	}
}
