package main

import (
	"fmt"
	"strings"

	"github.com/ckptsim/ckptsim/scenarios"
)

// huntPlantedBugs runs every planted-bug scenario (scenarios.PlantedBugScenarios) on seeds
// and tallies, per bug, the runs that caught it.
func (a *app) huntPlantedBugs(seeds *scenarios.SeedRange, workers int) ([]*scenarios.BugHunt, error) {
	planted := scenarios.PlantedBugScenarios()
	hunts := make(map[string]*scenarios.BugHunt, len(planted))
	out := make([]*scenarios.BugHunt, 0, len(planted))
	for _, s := range planted {
		h := scenarios.NewBugHunt(s)
		hunts[s.Name] = h
		out = append(out, h)
	}
	var err error
	spec := sweepSpec{scenarios: planted, seeds: seeds}
	execute(a.runner, spec.jobs(), workers, a.build(), func(o outcome) bool {
		if o.err != nil {
			err = o.err
			return false
		}
		hunts[o.scenario.Name].Add(o.result)
		return true
	})
	return out, err
}

// describeHunt renders a hunt as "caught 15 of 20, first seed 1: exactly-once 15, ...".
func describeHunt(h *scenarios.BugHunt) string {
	if h.Caught == 0 {
		return fmt.Sprintf("caught 0 of %d", h.Seeds)
	}
	var props []string
	for _, p := range h.PropertyNames() {
		props = append(props, fmt.Sprintf("%s %d", p, h.Properties[p]))
	}
	return fmt.Sprintf("caught %d of %d, first seed %d: %s", h.Caught, h.Seeds, h.FirstSeed, strings.Join(props, ", "))
}
