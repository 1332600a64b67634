package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Verdict is the outcome of one property, or of a whole report.
type Verdict string

const (
	// VerdictPass: the property holds on this trace.
	VerdictPass Verdict = "pass"
	// VerdictFail: at least one violation.
	VerdictFail Verdict = "fail"
	// VerdictUnknown: the property could not be decided: porcupine ran out of time, or the
	// reference lacks what the property needs, or the trace ends before a liveness deadline.
	// It is never a pass. The note names what was missing: evidence the property needs for
	// what the trace shows happened ("checkpoint 3 completed but no snapshot.taken for it").
	VerdictUnknown Verdict = "unknown"
	// VerdictUnexercised: the trace gave the property no occasion at all (restore-fidelity
	// in a run that never restored from a checkpoint). It is not a pass either: it claims
	// nothing, and the note says what never happened. A report whose every property is
	// unexercised judged nothing, and its verdict is unknown.
	VerdictUnexercised Verdict = "unexercised"
)

// Result is the outcome of one property.
type Result struct {
	Property   Property
	Verdict    Verdict
	Violations []Violation // in trace order
	// Omitted counts violations found beyond the cap that Check keeps (Options.MaxViolations).
	Omitted int
	// Note says why a verdict is unknown, where a visualization was written, or what was not
	// judged. One line; empty when there is nothing to add.
	Note string
	// Diff is a go-cmp diff (-want +got) of committed record counts per record id, for the
	// output properties. It is for people: go-cmp varies its spacing on purpose, so it must
	// never be compared or hashed.
	Diff string
}

// String returns "property: verdict" with the note, then one line per violation.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", r.Property, r.Verdict)
	if r.Note != "" {
		fmt.Fprintf(&b, " (%s)", r.Note)
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "\n  %s", v)
	}
	if r.Omitted > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", r.Omitted)
	}
	return b.String()
}

// newResult sorts violations into trace order and derives the verdict: fail when there is
// any violation, otherwise pass.
func newResult(p Property, violations []Violation) Result {
	sortViolations(violations)
	return resultInOrder(p, violations)
}

// resultInOrder is newResult for violations already in trace order, where the seq numbers
// themselves may be wrong (well-formedness).
func resultInOrder(p Property, violations []Violation) Result {
	r := Result{Property: p, Verdict: VerdictPass, Violations: violations}
	if len(violations) > 0 {
		r.Verdict = VerdictFail
	}
	return r
}

// unknownResult is a result that could not be decided, with the reason.
func unknownResult(p Property, note string) Result {
	return Result{Property: p, Verdict: VerdictUnknown, Note: note}
}

// unexercisedResult is a result of a property the trace gave no occasion, saying what never
// happened.
func unexercisedResult(p Property, note string) Result {
	return Result{Property: p, Verdict: VerdictUnexercised, Note: note}
}

func sortViolations(vs []Violation) {
	slices.SortStableFunc(vs, func(a, b Violation) int {
		return cmp.Or(
			cmp.Compare(a.Seq, b.Seq),
			cmp.Compare(a.Task, b.Task),
			cmp.Compare(a.CP, b.CP),
			cmp.Compare(a.Message, b.Message),
		)
	})
}

// Report is the outcome of Check: one result per selected property, in AllProperties order.
type Report struct {
	Results []Result
}

// Verdict is fail if any property failed, else unknown if any is unknown or if no property
// judged the run (every one unexercised, or none checked), else pass. Unexercised
// properties are listed in the report, never counted as passes. Well-formed and determinism
// say nothing about the run's checkpoints, only that the trace can be read and is the one
// recorded, so their passes alone do not make a report pass.
func (r Report) Verdict() Verdict {
	verdict, judged := VerdictPass, false
	for _, res := range r.Results {
		switch res.Verdict {
		case VerdictFail:
			return VerdictFail
		case VerdictUnknown:
			verdict = VerdictUnknown
		case VerdictPass:
			judged = judged || res.Property != PropWellFormed && res.Property != PropDeterminism
		}
	}
	if !judged {
		return VerdictUnknown
	}
	return verdict
}

// Violations returns every kept violation, property by property.
func (r Report) Violations() []Violation {
	var all []Violation
	for _, res := range r.Results {
		all = append(all, res.Violations...)
	}
	return all
}

// Result returns the result of property p, if p was checked.
func (r Report) Result(p Property) (Result, bool) {
	for _, res := range r.Results {
		if res.Property == p {
			return res, true
		}
	}
	return Result{}, false
}

// String returns one block per property (see Result.String), without the diffs.
func (r Report) String() string {
	lines := make([]string, len(r.Results))
	for i, res := range r.Results {
		lines[i] = res.String()
	}
	return strings.Join(lines, "\n")
}
