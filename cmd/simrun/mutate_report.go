package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ckptsim/ckptsim/mutate"
)

// writeMutateReport prints simrun mutate's figures, THE GOAL line, every mutant the
// verdicts missed, and the equivalent ones; o is nil for a report of a past run.
func writeMutateReport(w io.Writer, outcomes []*mutate.Outcome, s mutate.Summary, o *mutateOptions) {
	fmt.Fprintln(w)
	if o != nil {
		fmt.Fprintf(w, "mutants: %d run of %d sites in %s (seed %d), %d more drawn did not compile\n",
			s.Mutants, s.Sites, strings.Join(o.pkgs, ","), o.seed, s.Discarded)
	} else {
		fmt.Fprintf(w, "mutants: %d\n", s.Mutants)
	}
	fmt.Fprintf(w, "unit tests:   killed %d (%d%%), passed %d, hang %d\n",
		s.Killed, mutate.Percent(s.Killed, s.Mutants), s.Passed, s.TestsHang)
	c := s.Catches
	fmt.Fprintf(w, "sweep+explore: rule %d, verdict %d, panic only %d, refused %d, limit only %d, hang %d, not caught %d (%d of them changed no run)\n",
		c[mutate.CatchRule], c[mutate.CatchVerdict], c[mutate.CatchPanic], c[mutate.CatchError], c[mutate.CatchLimit], c[mutate.CatchHang], c[mutate.CatchNone], s.Unchanged)
	caught := c[mutate.CatchRule] + c[mutate.CatchVerdict]
	fmt.Fprintf(w, "caught by a verdict: %d of %d (%d%%); equivalent: %d\n", caught, s.Mutants, mutate.Percent(caught, s.Mutants), s.Equivalent)
	fmt.Fprintf(w, "GOAL: of the %d mutants the unit tests kill, %d (%d%%) are caught by the default sweep or the exploration through a rule, verdict or invariant (not a panic)\n",
		s.GoalOf, s.GoalCaught, mutate.Percent(s.GoalCaught, s.GoalOf))
	fmt.Fprintf(w, "\nsurvivors (%d): no rule, verdict or invariant caught them\n", s.Survivors)
	for _, out := range outcomes {
		if out.Survivor() {
			writeMutantOutcome(w, out)
		}
	}
	if s.Equivalent > 0 {
		fmt.Fprintf(w, "\nequivalent (%d), marked in mutate/equivalent.txt\n", s.Equivalent)
		for _, out := range outcomes {
			if out.Equivalent != "" {
				fmt.Fprintf(w, "  %s  %s\n    %s\n", out.ID, out.Description, out.Equivalent)
			}
		}
	}
}

// writeMutantLine prints one mutant's outcome on one line as it is measured: id, the unit
// tests' verdict, the harness's catch and where, and whether any run changed.
func writeMutantLine(w io.Writer, out *mutate.Outcome) {
	fmt.Fprintf(w, "%-60s tests %-6s %s\n", out.ID, out.Tests, catchWord(out))
}

// writeMutantOutcome prints one survivor: its id (place and operator), its change, and
// what saw it.
func writeMutantOutcome(w io.Writer, out *mutate.Outcome) {
	fmt.Fprintf(w, "  %s  %s\n", out.ID, out.Description)
	seen := "harness " + string(out.Catch)
	if out.Catch == mutate.CatchNone {
		seen = "not caught"
		if !out.Changed {
			seen += ", no run of the default sweep changed"
		}
	}
	if out.Explored != "" {
		seen += "; explored: " + out.Explored
	}
	fmt.Fprintf(w, "    tests %s; %s\n", out.Tests, seen)
	if out.Panic != "" {
		fmt.Fprintf(w, "    panic: %s\n", out.Panic)
	}
}
