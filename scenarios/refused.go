package scenarios

import (
	"slices"

	"github.com/ckptsim/ckptsim/checker"
)

// PropertyJobAccepted is the harness's judgement of a job of ckptsim's own, a built-in
// scenario or a generated one, that this build refuses: its engine, its protocol or its
// reference model turned down a job that the scenario format accepts and that ckptsim ships
// or draws as runnable. Ckptsim was given no input, so that refusal is no bad input but a
// finding about the build (a configuration check, a default or a reference model gone
// wrong), with an artifact like any other. A scenario file a user gives is bad input
// instead when this build refuses it (exit status 2). A job of any scenario that panics
// before its first event fails it too: validation refuses bad input with an error, so the
// build could not start a job it had accepted. Like time-advances, no scenario names or
// expects it.
const PropertyJobAccepted checker.Property = "job-accepted"

// Refused returns the plan and the judged, failed result of a run of s at seed, a job of
// ckptsim's own, that this build refused with err (an error of Execute's, not
// ErrUnsupported): the run never started, so its trace is empty.
func Refused(s *Scenario, seed uint64, err error) (*Plan, *Result) {
	plan, planErr := PlanFor(s, seed)
	if planErr != nil {
		plan = &Plan{Scenario: s, Seed: seed}
	}
	res := &Result{
		Scenario:  s.Name,
		Seed:      seed,
		Verdict:   VerdictFail,
		TraceHash: emptyTraceHash,
		Faults:    slices.Clone(plan.Faults.Entries),
		Violations: []checker.Violation{{
			Property: PropertyJobAccepted,
			Message:  "this build refuses a job of ckptsim's own: " + err.Error(),
		}},
	}
	res.Judge(s.Expect)
	return plan, res
}
