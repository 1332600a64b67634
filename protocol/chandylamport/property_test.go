package chandylamport

import (
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSnapshotsAreConsistent is the paper's theorem (Chandy & Lamport 1985, section 4) as a
// property: on a random directed graph (cycles, sources, sinks and isolated processes allowed)
// with random token balances, random sends and FIFO deliveries, and snapshots initiated at
// random processes (several in flight at once, some aborted by the channel limit), every
// completed global snapshot
//   - conserves the tokens: recorded balances plus recorded in-flight tokens equal the total;
//   - is a consistent cut: on every channel, the messages the sender sent before recording are
//     exactly those the receiver consumed before recording followed by the channel's state;
//   - agrees, report by report, with the dumb reference (reference_test.go);
//
// and once the channels drain, every snapshot is finished everywhere (liveness).
func TestSnapshotsAreConsistent(t *testing.T) {
	var completed, withInFlight, aborted int
	rapid.Check(t, func(t *rapid.T) {
		w, err := newTokenWorld(rapidChooser{t}, faithful)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.run(rapid.IntRange(0, 300).Draw(t, "steps")); err != nil {
			t.Fatalf("%v\n%s", err, w)
		}
		conservation, consistency, reference := w.checkSnapshots()
		for _, v := range append(append(conservation, consistency...), reference...) {
			t.Errorf("%s", v)
		}
		if t.Failed() {
			t.Fatalf("run:\n%s", w)
		}
		completed += len(w.completed)
		aborted += len(w.aborted)
		for _, g := range w.completed {
			for _, c := range g.Channels {
				if len(c.Messages) > 0 {
					withInFlight++
					break
				}
			}
		}
	})
	// The property is only as good as the runs it saw: make sure they exercised the cases
	// that matter.
	t.Logf("%d snapshots completed, %d with messages in flight, %d process aborts", completed, withInFlight, aborted)
	if completed == 0 || withInFlight == 0 || aborted == 0 {
		t.Errorf("the generated runs are too tame: %d completed, %d with messages in flight, %d aborts", completed, withInFlight, aborted)
	}
}

// TestBrokenHostsAreCaught is the negative control: hosts that break an obligation of the
// package documentation make the conservation property fail on some seed, so the property can
// fail at all. Each fault is searched with seeded runs; the first failing seed is logged.
func TestBrokenHostsAreCaught(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault hostFault
	}{
		{"forget receives (no channel state)", forgetReceives},
		{"markers sent late (after the next message)", lateMarkers},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 500; seed++ {
				w, err := newTokenWorld(randChooser{rand.New(rand.NewPCG(seed, 0))}, tc.fault)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.run(80); err != nil {
					t.Fatalf("seed %d: the run itself failed: %v", seed, err)
				}
				if conservation, _, _ := w.checkSnapshots(); len(conservation) > 0 {
					t.Logf("seed %d breaks conservation, as it should: %s", seed, conservation[0])
					return
				}
			}
			t.Fatalf("no seed in 1..500 broke conservation: the property cannot see this fault")
		})
	}
}

// TestTokenRunsAreDeterministic: one seed, one run. The process holds no map whose order
// reaches its outputs.
func TestTokenRunsAreDeterministic(t *testing.T) {
	render := func(seed uint64) string {
		w, err := newTokenWorld(randChooser{rand.New(rand.NewPCG(seed, 1))}, faithful)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.run(80); err != nil {
			t.Fatal(err)
		}
		return w.String()
	}
	for seed := uint64(1); seed <= 20; seed++ {
		first, second := render(seed), render(seed)
		if first != second {
			t.Fatalf("seed %d: two runs differ:\n%s\n----\n%s", seed, first, second)
		}
		if !strings.Contains(first, "graph") {
			t.Fatalf("seed %d: empty rendering", seed)
		}
	}
}
