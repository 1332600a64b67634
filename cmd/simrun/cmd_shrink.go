package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
)

// shrink is `simrun shrink`: search for a smaller case that fails the same property and save
// its artifact, next to the input (never over an existing file) or where -o says.
func (a *app) shrink(args []string) int {
	fs := newFlags("shrink")
	output := fs.String("o", "", "write the smaller artifact here (default: ARTIFACT with .shrunk before .json)")
	maxRuns := positiveInt{value: 400}
	fs.Var(&maxRuns, "runs", "give up after this many runs")
	positional, status := a.parseCommand(fs, usageShrink, args)
	if status >= 0 {
		return status
	}
	if len(positional) != 1 {
		return a.fail("shrink: want exactly one artifact file, got %d arguments (usage: simrun %s)", len(positional), usageShrink)
	}
	path := positional[0]
	art, err := loadArtifact(path)
	if err != nil {
		return a.fail("shrink: %v", err)
	}
	if art.Verdict == scenarios.VerdictPass {
		return a.fail("shrink: %s records a run that passed; there is nothing to shrink", path)
	}
	if *output != "" {
		// Checked before the shrink, which may take hundreds of runs, rather than after.
		if err := checkWritable(*output); err != nil {
			return a.fail("shrink: -o %s: %v", *output, err)
		}
	}

	opts := scenarios.ShrinkOptions{MaxRuns: maxRuns.value}
	if a.progress {
		opts.Progress = func(message string) { fmt.Fprintf(a.stderr, "\r\x1b[K%s", message) }
	}
	fmt.Fprintf(a.stdout, "shrinking %s: %s on seed %d (%d faults, input %d)\n", path, art.Scenario.Name, art.Seed, len(art.Schedule.Entries), inputOf(art.Scenario))
	small, report, err := scenarios.Shrink(a.runner, art, a.build(), opts)
	if a.progress {
		fmt.Fprint(a.stderr, "\r\x1b[K")
	}
	if errors.Is(err, scenarios.ErrNotReproduced) {
		fmt.Fprintf(a.stderr, "simrun: shrink: %s\n", trimPackage(err))
		return exitUnexpected
	}
	if err != nil {
		return a.fail("shrink: %s: %s", path, trimPackage(err))
	}
	small.ShrunkFrom = path

	data := scenarios.MarshalArtifact(small)
	var written string
	if *output != "" {
		// -o names the one file shrink may overwrite.
		if err := os.WriteFile(*output, data, 0o644); err != nil {
			return a.fail("shrink: -o: %v", err)
		}
		written = *output
	} else if written, err = scenarios.CreateNew(shrunkPath(path), data); err != nil {
		return a.fail("shrink: %s", trimPackage(err))
	}

	a.printShrunk(small, report, written)
	return exitOK
}

// printShrunk says what a shrink kept, what it took and where the smaller artifact went.
func (a *app) printShrunk(small *scenarios.Artifact, report scenarios.ShrinkReport, written string) {
	fmt.Fprintf(a.stdout, "property:    %s still fails\n", report.Property)
	fmt.Fprintf(a.stdout, "faults:      %d -> %d\n", report.FaultsBefore, report.FaultsAfter)
	fmt.Fprintf(a.stdout, "input:       %d -> %d\n", report.InputBefore, report.InputAfter)
	if report.StepsBefore > 0 {
		fmt.Fprintf(a.stdout, "script:      %d -> %d steps\n", report.StepsBefore, report.StepsAfter)
	}
	if report.KeptSwarm {
		fmt.Fprintln(a.stdout, "note:        the failure needs its swarm's rates, so the faults were kept")
	}
	fmt.Fprintf(a.stdout, "runs:        %d\n", report.Runs)
	printFaults(a.stdout, small.Scenario, small.Schedule.Entries)
	for _, v := range small.Violations {
		if string(v.Property) == report.Property {
			fmt.Fprintln(a.stdout, "violation:   "+v.String())
			break
		}
	}
	fmt.Fprintf(a.stdout, "wrote:       %s\nreplay:      %s\n", written, a.replayCommand(written))
}

// checkWritable reports whether path can be written: an existing regular file that opens
// for writing (left as it is), or a new file in an existing directory where files can be
// created (tried with a temporary file, removed at once).
func checkWritable(path string) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return errors.New("is a directory")
	case err == nil && !info.Mode().IsRegular():
		return errors.New("is not a regular file")
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(path)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("no directory %s to write it in", dir)
	}
	probe, err := os.CreateTemp(dir, ".simrun-shrink-*")
	if err != nil {
		return fmt.Errorf("cannot create files in %s: %v", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// shrunkPath names the default output of shrinking path: x.json becomes x.shrunk.json.
func shrunkPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".shrunk.json"
}

func inputOf(s *scenarios.Scenario) int {
	if s.Workload.Kind == scenarios.WorkloadTokens {
		return s.Workload.Transfers
	}
	return s.Workload.Records
}
