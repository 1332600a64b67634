package main

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/mutate"
)

// runOne builds simrun with the i-th mutant of the order overlaid and measures it: the
// mutated package's unit tests, the default sweep, and an exploration when the sweep's
// verdicts missed it. A mutant that does not compile is mutate.ErrNoCompile.
func (m *mutation) runOne(i int) (*mutate.Outcome, error) {
	mut := m.order[i]
	dir, remove, err := mutate.TempDir(m.opts.keep, fmt.Sprintf("%03d", i))
	if err != nil {
		return nil, fmt.Errorf("mutate: %v", err)
	}
	defer remove()
	overlay, err := mutate.WriteOverlay(m.root, mut, dir)
	if err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, "simrun")
	if err := mutate.Build(m.root, overlay, exe); err != nil {
		return nil, err
	}
	out := &mutate.Outcome{Mutant: mut, Description: mut.Description(), Equivalent: m.equiv[mut.ID]}
	if out.Tests, out.TestsFailed, err = mutate.UnitTests(m.root, overlay, mut.Package, mutateTestTimeout); err != nil {
		return nil, err
	}
	runs, hung, err := m.sweep(exe, dir)
	if errors.Is(err, mutate.ErrRefused) {
		out.Catch, out.Stage, out.Changed, out.Panic = mutate.CatchError, "sweep", true, strings.TrimPrefix(err.Error(), "mutate: ")
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", mut.ID, err)
	}
	out.Changed = hung || mutate.Changed(runs, m.baseline)
	out.Catch, out.Properties = mutate.Classify(runs)
	out.Stage, out.Panic = "sweep", mutate.FirstPanic(runs)
	if hung && !out.Catch.Caught() {
		// A sweep that ran out of time after a verdict named the rule keeps that catch:
		// failing runs write artifacts and run slower, and the rule is found already.
		out.Catch = mutate.CatchHang
	}
	if out.Catch.Caught() || hung || m.opts.explore == 0 {
		return out, nil
	}
	explored, how, err := m.explore(exe, dir)
	if errors.Is(err, mutate.ErrRefused) {
		return out, nil // the sweep ran: an exploration that cannot start adds nothing
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", mut.ID, err)
	}
	out.Explored = how
	if c, props := mutate.Classify(explored); mutate.Better(c, out.Catch) {
		out.Catch, out.Properties, out.Stage = c, props, "explore"
		out.Panic = mutate.FirstPanic(explored)
	}
	return out, nil
}

// sweep runs the default sweep of the mutated simrun at exe. It stops at the first
// unexpected run, since a rule or a verdict there is the best catch there is; when that run
// only panicked or hit a limit, the sweep runs again whole, to look for a better catch.
func (m *mutation) sweep(exe, dir string) ([]mutate.Run, bool, error) {
	args := []string{"-json", "-j", m.sweepJ, "-artifacts", filepath.Join(dir, "default")}
	runs, hung, err := mutate.RunSimrun(exe, dir, unshardedEnv(), mutateSweepTimeout, append(args, "-failfast")...)
	if err != nil || hung {
		return runs, hung, err
	}
	if c, _ := mutate.Classify(runs); c == mutate.CatchNone || c.Caught() {
		return runs, false, nil
	}
	return mutate.RunSimrun(exe, dir, unshardedEnv(), mutateSweepTimeout, args...)
}

// exploreChunk is the seeds of one sweep -generated in the fallback exploration, small so
// that the budget is checked often.
const exploreChunk = 8

// explore looks further for a mutant the default sweep's verdicts missed, within the
// budget: simrun explore when the mutated simrun has it, else sweep -generated over
// successive seeds until the budget is spent or something unexpected turns up. It returns
// the runs it saw and how it explored.
func (m *mutation) explore(exe, dir string) ([]mutate.Run, string, error) {
	budget := m.opts.explore
	if mutate.HasCommand(exe, "explore") {
		// Exactly the flags explore's contract names: its artifacts go where it puts them.
		runs, _, err := mutate.RunSimrun(exe, dir, unshardedEnv(), budget+time.Minute,
			"explore", "-for", budget.String(), "-first", "-json")
		return runs, "explore -for " + budget.String(), err
	}
	var all []mutate.Run
	start := time.Now()
	first := uint64(1)
	for time.Since(start) < budget {
		seeds := fmt.Sprintf("%d-%d", first, first+exploreChunk-1)
		runs, hung, err := mutate.RunSimrun(exe, dir, unshardedEnv(), budget-time.Since(start)+30*time.Second,
			"sweep", "-generated", "-seeds", seeds, "-json", "-failfast", "-j", m.sweepJ, "-artifacts", filepath.Join(dir, "generated"))
		if err != nil {
			return nil, "", err
		}
		all = append(all, runs...)
		first += exploreChunk
		if c, _ := mutate.Classify(runs); c != mutate.CatchNone || hung {
			break
		}
	}
	return all, fmt.Sprintf("sweep -generated -seeds 1-%d", first-1), nil
}

// execOutput runs exe with args and returns what it printed on stdout.
func execOutput(exe string, args ...string) (string, error) {
	out, err := exec.Command(exe, args...).Output()
	return strings.TrimSpace(string(out)), err
}

// catchWord says in a word or two how the harness saw an outcome, for progress lines.
func catchWord(o *mutate.Outcome) string {
	switch {
	case o.Catch == mutate.CatchRule:
		return "caught by " + strings.Join(o.Properties, ", ") + " in the " + o.Stage
	case o.Catch == mutate.CatchNone && !o.Changed:
		return "not caught (no run changed)"
	case o.Catch == mutate.CatchNone:
		return "not caught"
	}
	return "harness " + string(o.Catch) + " in the " + o.Stage
}
