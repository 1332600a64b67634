package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/ckptsim/ckptsim/scenarios"
)

// list is `simrun list`: the built-in scenarios with what they expect, or with -json each
// whole scenario on its own line (the same JSON a scenario file holds).
func (a *app) list(args []string) int {
	fs := newFlags("list")
	asJSON := fs.Bool("json", false, "print each scenario as one JSON line")
	positional, status := a.parseCommand(fs, usageList, args)
	if status >= 0 {
		return status
	}
	if len(positional) > 0 {
		return a.fail("list: unexpected argument %q (usage: simrun %s)", positional[0], usageList)
	}
	all := a.builtins()
	if *asJSON {
		for _, s := range all {
			writeJSON(a.stdout, s)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tmode\ttopology\tworkload\tsink\tfaults\tseeds\texpect")
	for _, s := range all {
		sink := "-"
		if s.Sink != nil {
			sink = s.Sink.Kind
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Mode, shortTopology(s), s.Workload.Kind, sink, faultStyle(s), s.Seeds, describeExpect(s.Expect))
	}
	tw.Flush()
	return exitOK
}

func shortTopology(s *scenarios.Scenario) string {
	t := s.Topology
	switch {
	case t.Kind == scenarios.TopologyExplicit:
		return fmt.Sprintf("explicit(%d nodes)", len(t.Nodes))
	case s.Mode == scenarios.ModeChandyLamport:
		return fmt.Sprintf("ring(%d)", t.Processes)
	}
	return fmt.Sprintf("%s/p%d", t.Kind, t.Parallelism)
}

func faultStyle(s *scenarios.Scenario) string {
	switch {
	case s.Swarm != nil:
		return "swarm"
	case len(s.Faults) > 0:
		return fmt.Sprintf("%d scheduled", len(s.Faults))
	case len(s.Script) > 0:
		return "script"
	}
	return "none"
}

func describeExpect(e scenarios.Expect) string {
	if e.Verdict == scenarios.VerdictFail {
		return "fail: " + string(e.Property)
	}
	return e.Verdict
}
