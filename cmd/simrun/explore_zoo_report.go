package main

import (
	"fmt"
	"math"
	"slices"
)

// exploreZooRow is one bug of explore -zoo: both explorations.
type exploreZooRow struct {
	Bug     string       `json:"bug"`
	Guided  exploreCatch `json:"guided"`
	Uniform exploreCatch `json:"uniform"`
}

func (r *exploreZooRow) set(uniform bool, c exploreCatch) {
	if uniform {
		r.Uniform = c
	} else {
		r.Guided = c
	}
}

// catchFigures sums one mode's explorations over the bugs: how many it caught, and the
// median and largest runs and seconds to the catch. A bug not caught counts as more than
// any catch: a median or a largest that falls on one is reported as not caught (nil).
type catchFigures struct {
	Caught        int      `json:"caught"`
	Bugs          int      `json:"bugs"`
	MedianRuns    *int     `json:"median_runs"`
	MedianSeconds *float64 `json:"median_seconds"`
	MaxRuns       *int     `json:"max_runs"`
	MaxSeconds    *float64 `json:"max_seconds"`
}

func figuresOf(catches []exploreCatch) catchFigures {
	f := catchFigures{Bugs: len(catches)}
	var runs, seconds []float64
	for _, c := range catches {
		if c.Caught {
			f.Caught++
			runs, seconds = append(runs, float64(c.Run)), append(seconds, c.Seconds)
		} else {
			runs, seconds = append(runs, math.Inf(1)), append(seconds, math.Inf(1))
		}
	}
	if len(catches) == 0 {
		return f
	}
	slices.Sort(runs)
	slices.Sort(seconds)
	middle, last := (len(catches)-1)/2, len(catches)-1
	f.MedianRuns, f.MaxRuns = finiteInt(runs[middle]), finiteInt(runs[last])
	f.MedianSeconds, f.MaxSeconds = finite(seconds[middle]), finite(seconds[last])
	return f
}

func finite(v float64) *float64 {
	if math.IsInf(v, 1) {
		return nil
	}
	return &v
}

func finiteInt(v float64) *int {
	if math.IsInf(v, 1) {
		return nil
	}
	n := int(v)
	return &n
}

// writeExploreZoo prints the comparison: a row per bug, then each mode's figures.
func (a *app) writeExploreZoo(rows []exploreZooRow, o exploreOptions) {
	var guided, uniform []exploreCatch
	for _, r := range rows {
		guided, uniform = append(guided, r.Guided), append(uniform, r.Uniform)
	}
	g, u := figuresOf(guided), figuresOf(uniform)
	if o.asJSON {
		for _, r := range rows {
			writeJSON(a.stdout, r)
		}
		writeJSON(a.stdout, map[string]any{"explore_zoo": map[string]any{"budget_seconds": o.budget.Seconds(), "seed": o.seed,
			"workers": o.workers, "guided": g, "uniform": u}})
		return
	}
	width := len("bug")
	for _, r := range rows {
		width = max(width, len(r.Bug))
	}
	fmt.Fprintf(a.stdout, "%-*s  %-34s  %s\n", width, "bug", "guided (run, seconds to the catch)", "uniform")
	for _, r := range rows {
		fmt.Fprintf(a.stdout, "%-*s  %-34s  %s\n", width, r.Bug, r.Guided, r.Uniform)
	}
	fmt.Fprintf(a.stdout, "budget %s each, seed %d, %d worker(s)\n", o.budget, o.seed, o.workers)
	for _, m := range []struct {
		name string
		f    catchFigures
	}{{"guided", g}, {"uniform", u}} {
		fmt.Fprintf(a.stdout, "%-7s caught %d of %d; median %s; max %s\n", m.name, m.f.Caught, m.f.Bugs,
			runsAndSeconds(m.f.MedianRuns, m.f.MedianSeconds), runsAndSeconds(m.f.MaxRuns, m.f.MaxSeconds))
	}
}

// runsAndSeconds is "12 runs, 0.8s", or "not caught" for a figure that falls on a miss.
func runsAndSeconds(runs *int, seconds *float64) string {
	if runs == nil || seconds == nil {
		return "not caught"
	}
	return fmt.Sprintf("%d runs, %.1fs", *runs, *seconds)
}
