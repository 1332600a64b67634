package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/ckptsim/ckptsim/scenarios/simenv"
	"github.com/ckptsim/ckptsim/trace"
)

// The yardstick "peak memory of a long run with a streamed trace" (docs/speed.md): the
// engine's standard job for longRunSpan of virtual time on seed 1, its trace written out as
// it is recorded, and the live heap read after a collection at every virtual second, less
// what the process held before the job started (what earlier parts of bench left). The
// Recorder keeps nothing per event, so the live heap is what the job holds: its working
// state, flat, and the external store's table of committed records, which grows with the
// output as a real sink's table would (some 24 bytes a record).

// longRunSpan is how much virtual time bench's long run covers.
const longRunSpan = 60 * time.Second

// memoryBench is what bench reports of the long run.
type memoryBench struct {
	VirtualNanos int64  `json:"virtual_ns"`
	TraceEvents  uint64 `json:"trace_events"`
	TraceBytes   int64  `json:"trace_bytes"`
	// The job's live heap after the first virtual second, its largest sample, and its last.
	FirstLiveHeap uint64 `json:"live_heap_first_bytes"`
	PeakLiveHeap  uint64 `json:"live_heap_peak_bytes"`
	LastLiveHeap  uint64 `json:"live_heap_last_bytes"`
	// StoreRows is how many committed records the external store holds at the end.
	StoreRows int64 `json:"store_rows"`
}

// byteCounter is the trace's destination: a file that keeps nothing.
type byteCounter struct{ n int64 }

func (c *byteCounter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// benchLongRun runs the standard job for span with its trace streamed, sampling the live heap
// every virtual second.
func benchLongRun(span time.Duration) (memoryBench, error) {
	var stats runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&stats)
	before := stats.HeapAlloc
	var out byteCounter
	rec := trace.NewRecorder(&out, trace.Header{Scenario: "standard", Seed: 1})
	job, err := simenv.StandardJob(1, rec)
	if err != nil {
		return memoryBench{}, err
	}
	var m memoryBench
	for elapsed := time.Duration(0); elapsed < span; elapsed += time.Second {
		job.Kernel.RunFor(min(time.Second, span-elapsed))
		runtime.GC()
		runtime.ReadMemStats(&stats)
		live := stats.HeapAlloc - min(before, stats.HeapAlloc)
		if elapsed == 0 {
			m.FirstLiveHeap = live
		}
		m.PeakLiveHeap = max(m.PeakLiveHeap, live)
		m.LastLiveHeap = live
	}
	if err := rec.Flush(); err != nil {
		return memoryBench{}, fmt.Errorf("long run: %w", err)
	}
	m.VirtualNanos = job.Kernel.Now().Nanoseconds()
	m.TraceEvents = rec.Len()
	m.TraceBytes = out.n
	m.StoreRows = job.Runtime.Store().Visible()
	return m, nil
}

// formatBytes renders n bytes in MB with one decimal.
func formatBytes(n uint64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
