package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/exp/stats"

	"github.com/ckptsim/ckptsim/scenarios"
)

// tally accumulates the runs of one scenario for the sweep summary.
type tally struct {
	Scenario   string `json:"scenario"`
	Runs       int    `json:"runs"`
	Passed     int    `json:"passed"`
	Failed     int    `json:"failed"`
	Unknown    int    `json:"unknown"`
	Limit      int    `json:"limit"`
	Unexpected int    `json:"unexpected"`
	// Unfired counts the runs with at least one fault that never fired
	// (Result.FaultsUnfired): whatever their verdict, they did not test that fault.
	Unfired int `json:"unfired"`
	// Medians and 99th percentiles, in virtual nanoseconds, over every recovery and every
	// completed checkpoint of the scenario's runs; NaN (null in JSON) when there were none.
	RecoveryP50   jsonFloat `json:"recovery_p50_ns"`
	RecoveryP99   jsonFloat `json:"recovery_p99_ns"`
	CheckpointP50 jsonFloat `json:"checkpoint_p50_ns"`
	CheckpointP99 jsonFloat `json:"checkpoint_p99_ns"`

	recovery   []float64
	checkpoint []float64
}

func (t *tally) add(r *scenarios.Result) {
	t.Runs++
	switch r.Verdict {
	case scenarios.VerdictPass:
		t.Passed++
	case scenarios.VerdictFail:
		t.Failed++
	case scenarios.VerdictUnknown:
		t.Unknown++
	default:
		t.Limit++
	}
	if r.Unexpected {
		t.Unexpected++
	}
	if len(r.FaultsUnfired) > 0 {
		t.Unfired++
	}
	for _, ns := range r.RecoveryNanos {
		t.recovery = append(t.recovery, float64(ns))
	}
	for _, ns := range r.CheckpointNanos {
		t.checkpoint = append(t.checkpoint, float64(ns))
	}
}

// finish computes the quantiles.
func (t *tally) finish() {
	t.RecoveryP50, t.RecoveryP99 = quantiles(t.recovery)
	t.CheckpointP50, t.CheckpointP99 = quantiles(t.checkpoint)
}

// quantiles returns the median and the 99th percentile of values (whole nanoseconds),
// interpolated between neighbours and rounded to the nearest nanosecond.
//
// The interpolation is floating point, where Go may fuse a multiply and an add into one
// instruction on some architectures and round the result differently. Rounding to whole
// nanoseconds hides that difference except when the exact quantile lies within a hair of
// half a nanosecond, so on another architecture a summary quantile may, rarely, differ in its
// last nanosecond. The runs and their trace hashes are exact; only this summary statistic is
// not.
func quantiles(values []float64) (p50, p99 jsonFloat) {
	if len(values) == 0 {
		return jsonFloat(math.NaN()), jsonFloat(math.NaN())
	}
	q := stats.Quantiles(values, 0.5, 0.99)
	return jsonFloat(math.Round(q[0])), jsonFloat(math.Round(q[1]))
}

// jsonFloat is a float that marshals NaN as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return fmt.Appendf(nil, "%.0f", float64(f)), nil
}

// summary is the tallies of a sweep, one per scenario in sweep order.
type summary struct {
	tallies []*tally
	// labels names a scenario's row in the table when its name alone says too little (the
	// generic part's row says its seeds); the JSON keeps the name.
	labels map[string]string
}

func (s *summary) add(r *scenarios.Result) {
	i := slices.IndexFunc(s.tallies, func(t *tally) bool { return t.Scenario == r.Scenario })
	if i < 0 {
		s.tallies = append(s.tallies, &tally{Scenario: r.Scenario})
		i = len(s.tallies) - 1
	}
	s.tallies[i].add(r)
}

func (s *summary) total() *tally {
	all := &tally{Scenario: "total"}
	for _, t := range s.tallies {
		t.finish()
		all.Runs += t.Runs
		all.Passed += t.Passed
		all.Failed += t.Failed
		all.Unknown += t.Unknown
		all.Limit += t.Limit
		all.Unexpected += t.Unexpected
		all.Unfired += t.Unfired
		all.recovery = append(all.recovery, t.recovery...)
		all.checkpoint = append(all.checkpoint, t.checkpoint...)
	}
	all.finish()
	return all
}

// print writes the summary table: runs and verdicts per scenario, the runs in which a fault
// never fired, then the medians and 99th percentiles of recovery time and checkpoint
// duration, in virtual time.
func (s *summary) print(w io.Writer) {
	rows := [][]string{{"scenario", "runs", "passed", "failed", "unknown", "limit", "unexpected", "unfired", "recovery p50", "p99", "checkpoint p50", "p99"}}
	for _, t := range append(slices.Clone(s.tallies), s.total()) {
		name := cmp.Or(s.labels[t.Scenario], t.Scenario)
		rows = append(rows, []string{name, fmt.Sprint(t.Runs), fmt.Sprint(t.Passed), fmt.Sprint(t.Failed),
			fmt.Sprint(t.Unknown), fmt.Sprint(t.Limit), fmt.Sprint(t.Unexpected), fmt.Sprint(t.Unfired),
			formatNanos(float64(t.RecoveryP50)), formatNanos(float64(t.RecoveryP99)),
			formatNanos(float64(t.CheckpointP50)), formatNanos(float64(t.CheckpointP99))})
	}
	printTable(w, rows)
}

// printTable writes rows as columns two spaces apart: the first column (names) left-aligned,
// the others (numbers) right-aligned.
func printTable(w io.Writer, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				line.WriteString(cell + pad)
			} else {
				line.WriteString("  " + pad + cell)
			}
		}
		fmt.Fprintln(w, line.String())
	}
}
