package main

import (
	"fmt"
	"io"
	"time"

	"github.com/ckptsim/ckptsim/scenarios/simenv"
)

// Full against incremental snapshots: the standard job, and the standard job with many keys
// (wideKeys), each once with full snapshots and once with incremental ones, for the
// standard job's span on seed 1. What a snapshot writes is deterministic, so one run each
// tells it; the wall time is the run's, as noisy as any.

// wideKeys is the key count of the wide variant: with 8,000 records a second, a checkpoint
// every 100 ms touches a few hundred of them, while a full snapshot writes every key seen.
const wideKeys = 100_000

// snapshotBench is one job's figures under one kind of snapshot.
type snapshotBench struct {
	Job                string  `json:"job"`
	Incremental        bool    `json:"incremental"`
	VirtualNanos       int64   `json:"virtual_ns"`
	Checkpoints        int     `json:"checkpoints"`
	SnapshotBytes      int64   `json:"snapshot_bytes"`
	BytesPerCheckpoint float64 `json:"bytes_per_checkpoint"`
	WallNanos          int64   `json:"wall_ns"`
}

// benchSnapshots runs the standard job, with its own keys and with wideKeys, with full and
// with incremental snapshots for span of virtual time.
func benchSnapshots(span time.Duration) ([]snapshotBench, error) {
	var out []snapshotBench
	for _, keys := range []int{0, wideKeys} {
		name := "standard"
		if keys != 0 {
			name = fmt.Sprintf("standard, %d keys", keys)
		}
		for _, incremental := range []bool{false, true} {
			start := time.Now()
			r, err := simenv.RunStandardSnapshots(1, span, keys, incremental)
			if err != nil {
				return nil, err
			}
			b := snapshotBench{Job: name, Incremental: incremental, VirtualNanos: r.VirtualNanos, Checkpoints: r.Checkpoints,
				SnapshotBytes: r.SnapshotBytes, WallNanos: max(time.Since(start).Nanoseconds(), 1)}
			if r.Checkpoints > 0 {
				b.BytesPerCheckpoint = float64(r.SnapshotBytes) / float64(r.Checkpoints)
			}
			out = append(out, b)
		}
	}
	return out, nil
}

// printSnapshotBench prints the comparison, one line per job and kind of snapshot.
func printSnapshotBench(w io.Writer, bs []snapshotBench) {
	if len(bs) == 0 {
		return
	}
	fmt.Fprintf(w, "snapshots, full against incremental (%s virtual, seed 1, no faults or checkers)\n", formatNanos(float64(bs[0].VirtualNanos)))
	for _, b := range bs {
		kind := "full"
		if b.Incremental {
			kind = "incremental"
		}
		fmt.Fprintf(w, "  %-24s %-11s %9.0f bytes/checkpoint (%d checkpoints), %s wall\n",
			b.Job, kind, b.BytesPerCheckpoint, b.Checkpoints, formatNanos(float64(b.WallNanos)))
	}
}
