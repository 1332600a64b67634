package engine_test

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/trace"
)

// countDeliveries runs cfg for d and counts the delivered messages of each class.
func countDeliveries(t *testing.T, cfg engine.Config, d time.Duration) map[engine.MessageClass]int {
	t.Helper()
	job, err := simenv.NewJob(1, cfg, simenv.DefaultConfig(4), trace.NewRecorder(nil, trace.Header{Seed: 1}), sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	counts := make(map[engine.MessageClass]int)
	job.Env.SetObserver(func(e sim.Event) {
		if _, _, msg, ok := simenv.Unwrap(e.Message); ok && e.Kind == sim.EventDeliver {
			counts[engine.Classify(msg)]++
		}
	})
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	job.Kernel.RunFor(d)
	return counts
}

// TestCreditsReturnInBatches: a receiver gives credits back half a channel's worth at a
// time, so there is about one credit message per creditBatch buffers, and a sender never
// starves for it: with a single credit per channel (batches of one) and with an odd number,
// under a slow sink that keeps every channel full, bounded input still finishes and
// equals the reference.
func TestCreditsReturnInBatches(t *testing.T) {
	cfg := engine.StandardConfig()
	cfg.Network.Credits = 4
	counts := countDeliveries(t, cfg, 2*time.Second)
	buffers, credits := counts[engine.ClassRecords], counts[engine.ClassCredit]
	// Every credit message returns two buffers' credits. At the end a channel may still
	// queue up to 4 delivered buffers and hold back one consumed buffer's credit: 72
	// channels (64 into the sums, 8 into the sinks) with at most 5 buffers each unreturned.
	const channels, unreturned = 72, 5
	if buffers == 0 || 2*credits > buffers || 2*credits < buffers-channels*unreturned {
		t.Errorf("%d credit messages for %d buffers with 4 credits per channel, want about one per two", credits, buffers)
	}
	for _, n := range []int{1, 3} {
		cfg := modeConfig(protocol.ModeAligned, engine.TwoPhaseCommit)
		cfg.Network.Credits = n
		cfg.Network.QueueBuffers = 1
		cfg.Graph.Operators[2].RecordCost = 200 * time.Microsecond // a slow sink
		job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 1, nil, 60*time.Second)
		if !job.Runtime.Finished() {
			t.Fatalf("%d credits per channel: the job did not finish", n)
		}
		ref, err := engine.ComputeReference(&cfg.Graph, engine.ReferenceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime)); len(lost)+len(extra)+len(wrong) > 0 {
			t.Errorf("%d credits per channel: lost %d, extra %d, wrong %d", n, len(lost), len(extra), len(wrong))
		}
	}
}

// TestBuffersWaitTheirFlushInterval: at a low rate, with a flush interval equal to the
// checkpoint interval, a barrier seals the buffer being filled and the next buffer waits
// its own full interval, so a channel carries about one buffer per checkpoint, not two.
func TestBuffersWaitTheirFlushInterval(t *testing.T) {
	cfg := engine.DefaultConfig(engine.KeyedSumGraph(1, 0, 100, engine.TwoPhaseCommit))
	cfg.Checkpoint.Interval = 100 * time.Millisecond
	cfg.Network.FlushInterval = 100 * time.Millisecond
	cfg.Network.BufferRecords = 1000
	counts := countDeliveries(t, cfg, 10*time.Second)
	// Two channels (source -> sum -> sink), a hundred intervals each.
	if buffers := counts[engine.ClassRecords]; buffers < 150 || buffers > 220 {
		t.Errorf("%d buffers on two channels over 100 checkpoint intervals, want about 200", buffers)
	}
}
