package simenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/trace"
)

// benchStandard runs cfg for ten virtual seconds per iteration and reports records, delivered
// messages and virtual seconds per wall second, and the bytes the snapshots wrote per
// completed checkpoint.
func benchStandard(b *testing.B, cfg engine.Config) {
	var records, virtual, snapshotBytes int64
	var messages uint64
	var checkpoints int
	for b.Loop() {
		r, err := RunStandardConfig(1, 10*time.Second, cfg)
		if err != nil {
			b.Fatal(err)
		}
		records += r.Records
		virtual += r.VirtualNanos
		messages += r.Messages
		snapshotBytes += r.SnapshotBytes
		checkpoints += r.Checkpoints
	}
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(records)/wall, "records/s")
	b.ReportMetric(float64(messages)/wall, "messages/s")
	b.ReportMetric(float64(virtual)/1e9/wall, "virtual-s/s")
	b.ReportMetric(float64(snapshotBytes)/float64(max(checkpoints, 1)), "snapshot-bytes/checkpoint")
}

// BenchmarkStandard is the standard scenario with the full trace: every record a sink
// writes is listed, one sink.writes event per buffer (engine.Config.BatchSinkWrites).
func BenchmarkStandard(b *testing.B) { benchStandard(b, engine.StandardConfig()) }

// BenchmarkStandardIncremental is the standard job with incremental snapshots
// (engine.Config.Incremental): beside BenchmarkStandard, what sharing pieces costs and saves.
func BenchmarkStandardIncremental(b *testing.B) { benchStandard(b, StandardConfigWith(0, true)) }

// BenchmarkStandardWideKeys and BenchmarkStandardWideKeysIncremental are the standard job
// with 100,000 keys, whose full snapshots grow with every key seen while an incremental one
// writes the keys a checkpoint interval touched.
func BenchmarkStandardWideKeys(b *testing.B) { benchStandard(b, StandardConfigWith(100_000, false)) }
func BenchmarkStandardWideKeysIncremental(b *testing.B) {
	benchStandard(b, StandardConfigWith(100_000, true))
}

// BenchmarkStandardNoSinkWrites leaves out the sink.writes events, which carry most of the
// trace's bytes, to show what the engine and the kernel cost by themselves.
func BenchmarkStandardNoSinkWrites(b *testing.B) {
	cfg := engine.StandardConfig()
	cfg.TraceSinkWrites = false
	benchStandard(b, cfg)
}

// BenchmarkStandardNoCheckpoints is the standard job with its checkpoint interval longer
// than the run: the records' path alone (sources, shuffle, sums, sinks, their trace), the
// part of the job's cost that no checkpoint setting can remove.
func BenchmarkStandardNoCheckpoints(b *testing.B) {
	cfg := engine.StandardConfig()
	cfg.Checkpoint.Interval = time.Hour
	benchStandard(b, cfg)
}

// BenchmarkStandardTrace records the trace of ten virtual seconds of the standard job once
// and then times the trace by itself: recording it as the job does, each event in its binary
// form and hashed (encode-and-hash); recording it with its file written, which renders the
// lines too (write); and hashing it as version 1 did, SHA-256 over the lines (hash-v1), for
// comparison. It is the trace's floor under the job: with the engine and the kernel free,
// the job could run no faster. Kept events come back without the emitter's PlainValues
// promise, so write scans every value, as the general path does.
func BenchmarkStandardTrace(b *testing.B) {
	kept := trace.NewRecorder(nil, trace.Header{Scenario: "standard", Seed: 1})
	kept.KeepEvents()
	job, err := startJob(1, engine.StandardConfig(), kept)
	if err != nil {
		b.Fatal(err)
	}
	job.Kernel.RunFor(10 * time.Second)
	events := kept.Events()
	var file bytes.Buffer
	written := trace.NewRecorder(&file, trace.Header{Scenario: "standard", Seed: 1})
	for _, e := range events {
		written.Emit(e.T, e)
	}
	if err := written.Flush(); err != nil {
		b.Fatal(err)
	}
	lines := file.Bytes()[bytes.IndexByte(file.Bytes(), '\n')+1:] // the lines, without the header
	b.Run("encode-and-hash", func(b *testing.B) {
		for b.Loop() {
			rec := trace.NewRecorder(nil, trace.Header{Scenario: "standard", Seed: 1})
			for _, e := range events {
				rec.Emit(e.T, e)
			}
			if rec.Hash() != kept.Hash() {
				b.Fatal("re-recorded trace hashes differently")
			}
		}
		b.ReportMetric(float64(len(events)), "events/op")
	})
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			rec := trace.NewRecorder(io.Discard, trace.Header{Scenario: "standard", Seed: 1})
			for _, e := range events {
				rec.Emit(e.T, e)
			}
			if rec.Flush() != nil || rec.Hash() != kept.Hash() {
				b.Fatal("the written trace hashes differently")
			}
		}
		b.ReportMetric(float64(len(lines)), "bytes/op")
	})
	b.Run("hash-v1", func(b *testing.B) {
		var sum [sha256.Size]byte
		for b.Loop() {
			sum = sha256.Sum256(lines)
		}
		if hex.EncodeToString(sum[:]) != trace.HashEventsV1(events) {
			b.Fatal("the written lines hash differently from the recorded trace")
		}
		b.ReportMetric(float64(len(lines)), "bytes/op")
	})
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
const standardPinnedHash = "beb4c1959f4734b2"

func TestStandardJobPinnedHash(t *testing.T) {
	r, err := RunStandard(1, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r.TraceHash != standardPinnedHash {
		t.Errorf("standard job, seed 1, 2s: trace hash %s, pinned %s", r.TraceHash, standardPinnedHash)
	}
}
