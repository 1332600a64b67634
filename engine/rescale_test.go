package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/scenarios/simenv/simenvtest"
	"github.com/ckptsim/ckptsim/trace"
)

// TestRescaleKeepsEveryRecordOnce: a bounded keyed job with two-phase-commit sinks is
// rescaled up and then down, its aggregate and the sink forward edges tie to it together,
// with full and with incremental snapshots. The job finishes with the reference's output
// committed exactly once, so every key's sum went on from its restored value and every
// pending transaction of the earlier tasks was committed.
func TestRescaleKeepsEveryRecordOnce(t *testing.T) {
	for _, incremental := range []bool{false, true} {
		events := runRescales(t, protocol.ModeAligned, incremental)
		for _, e := range events {
			if _, ok := e.Attr(trace.AttrReplayed); ok {
				t.Fatalf("an aligned job's restore traces replayed channel state: %v", e)
			}
		}
	}
}

// TestRescaleReplaysChannelStateOnce: the same job with unaligned checkpoints, and aligned
// ones that time out at once, rescaled while records are in flight: each record of the
// restored channel state reaches the task that now owns it once, so the output is the
// reference's, and every task.restore says how many it replayed from which snapshot.
func TestRescaleReplaysChannelStateOnce(t *testing.T) {
	for _, mode := range []protocol.Mode{protocol.ModeUnaligned, protocol.ModeAlignedWithTimeout} {
		events := runRescales(t, mode, false)
		replayed, restores := 0, 0
		for _, e := range events {
			v, ok := e.Attr(trace.AttrReplayed)
			if _, rescaled := e.Attr(trace.AttrRescaledFrom); !rescaled {
				continue
			}
			restores++
			list, valid := trace.ParseEntries(v)
			if !ok || !valid {
				t.Fatalf("%s: rescaled restore without a valid replayed attribute: %v", mode, e)
			}
			for _, r := range list {
				replayed += int(r.Value)
			}
		}
		if restores == 0 || replayed == 0 {
			t.Fatalf("%s: %d rescaled restores replayed %d records: the test exercised no channel state", mode, restores, replayed)
		}
	}
}

// runRescales runs the keyed job through three rescales in mode, checks that it committed
// the reference's output exactly once with consistent cuts, and returns its trace.
func runRescales(t *testing.T, mode protocol.Mode, incremental bool) []trace.Event {
	t.Helper()
	g := engine.KeyedSumGraph(3, 400, 2000, engine.TwoPhaseCommit)
	g.Operators[0].Logic = engine.Source{Partitions: 6, Records: 2000, Keys: 16, Seed: 1}
	g.MaxParallelism = 128
	cfg := engine.DefaultConfig(g)
	cfg.Incremental = incremental
	cfg.Checkpoint.Mode = mode
	// Sources read as fast as credits allow and every record costs time, so records queue
	// at both ends of the channels when a barrier comes.
	cfg.RecordCost = 50 * time.Microsecond
	if mode == protocol.ModeAlignedWithTimeout {
		cfg.Checkpoint.AlignmentTimeout = time.Microsecond
	}
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	faults := []simenvtest.Fault{
		{At: 100 * time.Millisecond, Kind: "rescale", Name: "sum", Parallelism: 5, Down: 10 * time.Millisecond},
		{At: 200 * time.Millisecond, Kind: "rescale", Name: "src", Parallelism: 2, Down: 10 * time.Millisecond},
		{At: 300 * time.Millisecond, Kind: "rescale", Name: "sum", Parallelism: 2, Down: 10 * time.Millisecond},
	}
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 1, faults, 60*time.Second)
	events := job.Recorder.Events()
	rescales := 0
	for _, e := range events {
		if _, ok := e.Attr(trace.AttrRescale); ok && e.Kind == trace.KindJobResubmit {
			rescales++
		}
	}
	if rescales != 3 {
		t.Fatalf("%s, incremental %v: %d rescales traced, want 3", mode, incremental, rescales)
	}
	ref, err := engine.ComputeReference(&g, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime))
	if len(lost)+len(extra)+len(wrong) > 0 {
		t.Fatalf("%s, incremental %v: lost %d %v, extra %d %v, wrong %d %v", mode, incremental,
			len(lost), head(lost), len(extra), head(extra), len(wrong), head(wrong))
	}
	simenvtest.CheckCuts(t, events)
	// Every rescaled restore is judged: key groups, channel state and the sources' union
	// state (their offsets) each restored once.
	if res := checker.RestoreFidelity(events); res.Verdict != checker.VerdictPass {
		t.Fatalf("%s, incremental %v: %s", mode, incremental, res)
	}
	return events
}

// TestRescaleRefusesWhatItCannotRedistribute: CheckRescale says why the engine will not
// rescale a job so, naming the cause, and accepts what it can.
func TestRescaleRefusesWhatItCannotRedistribute(t *testing.T) {
	keyed := func() engine.Config {
		g := engine.KeyedSumGraph(2, 100, 1000, engine.TwoPhaseCommit)
		g.MaxParallelism = 128
		return engine.DefaultConfig(g)
	}
	cases := []struct {
		name   string
		change func(*engine.Config)
		op     string
		p      int
		want   string // "" accepts
	}{
		{"keyed sum and its sink", nil, "sum", 4, ""},
		{"sources", nil, "src", 1, ""},
		{"unknown operator", nil, "nope", 2, `no operator "nope"`},
		{"unaligned", func(c *engine.Config) { c.Checkpoint.Mode = protocol.ModeUnaligned }, "sum", 3, ""},
		{"no key groups", func(c *engine.Config) { c.Graph.MaxParallelism = 0 }, "sum", 3, "no max parallelism"},
		{"above the key groups", func(c *engine.Config) { c.Graph.MaxParallelism = 2 }, "sum", 3, "above the max parallelism"},
		{"behind rebalance", func(c *engine.Config) { c.Graph.Edges[0].Partitioning = engine.Rebalance }, "sum", 3, "behind a rebalance edge"},
		{"split source", func(c *engine.Config) {
			c.Graph.Operators[0].Logic = engine.Source{Partitions: 4, Records: 10, RatePerSecond: 100, Keys: 2, Enumerated: true}
		}, "src", 3, "takes its splits from the coordinator"},
		{"more tasks than partitions", nil, "src", 3, "every task needs a partition"},
	}
	for _, c := range cases {
		cfg := keyed()
		if c.change != nil {
			c.change(&cfg)
		}
		err := engine.CheckRescale(&cfg, c.op, c.p)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestAFinishedJobIsNotResubmitted: once a bounded job finished, neither a resubmission nor
// a rescale starts it again.
func TestAFinishedJobIsNotResubmitted(t *testing.T) {
	g := engine.KeyedSumGraph(2, 50, 2000, engine.TwoPhaseCommit)
	g.MaxParallelism = 128
	cfg := engine.DefaultConfig(g)
	cfg.Checkpoint.Interval = 10 * time.Millisecond
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(2), 1, nil, 60*time.Second)
	if !job.Runtime.Finished() {
		t.Fatal("the job did not finish")
	}
	if err := job.Runtime.Resubmit(protocol.RestoreClaim); err == nil {
		t.Error("a finished job was resubmitted")
	}
	if err := job.Runtime.Rescale(protocol.RestoreClaim, "sum", 3); err == nil {
		t.Error("a finished job was rescaled")
	}
}

// TestResubmitRightAfterARescale: a job resubmitted before its rescaled self completed a
// checkpoint restores the earlier job's checkpoint again, so that restore is rescaled too,
// and the job still ends with every record once.
func TestResubmitRightAfterARescale(t *testing.T) {
	g := engine.KeyedSumGraph(2, 200, 2000, engine.TwoPhaseCommit)
	g.MaxParallelism = 128
	cfg := engine.DefaultConfig(g)
	cfg.Checkpoint.Interval = 20 * time.Millisecond
	faults := []simenvtest.Fault{
		{At: 50 * time.Millisecond, Kind: "rescale", Name: "sum", Parallelism: 3, Down: 5 * time.Millisecond},
		{At: 70 * time.Millisecond, Kind: "resubmit", Name: "legacy", Down: 5 * time.Millisecond},
	}
	job := simenvtest.RunWithFaults(t, cfg, simenv.DefaultConfig(4), 1, faults, 60*time.Second)
	ref, err := engine.ComputeReference(&g, engine.ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lost, extra, wrong := diffOutput(ref.OutputValues(), committed(job.Runtime)); len(lost)+len(extra)+len(wrong) > 0 {
		t.Fatalf("lost %v, extra %v, wrong %v", head(lost), head(extra), head(wrong))
	}
}
