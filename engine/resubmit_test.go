package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// TestResubmissionInEveryRestoreMode: a bounded keyed job with incremental snapshots is
// stopped and submitted again from its latest completed checkpoint, in each restore mode.
// The new job finishes, its restores hold the restored state, what it deletes is judged
// by the state-release rules, and the new job's snapshots build on the restored pieces,
// except after a no-claim restore, where none refers to one.
func TestResubmissionInEveryRestoreMode(t *testing.T) {
	for _, mode := range []string{"claim", "no-claim", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 400, 2000, engine.TwoPhaseCommit))
			cfg.Incremental = true
			cfg.Checkpoint.Interval = 20 * time.Millisecond
			resubmit := simenvtest.Fault{At: 110 * time.Millisecond, Kind: "resubmit", Name: mode, Down: 30 * time.Millisecond}
			job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 1, []simenvtest.Fault{resubmit}, 60*time.Second)
			events := job.Recorder.Events()
			from, at := resubmittedFrom(t, events)
			restored := piecesOf(events[:at], from)
			reused := 0
			for _, e := range events[at:] {
				if e.Kind != trace.KindSnapshotTaken {
					continue
				}
				list, _ := e.Attr(trace.AttrPieces)
				for _, piece := range strings.Fields(list) {
					if restored[piece] {
						reused++
					}
				}
			}
			if want := mode != "no-claim"; (reused > 0) != want {
				t.Fatalf("the new job's snapshots reuse %d pieces of checkpoint %d; want some: %v", reused, from, want)
			}
			ref := checker.Reference{Policy: checker.Policy{RetainedCheckpoints: cfg.Checkpoint.RetainedCheckpoints}}
			for _, res := range []checker.Result{checker.StateRelease(events, ref), checker.RestoreFidelity(events)} {
				if res.Verdict != checker.VerdictPass {
					t.Fatalf("%s", res)
				}
			}
		})
	}
}

// resubmittedFrom returns the checkpoint of the run's job.resubmit and its index.
func resubmittedFrom(t *testing.T, events []trace.Event) (uint64, int) {
	t.Helper()
	for i, e := range events {
		if e.Kind == trace.KindJobResubmit {
			return e.CP, i
		}
	}
	t.Fatal("no job.resubmit in the trace")
	return 0, 0
}

// piecesOf returns the pieces the snapshots taken for checkpoint cp refer to.
func piecesOf(events []trace.Event, cp uint64) map[string]bool {
	out := map[string]bool{}
	for _, e := range events {
		if e.Kind == trace.KindSnapshotTaken && e.CP == cp {
			list, _ := e.Attr(trace.AttrPieces)
			for _, piece := range strings.Fields(list) {
				out[piece] = true
			}
		}
	}
	return out
}
