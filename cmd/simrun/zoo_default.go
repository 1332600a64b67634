package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/zoo"
)

// zooCatch is what one set of a mutated simrun's runs caught: a bug's hunting ground, or the
// default sweep's generic part up to its first catch (so SeedsCaught is 0 or 1 there, and
// SeedsRun the seeds it took).
type zooCatch struct {
	// SeedsRun runs, SeedsCaught of them failed a property, and SeedsPanic more showed only
	// a panic. FirstSeed is the lowest catching seed, 0 if none.
	SeedsRun    int    `json:"seeds_run"`
	SeedsCaught int    `json:"seeds_caught"`
	SeedsPanic  int    `json:"seeds_panic,omitempty"`
	FirstSeed   uint64 `json:"first_seed"`
	// CaughtSeeds are the catching seeds, in order (with -keep, each one's artifact is kept
	// under KEEP/ID).
	CaughtSeeds []uint64 `json:"caught_seeds"`
	// Properties counts, per property, the runs that violated it.
	Properties map[string]int `json:"properties"`
	// Replay replays the first catch (the generic part's; the ground's is the hunt's).
	Replay string `json:"replay,omitempty"`
}

func newZooCatch() zooCatch {
	return zooCatch{Properties: map[string]int{}, CaughtSeeds: []uint64{}}
}

// firstCell is the generic cell of a bug's row: the first catching seed, "none", or "-"
// where nothing was run.
func (c *zooCatch) firstCell() string {
	switch {
	case c == nil:
		return "-"
	case c.FirstSeed == 0:
		return "none"
	}
	return c.firstSeed()
}

// describe is the generic part's line under a bug's row: how its first catch caught the bug
// (the properties violated) or that nothing in part did.
func (c *zooCatch) describe(part string) string {
	switch {
	case c == nil:
		return "not run"
	case c.SeedsCaught == 0 && c.SeedsPanic > 0:
		return fmt.Sprintf("not caught in %s (a panic on %d seed%s): only the regimes written for it catch it", part, c.SeedsPanic, plural(c.SeedsPanic))
	case c.SeedsCaught == 0:
		return fmt.Sprintf("not caught in %s: only the regimes written for it catch it", part)
	}
	// One run caught it, so the properties need no counts.
	var names []string
	for p := range c.Properties {
		names = append(names, p)
	}
	slices.Sort(names)
	line := fmt.Sprintf("first seed %d, by %s", c.FirstSeed, strings.Join(names, ", "))
	if c.SeedsPanic > 0 {
		line += fmt.Sprintf(" (after a panic on %d seed%s)", c.SeedsPanic, plural(c.SeedsPanic))
	}
	return line
}

// huntDefault runs the default sweep with b planted, its two parts apart: the catalogue
// (exactly as the default sweep runs it) and the generic part over o.generic, and notes in h
// what each caught.
func (a *app) huntDefault(h *zooHunt, exe string, b *zoo.Bug, o zooOptions, dir string) error {
	j := strconv.Itoa(o.workers)
	artifacts := filepath.Join(dir, "default")
	catalogue, err := runMutated(exe, b, "sweep", "-scenario", "all", "-json", "-j", j, "-artifacts", artifacts)
	if err != nil {
		return err
	}
	for _, r := range catalogue {
		if !r.Unexpected {
			continue
		}
		switch r.catch("", false) {
		case catchProperty:
			h.CaughtCatalogue = true
		case catchPanic:
			h.CataloguePanic = true
		}
	}
	h.CataloguePanic = h.CataloguePanic && !h.CaughtCatalogue
	c, firstArtifact, err := huntGeneric(exe, b, o.generic, j, artifacts)
	if err != nil {
		return err
	}
	h.Generic, h.GenericSeeds = &c, o.generic.String()
	switch {
	case c.FirstSeed == 0:
	case o.keep != "" && firstArtifact != "":
		c.Replay = shellQuote(exe) + " replay " + shellQuote(firstArtifact)
	default:
		c.Replay = fmt.Sprintf("%s zoo -bug %s -generic %d-%d -keep simrun-zoo", a.invocation, b.ID, c.FirstSeed, c.FirstSeed)
	}
	return nil
}

// huntGeneric runs the generic part over seeds with b planted up to its first catch, and
// returns what it saw and the catch's artifact. The first catching seed and how it caught
// the bug are what the zoo reports, and stopping there makes a bug cost the seeds it takes
// to find, the whole part only when it is never caught. Each sweep stops at its first
// unexpected run (-failfast, in seed order whatever -j is); one that is no catch (a panic
// alone, a limit) resumes from the next seed, so the first catch is what a whole sweep
// would find.
func huntGeneric(exe string, b *zoo.Bug, seeds scenarios.SeedRange, j, artifacts string) (zooCatch, string, error) {
	c := newZooCatch()
	from := seeds.First
	for {
		part := scenarios.SeedRange{First: from, Last: seeds.Last}
		runs, err := runMutated(exe, b, "sweep", "-generated", "-generic", part.String(), "-failfast", "-json", "-j", j, "-artifacts", artifacts)
		if err != nil {
			return c, "", err
		}
		// Every generated scenario expects a pass: any property failure is a catch.
		firstArtifact := c.tally(runs, "", false)
		last := runs[len(runs)-1].Seed
		if c.FirstSeed != 0 || last >= seeds.Last {
			return c, firstArtifact, nil
		}
		from = last + 1 // each round runs at least one seed, so the loop ends
	}
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
