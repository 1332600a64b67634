package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/mutate"
	"github.com/ckptsim/ckptsim/zoo"
)

// mutateOptions are simrun mutate's flags, checked.
type mutateOptions struct {
	n       int
	seed    uint64
	pkgs    []string
	jobs    int
	explore time.Duration
	asJSON  bool
	keep    string
	list    bool
	ids     []string // -id: exactly these mutants, in this order
	report  string   // -report: report the outcomes a -json run wrote, run nothing
}

// mutateCommand is `simrun mutate`: draw a sample of mutants of the protocol and the engine
// (package mutate), and for each run the mutated package's unit tests, the default sweep
// and, when the sweep's verdicts miss it, a short exploration, in a simrun built with the
// mutant overlaid. It reports how each mutant was caught and the share of the mutants the
// unit tests kill that a verdict catches too. Exit status: 0 when it measured, 2 for bad
// usage. It needs the source tree and a Go toolchain, like simrun zoo.
func (a *app) mutateCommand(args []string) int {
	o, status := a.mutateFlags(args)
	if status >= 0 {
		return status
	}
	if o.report != "" {
		return a.reportMutants(o.report)
	}
	wd, err := os.Getwd()
	if err != nil {
		return a.fail("mutate: %v", err)
	}
	root, err := zoo.FindRoot(wd)
	if err != nil {
		return a.fail("%v", strings.Replace(err.Error(), "zoo: ", "mutate: ", 1))
	}
	sites, err := mutate.Enumerate(root, o.pkgs)
	if err != nil {
		return a.fail("mutate: -pkg: %s", strings.TrimPrefix(err.Error(), "mutate: "))
	}
	order := mutate.Order(sites, o.seed)
	if o.ids != nil {
		if order, err = pickMutants(sites, o.ids); err != nil {
			return a.fail("mutate: -id: %v", err)
		}
	}
	if o.list {
		a.writeMutantList(order, o)
		return exitOK
	}
	if o.keep != "" {
		if o.keep, err = filepath.Abs(o.keep); err != nil {
			return a.fail("mutate: -keep: %v", err)
		}
	}
	m := &mutation{app: a, root: root, opts: o, order: order}
	if err := m.prepare(); err != nil {
		return a.fail("%v", err)
	}
	defer m.cleanup()
	emit := func(out *mutate.Outcome) { writeMutantLine(a.stdout, out) }
	if o.asJSON {
		emit = func(out *mutate.Outcome) { writeJSON(a.stdout, out) }
	}
	outcomes, discarded, err := m.runAll(emit)
	if err != nil {
		return a.fail("%v", err)
	}
	summary := mutate.Tally(outcomes, len(sites), discarded)
	if o.asJSON {
		writeJSON(a.stdout, summary)
		return exitOK
	}
	writeMutateReport(a.stdout, outcomes, summary, o)
	return exitOK
}

// mutateFlags parses and checks simrun mutate's flags: an options value and -1, or an exit
// status to return at once.
func (a *app) mutateFlags(args []string) (*mutateOptions, int) {
	fs := newFlags("mutate")
	n := fs.Int("n", 20, "mutants to run (with -list, 0 lists every site)")
	var seed seedFlag
	seed.value = 1
	fs.Var(&seed, "seed", "seed of the sample")
	pkgs := fs.String("pkg", "protocol,engine", "comma-separated package folders to mutate")
	jobs := positiveInt{value: 1}
	fs.Var(&jobs, "j", "mutants in parallel (each go build and go test is parallel already)")
	explore := fs.Duration("explore", 10*time.Second, "budget of the exploration of a mutant the default sweep misses (0: none)")
	asJSON := fs.Bool("json", false, "print one JSON object per mutant and a summary")
	keep := fs.String("keep", "", "keep each mutant's overlay, binary and artifacts in DIR/NNN")
	list := fs.Bool("list", false, "list the sample's mutants without running them")
	ids := fs.String("id", "", "run exactly these mutants (comma-separated ids, as -list prints them) instead of a sample")
	report := fs.String("report", "", "run nothing: report the mutants a -json run wrote to FILE (even one cut short), with today's equivalent marks")
	positional, status := a.parseCommand(fs, usageMutate, args)
	if status >= 0 {
		return nil, status
	}
	switch {
	case len(positional) > 0:
		return nil, a.fail("mutate: unexpected argument %q (usage: simrun %s)", positional[0], usageMutate)
	case *n < 0 || (*n == 0 && !*list):
		return nil, a.fail("mutate: -n must be a positive number of mutants, got %d", *n)
	case *explore < 0:
		return nil, a.fail("mutate: -explore must not be negative, got %v", *explore)
	}
	var dirs []string
	for _, p := range strings.Split(*pkgs, ",") {
		p = strings.Trim(strings.TrimSpace(p), "/")
		if p == "" || strings.Contains(p, "..") || filepath.IsAbs(p) || strings.HasPrefix(p, ".") {
			return nil, a.fail("mutate: -pkg wants package folders of the module like protocol,engine, got %q", *pkgs)
		}
		if !slices.Contains(dirs, p) {
			dirs = append(dirs, p)
		}
	}
	o := &mutateOptions{n: *n, seed: seed.value, pkgs: dirs, jobs: jobs.value, explore: *explore, asJSON: *asJSON, keep: *keep, list: *list, report: *report}
	if *ids != "" {
		o.ids = strings.Split(*ids, ",")
		o.n = len(o.ids)
	}
	return o, -1
}

// writeMutantList prints mutate -list: the first n mutants of the sample's order (every
// site for -n 0), one a line or one JSON object each.
func (a *app) writeMutantList(order []*mutate.Mutant, o *mutateOptions) {
	if o.n > 0 && o.n < len(order) {
		order = order[:o.n]
	}
	for _, m := range order {
		if o.asJSON {
			writeJSON(a.stdout, struct {
				*mutate.Mutant
				Description string `json:"description"`
			}{m, m.Description()})
			continue
		}
		fmt.Fprintf(a.stdout, "%s  %s\n", m.ID, m.Description())
	}
}

// pickMutants returns the mutants of sites with ids, in the order given, or an error naming
// an id no site has (a stale one: its file changed since it was listed).
func pickMutants(sites []*mutate.Mutant, ids []string) ([]*mutate.Mutant, error) {
	byID := map[string]*mutate.Mutant{}
	for _, m := range sites {
		byID[m.ID] = m
	}
	var out []*mutate.Mutant
	for _, id := range ids {
		m, ok := byID[strings.TrimSpace(id)]
		if !ok {
			return nil, fmt.Errorf("no mutant %q in %s (simrun mutate -list -n 0 lists them)", id, "the packages given by -pkg")
		}
		out = append(out, m)
	}
	return out, nil
}
