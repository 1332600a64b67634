package main

import (
	"fmt"
	"io"
	"time"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// bench is `simrun bench`: run the standard scenario once untimed, then over consecutive
// seeds at -j N and at -j 1, and report events per second, virtual seconds simulated per
// wall second, and seeds per second; then the engine's standard job alone; then the memory
// of a long run of it. With -generated it times the default sweep's generic part instead
// (generated seeds 1-N) and stops there.
// (How many seeds each bug of the bug zoo takes to be caught is simrun zoo's to say: it
// builds a mutated binary per bug.) It measures; it judges nothing, so its exit status is
// 0 unless the input is bad.
func (a *app) bench(args []string) int {
	fs := newFlags("bench")
	asJSON := fs.Bool("json", false, "print one JSON object")
	count := positiveInt{value: 20}
	fs.Var(&count, "seeds", "number of seeds to run, from 1 (default 20, or "+fmt.Sprint(genericSeedCount)+" with -generated)")
	jobs := positiveInt{value: a.cpus}
	fs.Var(&jobs, "j", "runs in parallel, one per CPU unless given; bench also runs -j 1 to show the scaling")
	generated := fs.Bool("generated", false, "time the default sweep's generic part (generated seeds 1-N) instead of the standard scenario, and nothing else")
	positional, status := a.parseCommand(fs, usageBench, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("bench: unexpected argument %q (usage: simrun %s)", positional[0], usageBench)
	}
	if *generated && !given(fs, "seeds") {
		count.value = genericSeedCount
	}
	if count.value > maxBenchSeeds {
		return a.fail("bench: -seeds %d is more than %d: a benchmark's rates settle within a few hundred seeds (use simrun sweep for a long run)", count.value, maxBenchSeeds)
	}
	seeds := scenarios.SeedRange{First: 1, Last: uint64(count.value)}
	b := benchResult{Jobs: jobs.value}
	var spec sweepSpec
	if *generated {
		b.Scenario, spec = generate.Name, sweepSpec{generic: &seeds}
	} else {
		standard := a.builtinNamed(scenarios.StandardName)
		if standard == nil {
			return a.fail("bench: no built-in scenario %q", scenarios.StandardName)
		}
		b.Scenario, spec = standard.Name, sweepSpec{scenarios: []*scenarios.Scenario{standard}, seeds: &seeds}
	}
	if err := a.benchSweeps(&b, spec); err != nil {
		return a.fail("bench: %s", trimPackage(err))
	}
	if !*generated {
		job, err := a.benchStandardJob()
		if err != nil {
			return a.fail("bench: %s", trimPackage(err))
		}
		long, err := benchLongRun(a.longRunSpan)
		if err != nil {
			return a.fail("bench: %s", trimPackage(err))
		}
		snapshots, err := benchSnapshots(a.snapshotSpan)
		if err != nil {
			return a.fail("bench: %s", trimPackage(err))
		}
		b.StandardJob, b.LongRun, b.Snapshots = &job, &long, snapshots
	}
	if *asJSON {
		writeJSON(a.stdout, b)
	} else {
		printBench(a.stdout, &b, a.build())
	}
	return exitOK
}

// builtinNamed is the built-in scenario called name, nil if there is none.
func (a *app) builtinNamed(name string) *scenarios.Scenario {
	for _, s := range a.builtins() {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// benchSweeps times spec at b.Jobs and at -j 1 into b, after one untimed run of its first
// seed. Without that run the -j N sweep, timed first, paid for what a process does once
// (the scenario's reference, computed on first use and then shared, and the first calls of
// everything), and over the default 20 seeds the scaling read about 1.0 on two cores where
// a longer sweep shows 1.7.
func (a *app) benchSweeps(b *benchResult, spec sweepSpec) error {
	warm := spec
	first := scenarios.SeedRange{First: 1, Last: 1}
	if warm.generic != nil {
		warm.generic = &first
	} else {
		warm.seeds = &first
	}
	if _, err := a.benchSweep(warm, 1); err != nil {
		return err
	}
	var err error
	if b.sweepBench, err = a.benchSweep(spec, b.Jobs); err != nil {
		return err
	}
	oneJob := b.sweepBench
	if b.Jobs > 1 {
		if oneJob, err = a.benchSweep(spec, 1); err != nil {
			return err
		}
	}
	b.SeedsPerSecondOneJob = oneJob.SeedsPerSecond
	b.Scaling = b.SeedsPerSecond / oneJob.SeedsPerSecond
	return nil
}

type benchResult struct {
	Scenario string `json:"scenario"`
	Jobs     int    `json:"j"`
	sweepBench
	// SeedsPerSecondOneJob is the same sweep's rate at -j 1; Scaling the ratio of the two
	// (the yardstick "seeds per second of a sweep, and its scaling with -j").
	SeedsPerSecondOneJob float64 `json:"seeds_per_second_j1"`
	Scaling              float64 `json:"scaling"`
	// StandardJob and LongRun are measured unless bench -generated.
	StandardJob *jobBench    `json:"standard_job,omitempty"`
	LongRun     *memoryBench `json:"long_run,omitempty"`
	// Snapshots compares full and incremental snapshots, unless bench -generated.
	Snapshots []snapshotBench `json:"snapshots,omitempty"`
}

// sweepBench is what one timed sweep of the standard scenario did.
type sweepBench struct {
	Seeds           int     `json:"seeds"`
	Events          uint64  `json:"events"`
	VirtualNanos    int64   `json:"virtual_ns"`
	WallNanos       int64   `json:"wall_ns"`
	EventsPerSecond float64 `json:"events_per_second"`
	VirtualPerWall  float64 `json:"virtual_seconds_per_wall_second"`
	SeedsPerSecond  float64 `json:"seeds_per_second"`
}

// maxBenchSeeds bounds -seeds: bench runs them twice (at -j N and -j 1), and at about
// fifteen seeds of the standard scenario a second on one core, the bound is about ten
// minutes at -j 1.
const maxBenchSeeds = 10_000

// benchSweep times the sweep spec on workers goroutines, reporting its progress on stderr
// as a sweep does (never on the measurements on stdout).
// printBench prints bench's text report.
func printBench(w io.Writer, b *benchResult, build string) {
	what := "scenario " + b.Scenario
	if b.Scenario == generate.Name {
		what = "the generic part: generated"
	}
	fmt.Fprintf(w, "%s, seeds 1-%d, -j %d, build %s\n", what, b.Seeds, b.Jobs, build)
	fmt.Fprintf(w, "  events            %d in %s wall\n", b.Events, formatNanos(float64(b.WallNanos)))
	fmt.Fprintf(w, "  events/s          %.0f\n", b.EventsPerSecond)
	fmt.Fprintf(w, "  virtual s/wall s  %.1f\n", b.VirtualPerWall)
	fmt.Fprintf(w, "  seeds/s           %.2f (%.2f at -j 1: %.2fx)\n", b.SeedsPerSecond, b.SeedsPerSecondOneJob, b.Scaling)
	if b.StandardJob == nil || b.LongRun == nil {
		return // bench -generated
	}
	j := b.StandardJob
	fmt.Fprintf(w, "standard job alone (engine.StandardConfig, %s virtual, seed 1, no faults or checkers, median of %d)\n",
		formatNanos(float64(j.VirtualNanos)), standardJobRuns)
	fmt.Fprintf(w, "  records/s         %.0f\n", j.RecordsPerSecond)
	fmt.Fprintf(w, "  messages/s        %.0f (%d delivered), kernel events/s %.0f (%d)\n", j.MessagesPerSecond, j.Messages, j.KernelEventsPerSecond, j.KernelEvents)
	fmt.Fprintf(w, "  virtual s/wall s  %.1f\n", j.VirtualPerWall)
	m := b.LongRun
	fmt.Fprintf(w, "long run (the standard job for %s virtual, its trace streamed: %d events, %s)\n",
		formatNanos(float64(m.VirtualNanos)), m.TraceEvents, formatBytes(uint64(m.TraceBytes)))
	fmt.Fprintf(w, "  live heap         %s after 1s, %s at the end (the store holding %d committed records), peak %s\n",
		formatBytes(m.FirstLiveHeap), formatBytes(m.LastLiveHeap), m.StoreRows, formatBytes(m.PeakLiveHeap))
	printSnapshotBench(w, b.Snapshots)
}

func (a *app) benchSweep(spec sweepSpec, workers int) (sweepBench, error) {
	var b sweepBench
	var err error
	progress := newProgress(a, spec.total())
	defer progress.clear()
	start := time.Now()
	execute(a.runner, spec.jobs(), workers, a.build(), func(o outcome) bool {
		progress.update(o.job, o.err == nil && o.result.Unexpected)
		if o.err != nil {
			err = o.err
			return false
		}
		b.Seeds++
		b.Events += o.result.Events
		b.VirtualNanos += o.result.VirtualNanos
		return true
	})
	b.WallNanos = max(time.Since(start).Nanoseconds(), 1)
	wallSeconds := float64(b.WallNanos) / 1e9
	b.EventsPerSecond = float64(b.Events) / wallSeconds
	b.VirtualPerWall = float64(b.VirtualNanos) / float64(b.WallNanos)
	b.SeedsPerSecond = float64(b.Seeds) / wallSeconds
	return b, err
}
