package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// TestRoundsAreWholeOnly: a round a resubmission cuts short, one in which a task restores
// twice, and a restore of a task the rescale did not list make no whole round; a round of
// every listed task after a failover does.
func TestRoundsAreWholeOnly(t *testing.T) {
	restore := func(task string) trace.Event { return trace.TaskRestoreRescaled(task, 1, "x", nil, "") }
	failover := trace.Event{Kind: trace.KindJobFailover, CP: 1, Reason: "task-failure"}
	cases := []struct {
		name         string
		events       []trace.Event
		whole, loose int
	}{
		{"whole", []trace.Event{restore("sum-0"), restore("sum-1"), restore("sum-2")}, 1, 0},
		{"cut by a resubmission", []trace.Event{restore("sum-0"), restore("sum-1"),
			trace.JobRescale(1, "claim", "sum", 2, []string{"sum-0", "sum-1"}), restore("sum-2")}, 0, 3},
		{"a task twice", []trace.Event{restore("sum-0"), restore("sum-0"), restore("sum-1"), restore("sum-2")}, 0, 4},
		{"a task not listed", []trace.Event{restore("sum-0"), restore("sum-7"), restore("sum-1")}, 0, 3},
		{"cut by a failover, then whole", []trace.Event{restore("sum-0"), failover,
			restore("sum-0"), restore("sum-1"), restore("sum-2")}, 1, 1},
	}
	for _, c := range cases {
		b := rescaledTB()
		for _, e := range c.events {
			b.add(e)
		}
		rounds, loose := rescaledRounds(newTraceIndex(b.events))
		if len(rounds) != c.whole || loose != c.loose {
			t.Errorf("%s: %d whole rounds, %d loose restores; want %d, %d", c.name, len(rounds), loose, c.whole, c.loose)
		}
	}
}
