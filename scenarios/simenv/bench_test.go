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

// BenchmarkStandard is the standard scenario with the full trace (sink.write per record).
func BenchmarkStandard(b *testing.B) { benchStandard(b, engine.StandardConfig()) }

// BenchmarkStandardNoSinkWrites leaves out the per-record sink.write events, which dominate
// the trace, to show what the engine and the kernel cost by themselves.
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
