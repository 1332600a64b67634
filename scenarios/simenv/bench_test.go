package simenv

import (
	"testing"
	"time"
)

// BenchmarkStandard runs the standard scenario for one virtual second per iteration and
// reports records per wall second and virtual seconds per wall second.
func BenchmarkStandard(b *testing.B) {
	var records, virtual int64
	for b.Loop() {
		r, err := RunStandard(1, time.Second)
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

func TestStandardRunsAndCheckpoints(t *testing.T) {
	r, err := RunStandard(1, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Checkpoints < 3 || r.Records < 3000 {
		t.Errorf("standard scenario did %d checkpoints and %d records in 500ms", r.Checkpoints, r.Records)
	}
}
