package main

import (
	"cmp"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/scenarios/simenv"
)

// The engine's standard job, measured by itself: engine.StandardConfig (8 sources of 1,000
// records per second, key by, 8 sums, 8 two-phase-commit sinks, a checkpoint every 100 ms)
// for standardJobSpan of virtual time on seed 1, the trace hashed, no faults and no
// checkers. It is the yardstick of how much faster than real time the engine runs; the
// standard scenario above it mixes in faults, checkers and idle phases.

// standardJobSpan is how much virtual time one measurement of the standard job covers.
const standardJobSpan = 10 * time.Second

// standardJobRuns is how many times bench runs the standard job; it reports the median.
const standardJobRuns = 3

// jobBench is what bench reports of the standard job.
type jobBench struct {
	VirtualNanos     int64   `json:"virtual_ns"`
	WallNanos        int64   `json:"wall_ns"` // the median run's
	Records          int64   `json:"records"`
	Messages         uint64  `json:"messages"`
	KernelEvents     uint64  `json:"kernel_events"`
	VirtualPerWall   float64 `json:"virtual_seconds_per_wall_second"`
	RecordsPerSecond float64 `json:"records_per_second"`
	// MessagesPerSecond is the yardstick "whole-run delivered messages per second per core":
	// a run is one goroutine, so this is per core.
	MessagesPerSecond     float64 `json:"messages_per_second"`
	KernelEventsPerSecond float64 `json:"kernel_events_per_second"`
}

// runStandardJob runs the standard job for span of virtual time.
func runStandardJob(span time.Duration) (simenv.BenchResult, error) {
	return simenv.RunStandard(1, span)
}

// benchStandardJob runs the standard job standardJobRuns times and reports the median run.
func (a *app) benchStandardJob() (jobBench, error) {
	type run struct {
		wall time.Duration
		r    simenv.BenchResult
	}
	runs := make([]run, 0, standardJobRuns)
	for range standardJobRuns {
		start := time.Now()
		r, err := a.standardJob()
		if err != nil {
			return jobBench{}, err
		}
		runs = append(runs, run{time.Since(start), r})
	}
	slices.SortFunc(runs, func(x, y run) int { return cmp.Compare(x.wall, y.wall) })
	m := runs[len(runs)/2]
	wall := max(m.wall.Nanoseconds(), 1)
	return jobBench{
		VirtualNanos:          m.r.VirtualNanos,
		WallNanos:             wall,
		Records:               m.r.Records,
		VirtualPerWall:        float64(m.r.VirtualNanos) / float64(wall),
		RecordsPerSecond:      float64(m.r.Records) / (float64(wall) / 1e9),
		Messages:              m.r.Messages,
		KernelEvents:          m.r.KernelEvents,
		MessagesPerSecond:     float64(m.r.Messages) / (float64(wall) / 1e9),
		KernelEventsPerSecond: float64(m.r.KernelEvents) / (float64(wall) / 1e9),
	}, nil
}
