package engine_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// TestTransactionTimeoutLosesData is the classic exactly-once trap: the store aborts a
// transaction that stays open longer than its timeout. A 2PC sink pre-commits at checkpoint
// n and commits on the notification, some 100 ms after the transaction began; when a host
// crash keeps the sink down for 300 ms between the two, the restored sink's commit comes too
// late with a 150 ms timeout and the records are lost, while a 10 s timeout loses nothing.
func TestTransactionTimeoutLosesData(t *testing.T) {
	for _, tc := range []struct {
		timeout  time.Duration
		wantLoss bool
	}{{150 * time.Millisecond, true}, {10 * time.Second, false}} {
		t.Run(tc.timeout.String(), func(t *testing.T) {
			cfg := engine.DefaultConfig(engine.KeyedSumGraph(2, 1000, 1000, engine.TwoPhaseCommit))
			cfg.Store.TxnTimeout = tc.timeout
			ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// tm-0 goes down the instant checkpoint 3 completes, before its sink hears of
			// it, and stays down for 300 ms; the restore commits checkpoint 3's
			// transaction again.
			faults := []simenvtest.Fault{{Kind: "host", Name: "tm-0", Down: 300 * time.Millisecond,
				On: func(e trace.Event) bool { return e.Kind == trace.KindCheckpointComplete && e.CP >= 3 }}}
			job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), 3, faults, 60*time.Second)
			lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
			if len(extra)+len(wrong) > 0 {
				t.Errorf("extra %d %v, wrong %d %v", len(extra), head(extra), len(wrong), head(wrong))
			}
			timeouts := 0
			for _, e := range job.Recorder.Events() {
				if e.Kind == trace.KindSinkAbort && e.Reason == "timeout" {
					timeouts++
				}
			}
			if got := len(lost) > 0; got != tc.wantLoss {
				t.Errorf("lost %d records (%v), want loss %v; %d transactions timed out", len(lost), head(lost), tc.wantLoss, timeouts)
			}
			t.Logf("lost %d records, %d transactions timed out, %d failovers", len(lost), timeouts, simenvtest.CountKind(job, trace.KindJobFailover))
		})
	}
}
