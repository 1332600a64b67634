package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// printPlan writes the seed and everything derived from it before a run starts, so that a
// run that hangs or crashes has already said how to reproduce it (TigerBeetle's VOPR does
// the same).
func printPlan(w io.Writer, p *scenarios.Plan) {
	s := p.Scenario
	row := func(name, value string) { fmt.Fprintf(w, "%-12s %s\n", name+":", value) }
	row("seed", fmt.Sprint(p.Seed))
	name := s.Name
	if s.IsNegativeControl() {
		name += " (negative control: expects " + string(s.Expect.Property) + " to fail)"
	}
	row("scenario", name)
	row("mode", s.Mode)
	row("topology", describeTopology(s))
	row("workload", describeWorkload(s))
	if s.Sink != nil {
		sink := s.Sink.Kind
		if s.Sink.TransactionTimeout != 0 {
			sink += " transaction_timeout=" + s.Sink.TransactionTimeout.String()
		}
		if s.Sink.MaxPendingTransactions != 0 {
			sink += " max_pending_transactions=" + strconv.Itoa(s.Sink.MaxPendingTransactions)
		}
		row("sink", sink)
	}
	row("checkpoint", describeCheckpoint(s))
	l := s.Limits
	row("limits", fmt.Sprintf("fault_phase=%s heal_phase=%s liveness_bound=%s max_virtual_time=%s max_events=%d",
		l.FaultPhase, l.HealPhase, l.LivenessBound, l.MaxVirtualTime, l.MaxEvents))
	row("checks", joinProperties(p.Properties))
	for _, o := range p.Options {
		row(o.Name, o.Value)
	}
	source := "scheduled"
	if s.Swarm != nil {
		source = "drawn by swarm"
	}
	row("faults", fmt.Sprintf("%d %s", len(p.Faults.Entries), source))
	printFaults(w, s, p.Faults.Entries)
	if len(s.Script) > 0 {
		row("script", fmt.Sprintf("%d steps", len(s.Script)))
	}
}

// printFaults writes a schedule, one fault a line, and under each network or data fault the
// host links it acts on. The simulator connects hosts, not tasks, so such a fault hits every
// channel between the two hosts, not only the one it names; the plan says so rather than let
// a violation on another channel look like a fault that missed.
func printFaults(w io.Writer, s *scenarios.Scenario, entries []faults.Entry) {
	for _, e := range entries {
		fmt.Fprintln(w, "  "+e.String())
		for _, hl := range s.FaultHostLinks(e.Fault) {
			fmt.Fprintf(w, "    acts on host link %s->%s, and so on all it carries: %s\n", hl.From, hl.To, describeLinks(hl.Carries))
		}
	}
}

// maxLinksShown bounds the links listed under one fault; a wide shuffle has hundreds.
const maxLinksShown = 6

func describeLinks(links []faults.Link) string {
	var names []string
	for i, l := range links {
		if i == maxLinksShown {
			names = append(names, fmt.Sprintf("and %d more", len(links)-i))
			break
		}
		names = append(names, l.From+"->"+l.To)
	}
	return strings.Join(names, ", ")
}

func describeTopology(s *scenarios.Scenario) string {
	t := s.Topology
	switch {
	case t.Kind == scenarios.TopologyExplicit:
		return fmt.Sprintf("explicit, %d nodes, %d links", len(t.Nodes), len(t.Links))
	case s.Mode == scenarios.ModeChandyLamport:
		return fmt.Sprintf("%s of %d processes", t.Kind, t.Processes)
	}
	desc := fmt.Sprintf("%s parallelism=%d", t.Kind, t.Parallelism)
	if t.Stages != 0 {
		desc += fmt.Sprintf(" stages=%d", t.Stages)
	}
	if t.Inputs != 0 {
		desc += fmt.Sprintf(" inputs=%d", t.Inputs)
	}
	if t.MaxParallelism != 0 {
		desc += fmt.Sprintf(" max_parallelism=%d", t.MaxParallelism)
	}
	return desc
}

func describeWorkload(s *scenarios.Scenario) string {
	w := s.Workload
	switch w.Kind {
	case scenarios.WorkloadTokens:
		desc := fmt.Sprintf("tokens transfers=%d max_transfer=%d initial_tokens=%d record_interval=%s",
			w.Transfers, w.MaxTransfer, w.InitialBalance(), w.RecordInterval)
		var own []string
		for _, n := range s.Topology.Nodes {
			if n.Tokens != nil {
				own = append(own, fmt.Sprintf("%s=%d", n.Name, *n.Tokens))
			}
		}
		if len(own) > 0 {
			desc += fmt.Sprintf(" own_tokens=%s total=%d", strings.Join(own, ","), s.TokenTotal())
		}
		return desc
	}
	desc := fmt.Sprintf("%s records=%d", w.Kind, w.Records)
	if w.Kind == scenarios.WorkloadKeyedSum {
		desc += fmt.Sprintf(" keys=%d", w.Keys)
	}
	desc += fmt.Sprintf(" record_interval=%s", w.RecordInterval)
	if w.Splits > 0 {
		desc += fmt.Sprintf(" splits=%d", w.Splits)
	}
	if w.Partitions > 0 {
		desc += fmt.Sprintf(" partitions=%d", w.Partitions)
	}
	return desc
}

func describeCheckpoint(s *scenarios.Scenario) string {
	c := s.Checkpoint
	desc := fmt.Sprintf("interval=%s timeout=%s max_concurrent=%d", c.Interval, c.Timeout, c.MaxConcurrent)
	if !c.IsPeriodic() {
		desc = fmt.Sprintf("periodic=false timeout=%s max_concurrent=%d", c.Timeout, c.MaxConcurrent)
	}
	if c.AlignmentTimeout != 0 {
		desc += " alignment_timeout=" + c.AlignmentTimeout.String()
	}
	return desc
}

// printResult writes what a run showed, after its plan.
func printResult(w io.Writer, r *scenarios.Result) {
	printResultTimed(w, r, fmt.Sprintf("%s virtual, %s wall%s", formatNanos(float64(r.VirtualNanos)), formatNanos(float64(r.WallNanos)), speedup(r)))
}

// printResultTimed is printResult with the time line given: a live run has no virtual time.
func printResultTimed(w io.Writer, r *scenarios.Result, time string) {
	row := func(name, value string) { fmt.Fprintf(w, "%-12s %s\n", name+":", value) }
	row("verdict", describeVerdict(r))
	if len(r.Violations) > 0 {
		omitted := 0
		for _, n := range r.Omitted {
			omitted += n
		}
		count := fmt.Sprint(len(r.Violations))
		if omitted > 0 {
			count = fmt.Sprintf("%d (%d listed)", len(r.Violations)+omitted, len(r.Violations))
		}
		row("violations", count)
		for i, v := range r.Violations {
			fmt.Fprintln(w, "  "+v.String())
			last := i == len(r.Violations)-1 || r.Violations[i+1].Property != v.Property
			if n := r.Omitted[v.Property]; last && n > 0 {
				fmt.Fprintf(w, "  ... and %d more %s\n", n, v.Property)
			}
			if d := r.Diffs[v.Property]; last && d != "" {
				fmt.Fprintf(w, "  %s, expected (-) against committed (+) counts of the first records that differ:\n", v.Property)
				for _, line := range strings.Split(strings.TrimRight(d, "\n"), "\n") {
					fmt.Fprintln(w, "    "+line)
				}
			}
		}
	}
	if r.Panic != "" {
		fmt.Fprintln(w, "  (the panic's stack is in the artifact)")
	}
	for _, u := range r.Undecided {
		row("undecided", u)
	}
	for _, u := range r.Unexercised {
		row("unexercised", u)
	}
	row("trace", fmt.Sprintf("%s (%d events)", r.TraceHash, r.Events))
	row("time", time)
	row("checkpoints", fmt.Sprintf("%d completed, %d aborted", r.CheckpointsCompleted, r.CheckpointsAborted))
	row("injected", fmt.Sprintf("%d of %d faults", r.FaultsInjected, len(r.Faults)))
	for _, u := range r.UnfiredFaults() {
		row("never fired", u)
	}
}

// describeVerdict says the verdict and how it compares with the expectation.
func describeVerdict(r *scenarios.Result) string {
	expected := r.Expected
	if r.ExpectedProperty != "" {
		expected += " (" + string(r.ExpectedProperty) + ")"
	}
	if r.Unexpected {
		return fmt.Sprintf("%s, UNEXPECTED: %s (expected %s)", r.Verdict, r.Why, expected)
	}
	return fmt.Sprintf("%s, as expected (%s)", r.Verdict, expected)
}

func speedup(r *scenarios.Result) string {
	if r.WallNanos <= 0 || r.VirtualNanos <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.0fx)", float64(r.VirtualNanos)/float64(r.WallNanos))
}

// formatNanos renders a span with three significant digits in a fitting unit.
func formatNanos(ns float64) string {
	if math.IsNaN(ns) {
		return "-"
	}
	units := []struct {
		name string
		size float64
	}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}}
	for _, u := range units {
		if math.Abs(ns) >= u.size {
			return trimFloat(ns/u.size) + u.name
		}
	}
	return fmt.Sprintf("%.0fns", ns)
}

func trimFloat(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// joinProperties lists properties for a person: "a, b, c".
func joinProperties(props []checker.Property) string {
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// writeJSON writes v as one line.
func writeJSON(w io.Writer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("simrun: marshalling %T: %v", v, err))
	}
	w.Write(append(data, '\n'))
}

// forJSON returns r with empty lists as [] rather than null, so that consumers of the JSON
// lines need not tell the two apart.
func forJSON(r *scenarios.Result) *scenarios.Result {
	c := *r
	if c.Violations == nil {
		c.Violations = []checker.Violation{}
	}
	if c.Faults == nil {
		c.Faults = []faults.Entry{}
	}
	if c.RecoveryNanos == nil {
		c.RecoveryNanos = []int64{}
	}
	if c.CheckpointNanos == nil {
		c.CheckpointNanos = []int64{}
	}
	if c.FaultsUnfired == nil {
		c.FaultsUnfired = []int{}
	}
	return &c
}
