package mutate

import (
	"slices"
	"strings"
)

// Catch is how the harness (the default sweep and the exploration) saw a mutant, best
// first: the order is the order of precedence when runs disagree.
type Catch string

const (
	// CatchRule: an unexpected failure with a property of the specification, a protocol
	// invariant check among them. The yardstick: a verdict that names what broke.
	CatchRule Catch = "rule"
	// CatchVerdict: an unexpected verdict with no property to name, such as unknown where
	// a pass was expected, or a pass where a control expects its failure.
	CatchVerdict Catch = "verdict"
	// CatchPanic: only runs that panicked, which says something broke, not what.
	CatchPanic Catch = "panic"
	// CatchError: the mutated simrun refused to run (exit status 2), say because the
	// mutant makes the protocol refuse every configuration. Loud, but no verdict.
	CatchError Catch = "error"
	// CatchLimit: only runs that reached a limit of virtual time or events.
	CatchLimit Catch = "limit"
	// CatchNone: every verdict as expected.
	CatchNone Catch = "none"
	// CatchHang: the mutated simrun outran its timeout, or its memory (killed by a signal).
	CatchHang Catch = "hang"
)

// PropertyPanic is the property a run's panic becomes (package scenarios).
const PropertyPanic = "panic"

// Verdicts are that of a passing run and that of a run that reached a limit.
const (
	verdictFail  = "fail"
	verdictLimit = "limit"
)

// rank orders catches for Best: lower is better.
var rank = map[Catch]int{CatchRule: 0, CatchVerdict: 1, CatchPanic: 2, CatchError: 3, CatchLimit: 4, CatchNone: 5}

// Caught reports whether c is a catch by the verdicts: a rule, an invariant or a verdict,
// not a panic or a limit.
func (c Catch) Caught() bool { return c == CatchRule || c == CatchVerdict }

// Classify returns how runs saw the mutant (the best catch over all of them) and the
// properties whose violations made it, panics left out, sorted.
func Classify(runs []Run) (Catch, []string) {
	best := CatchNone
	var properties []string
	for i := range runs {
		c, props := classifyRun(&runs[i])
		if rank[c] < rank[best] {
			best = c
		}
		for _, p := range props {
			if !slices.Contains(properties, p) {
				properties = append(properties, p)
			}
		}
	}
	slices.Sort(properties)
	return best, properties
}

// classifyRun says how one run saw the mutant. A run whose verdict its scenario expected
// saw nothing, even a failing one: a control is expected to fail.
func classifyRun(r *Run) (Catch, []string) {
	if !r.Unexpected {
		return CatchNone, nil
	}
	switch r.Verdict {
	case verdictLimit:
		return CatchLimit, nil
	case verdictFail:
		var props []string
		for _, v := range r.Violations {
			if v.Property != PropertyPanic && !slices.Contains(props, v.Property) {
				props = append(props, v.Property)
			}
		}
		if len(props) == 0 {
			return CatchPanic, nil
		}
		return CatchRule, props
	}
	return CatchVerdict, nil
}

// Better reports whether catch c is better than d: lower in precedence order.
func Better(c, d Catch) bool { return rank[c] < rank[d] }

// FirstPanic returns the message of the first panic among runs, cut to its first line,
// or "" when none panicked: what broke, to look at in the report.
func FirstPanic(runs []Run) string {
	for i := range runs {
		for _, v := range runs[i].Violations {
			if v.Property == PropertyPanic {
				return cut(strings.SplitN(v.Message, "\n", 2)[0], 200)
			}
		}
	}
	return ""
}
