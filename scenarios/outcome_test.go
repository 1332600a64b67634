package scenarios

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// TestScriptedSnapshotsDoNotVanish runs the ten-snapshot exercise of testdata over 20 seeds.
// The job finishes at the first global snapshot showing every process done and nothing in
// flight; it used to finish while a scripted snapshot was having its id persisted (which then
// never started, and left no event at all) and with snapshots in flight (which never ended),
// and the verdict was pass: 5 of these 20 seeds lost two snapshots each. Now every scripted
// snapshot is in the trace from the moment it is asked for, and completes or aborts.
func TestScriptedSnapshotsDoNotVanish(t *testing.T) {
	data, err := os.ReadFile("testdata/chandy-lamport-ten-snapshots.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(PropertiesToCheck(s), checker.PropCheckpointOutcome) {
		t.Fatalf("a chandy-lamport run is not judged by %s: %v", checker.PropCheckpointOutcome, PropertiesToCheck(s))
	}
	const scripted = 10
	// Periodic snapshots start only once the script is over and a whole interval has passed,
	// so the snapshots asked for before then are the script's.
	periodicFrom := int64(time.Duration(s.Checkpoint.Interval))
	for seed := uint64(1); seed <= 20; seed++ {
		res, events := runScenario(t, s, seed)
		if res.Verdict != VerdictPass {
			t.Errorf("seed %d: %s: %s %v", seed, res.Verdict, res.Why, res.Violations)
		}
		asked, ended := snapshotOutcomes(events, periodicFrom)
		if len(asked) != scripted || len(ended) != scripted {
			t.Errorf("seed %d: of %d scripted snapshots, %d are in the trace and %d completed or aborted (asked for: %v, ended: %v)",
				seed, scripted, len(asked), len(ended), asked, ended)
		}
	}
}

// snapshotOutcomes returns the checkpoints asked for (checkpoint.request, or a trigger of
// one not asked for before) before time before, and which of them completed or aborted.
func snapshotOutcomes(events []trace.Event, before int64) (asked, ended []uint64) {
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointRequest, trace.KindCheckpointTrigger:
			if e.T < before && !slices.Contains(asked, e.CP) {
				asked = append(asked, e.CP)
			}
		case trace.KindCheckpointComplete, trace.KindCheckpointAbort:
			if slices.Contains(asked, e.CP) && !slices.Contains(ended, e.CP) {
				ended = append(ended, e.CP)
			}
		}
	}
	return asked, ended
}
