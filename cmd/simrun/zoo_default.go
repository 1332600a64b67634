package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/ckptsim/ckptsim/zoo"
)

// zooCatch is what one set of a mutated simrun's runs caught: a bug's hunting ground, or the
// default sweep's generic part.
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

// caughtOf is the generic cell of a bug's row: "12/2000", or "-" where nothing was run.
func (c *zooCatch) caughtOf() string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d", c.SeedsCaught, c.SeedsRun)
}

// describe is the generic part's line under a bug's row: how it caught the bug (the
// properties, most runs first) or that it did not.
func (c *zooCatch) describe(part string) string {
	switch {
	case c == nil:
		return "not run"
	case c.SeedsCaught == 0 && c.SeedsPanic > 0:
		return fmt.Sprintf("not caught in %s (a panic on %d seed%s): only the regimes written for it catch it", part, c.SeedsPanic, plural(c.SeedsPanic))
	case c.SeedsCaught == 0:
		return fmt.Sprintf("not caught in %s: only the regimes written for it catch it", part)
	}
	return fmt.Sprintf("first seed %d, %s", c.FirstSeed, c.propertyList())
}

// huntDefault runs the default sweep with b planted, its two parts apart: the catalogue
// (exactly as the default sweep runs it) and the generic part over o.generic, and notes in h
// what each caught. With o.firstOnly the generic part stops at its first unexpected run, so
// that a wide range costs only the seeds up to the first catch.
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
	args := []string{"sweep", "-generated", "-generic", o.generic.String(), "-json", "-j", j, "-artifacts", artifacts}
	if o.firstOnly {
		args = append(args, "-failfast")
	}
	generic, err := runMutated(exe, b, args...)
	if err != nil {
		return err
	}
	c := newZooCatch()
	// Every generated scenario expects a pass: any property failure is a catch.
	firstArtifact := c.tally(generic, "", false)
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

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
