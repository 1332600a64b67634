package main

import (
	"errors"
	"flag"

	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/scenarios/generate"
)

// genericSeedCount is the size of the default sweep's generic part: after the catalogue,
// `simrun` runs generated seeds 1 to genericSeedCount, each on the scenario
// generate.Seed draws from it. Most of the catalogue recites one rare path or one named
// bug; the generic part explores the scenario space instead, so a bug that no regime was
// written for still has a chance to show. The count keeps the whole default sweep under 30 s
// on two idle cores (about 15 s for this part at some 130 seeds a second,
// docs/speed.md), with room for a generator that draws heavier scenarios.
const genericSeedCount = 2000

// defaultGenericSeeds is the generic part's seeds when no flag says otherwise.
var defaultGenericSeeds = scenarios.SeedRange{First: 1, Last: genericSeedCount}

// errGenericWithScenario refuses -generic beside a named scenario, whose sweep has no
// generic part to size.
var errGenericWithScenario = errors.New("-generic sizes the default sweep's generic part; a sweep of -scenario has none")

// sweepParts is which parts a sweep runs: the catalogue (or one named scenario) and the
// generic part.
type sweepParts struct {
	catalogue bool                 // every built-in scenario this build can run
	generic   *scenarios.SeedRange // the generic part's seeds; nil for none
}

// chooseParts reads the sweep's flags as parts. With neither -scenario nor -generated it is
// the default sweep, both parts; -scenario all is the catalogue alone, -generated the
// generic part alone. The generic part's seeds are -generic, else -seeds, else
// defaultGenericSeeds: -seeds replaces every part's seeds, and -generic the generic part's.
func chooseParts(fs *flag.FlagSet, scenarioArg string, seeds, generic *scenarios.SeedRange, generated bool) (sweepParts, error) {
	genericSeeds := defaultGenericSeeds
	switch {
	case generic != nil:
		genericSeeds = *generic
	case seeds != nil:
		genericSeeds = *seeds
	}
	named := given(fs, "scenario")
	switch {
	case generated && named:
		return sweepParts{}, errors.New("-generated draws each seed's scenario; give no -scenario")
	case generated:
		return sweepParts{generic: &genericSeeds}, nil
	case named && generic != nil:
		return sweepParts{}, errGenericWithScenario
	case named && scenarioArg == "all":
		return sweepParts{catalogue: true}, nil
	case named:
		return sweepParts{}, nil
	}
	return sweepParts{catalogue: true, generic: &genericSeeds}, nil
}

// genericLabel is the generic part's row in a sweep's table: "generated 1-2000", so that
// the table says how much of the space was drawn.
func genericLabel(seeds scenarios.SeedRange) string {
	return generate.Name + " " + seeds.String()
}

// genericLabels names the generic part's row after its seeds in plan, if plan has one: the
// entry called generated without a digest (a scenario file of that name has one).
func genericLabels(plan []plannedScenario) map[string]string {
	for _, p := range plan {
		if p.Scenario == generate.Name && p.Digest == "" {
			return map[string]string{p.Scenario: genericLabel(p.Seeds)}
		}
	}
	return nil
}
