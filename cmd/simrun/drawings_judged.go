package main

import (
	"fmt"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine/live"
	"github.com/ckptsim/ckptsim/picture/spacetime"
	"github.com/ckptsim/ckptsim/scenarios"
	"github.com/ckptsim/ckptsim/trace"
)

// checkerOptions has the checkers draw porcupine's pictures into d when a page is asked
// for, as a simulated run's do, so that a judged trace links them from its page too.
func (d *drawings) checkerOptions(opts checker.Options) checker.Options {
	if d != nil && d.htmlPath != "" {
		opts.StoreHistoryPicture, opts.SinkVisibilityPicture = &d.store, &d.sink
	}
	return opts
}

// drawJudged writes the pictures of a judged trace: the events, the violations marked on
// them, and notes under the title that say what was judged and the verdict, since the
// page of a foreign or live trace has no run report beside it. Nil draws nothing.
func (d *drawings) drawJudged(title string, notes []string, events []trace.Event, violations []checker.Violation) (drawn, error) {
	if d == nil {
		return drawn{}, nil
	}
	return d.draw(spacetime.Run{Title: title, Events: events, Violations: violations, Notes: notes})
}

// reportNotes are a checker report's lines for a page: the verdict, then each property
// that did not pass with its verdict and why.
func reportNotes(report checker.Report) []string {
	notes := []string{"verdict: " + string(report.Verdict())}
	for _, r := range report.Results {
		if r.Verdict == checker.VerdictPass {
			continue
		}
		line := fmt.Sprintf("%s: %s", r.Property, r.Verdict)
		if count := len(r.Violations) + r.Omitted; count > 0 {
			line += fmt.Sprintf(" (%d violations, the first: %s)", count, r.Violations[0].Message)
			if count == 1 {
				line = fmt.Sprintf("%s: %s (%s)", r.Property, r.Verdict, r.Violations[0].Message)
			}
		} else if r.Note != "" {
			line += " (" + r.Note + ")"
		}
		notes = append(notes, line)
	}
	return notes
}

// reportViolations are every violation of a report, property by property, for the marks
// on a picture.
func reportViolations(report checker.Report) []checker.Violation {
	var all []checker.Violation
	for _, r := range report.Results {
		all = append(all, r.Violations...)
	}
	return all
}

// liveNotes are a live run's lines for its page: how it ran, and its verdict as the report
// words it (why it was unexpected, what was left unjudged).
func liveNotes(res *scenarios.Result, opts live.Options) []string {
	how := fmt.Sprintf("a live run for %s on the wall clock, no crashes; times are wall-clock", opts.For)
	if opts.CrashEvery > 0 {
		how = fmt.Sprintf("a live run for %s on the wall clock, a task crash every %s; times are wall-clock", opts.For, opts.CrashEvery)
	}
	verdict := fmt.Sprintf("verdict: %s (expected %s)", res.Verdict, res.Expected)
	if res.Why != "" {
		verdict += ": " + res.Why
	}
	notes := []string{how, verdict}
	for _, u := range res.Unexercised {
		notes = append(notes, "unexercised: "+u)
	}
	return notes
}
