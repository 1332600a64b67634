package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"pgregory.net/rapid"
)

// TestExactlyOnceProperty draws a keyed-sum job (mode, parallelism, sizes, rates, record
// cost, checkpoint interval, transaction timeout off) and a fault schedule (task, host and
// coordinator crashes at random moments, with random down times), and requires the
// committed output to equal the reference exactly, every completed checkpoint to be a
// consistent cut, every restore to carry the snapshot's state, and checkpoint ids to rise.
// A failure shrinks to a small job and few faults.
func TestExactlyOnceProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mode := rapid.SampledFrom([]protocol.Mode{protocol.ModeAligned, protocol.ModeUnaligned, protocol.ModeAlignedWithTimeout}).Draw(rt, "mode")
		par := rapid.IntRange(1, 4).Draw(rt, "parallelism")
		records := rapid.Int64Range(1, 300).Draw(rt, "records")
		rate := rapid.SampledFrom([]int64{0, 1000, 5000}).Draw(rt, "rate")
		cfg := engine.DefaultConfig(engine.KeyedSumGraph(par, records, rate, engine.TwoPhaseCommit))
		cfg.Checkpoint.Mode = mode
		cfg.Checkpoint.Interval = time.Duration(rapid.IntRange(5, 50).Draw(rt, "intervalMs")) * time.Millisecond
		cfg.RecordCost = time.Duration(rapid.IntRange(0, 100).Draw(rt, "costUs")) * time.Microsecond
		// A slow sink back-pressures the job, so barriers overtake full queues.
		cfg.Graph.Operators[2].RecordCost = time.Duration(rapid.IntRange(0, 400).Draw(rt, "sinkCostUs")) * time.Microsecond
		if mode == protocol.ModeAlignedWithTimeout {
			cfg.Checkpoint.AlignmentTimeout = time.Duration(rapid.IntRange(1, 5000).Draw(rt, "alignUs")) * time.Microsecond
		}
		hosts := []string{"jm"}
		for i := range par {
			hosts = append(hosts, fmt.Sprintf("tm-%d", i))
		}
		var faults []simenvtest.Fault
		for range rapid.IntRange(0, 4).Draw(rt, "faults") {
			f := simenvtest.Fault{
				At:   time.Duration(rapid.IntRange(0, 200).Draw(rt, "atMs")) * time.Millisecond,
				Kind: rapid.SampledFrom([]string{"task", "host", "coordinator"}).Draw(rt, "kind"),
				Down: time.Duration(rapid.IntRange(0, 100).Draw(rt, "downMs")) * time.Millisecond,
			}
			switch f.Kind {
			case "task":
				f.Name = rapid.SampledFrom(cfg.Graph.Tasks()).Draw(rt, "task")
			case "host":
				f.Name = rapid.SampledFrom(hosts).Draw(rt, "host")
			}
			faults = append(faults, f)
		}
		seed := rapid.Uint64().Draw(rt, "seed")
		ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
		if err != nil {
			rt.Fatal(err)
		}
		job, err := simenvtest.RunJob(cfg, simenv.DefaultConfig(par), seed, faults, 60*time.Second)
		if err != nil {
			rt.Fatal(err)
		}
		lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
		if len(lost)+len(extra)+len(wrong) > 0 {
			rt.Fatalf("lost %d %v, extra %d %v, wrong %d %v", len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
		}
		events := job.Recorder.Events()
		simenvtest.CheckCuts(t, events)
		simenvtest.CheckRestores(t, events)
		simenvtest.CheckIDsAndRecovery(t, events)
	})
}
