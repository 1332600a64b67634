package simenv

import (
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
)

// benchStandard runs cfg for ten virtual seconds per iteration and reports records per wall
// second and virtual seconds per wall second.
func benchStandard(b *testing.B, cfg engine.Config) {
	var records, virtual int64
	for b.Loop() {
		r, err := RunStandardConfig(1, 10*time.Second, cfg)
		if err != nil {
			b.Fatal(err)
		}
		records += r.Records
		virtual += r.VirtualNanos
	}
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(records)/wall, "records/s")
	b.ReportMetric(float64(virtual)/1e9/wall, "virtual-s/s")
}

// BenchmarkStandard is the standard scenario with the full trace: every record a sink
// writes is listed, one sink.writes event per buffer (engine.Config.BatchSinkWrites).
func BenchmarkStandard(b *testing.B) { benchStandard(b, engine.StandardConfig()) }

// BenchmarkStandardNoSinkWrites leaves out the sink.writes events, which carry most of the
// trace's bytes, to show what the engine and the kernel cost by themselves.
func BenchmarkStandardNoSinkWrites(b *testing.B) {
	cfg := engine.StandardConfig()
	cfg.TraceSinkWrites = false
	benchStandard(b, cfg)
}

func TestStandardRunsAndCheckpoints(t *testing.T) {
	r, err := RunStandard(1, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoints < 3 || r.Records < 3000 {
		t.Errorf("standard scenario did %d checkpoints and %d records in 500ms", r.Checkpoints, r.Records)
	}
	again, err := RunStandard(1, 500*time.Millisecond)
	if err != nil || again.TraceHash != r.TraceHash {
		t.Errorf("the standard scenario is not deterministic: %s then %s (%v)", r.TraceHash, again.TraceHash, err)
	}
}

// standardPinnedHash is the trace hash of 2 virtual seconds of the standard job on seed 1.
// Like scenarios' pinned hashes it changes only with behaviour: a change that is meant to
// be a pure speed-up must leave it alone, and one that changes behaviour pins the new hash
// in the same commit.
const standardPinnedHash = "849acced9030f0ed0246f32ff305b20e7b08eda707aaad7f125616f7b2df7963"

func TestStandardJobPinnedHash(t *testing.T) {
	r, err := RunStandard(1, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.TraceHash != standardPinnedHash {
		t.Errorf("standard job, seed 1, 2s: trace hash %s, pinned %s", r.TraceHash, standardPinnedHash)
	}
}
