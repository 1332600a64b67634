package scenarios

import (
	"errors"
	"fmt"
	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/faults"
	"slices"
)

// Shrinking turns a failing artifact into a smaller one that fails the same way: fewer faults,
// less input, a shorter script. Smaller cases are faster to replay and easier to read, and the
// faults that remain are the ones that matter.

// ErrNotReproduced means an artifact's failure did not happen again when rerun.
var ErrNotReproduced = errors.New("scenarios: the recorded failure does not reproduce")

// ShrinkOptions bound a shrink.
type ShrinkOptions struct {
	// MaxRuns bounds the number of runs tried; zero means defaultShrinkRuns.
	MaxRuns int
	// Progress, if set, is told about each smaller case found.
	Progress func(message string)
}

const defaultShrinkRuns = 400

// ShrinkReport says what a shrink achieved.
type ShrinkReport struct {
	Property                  string // the property that kept failing ("limit" or "unknown" for those verdicts)
	Runs                      int
	FaultsBefore, FaultsAfter int
	InputBefore, InputAfter   int // records per source, or token transfers
	StepsBefore, StepsAfter   int
	// KeptSwarm is set when the failure needed its swarm (it did not reproduce with the drawn
	// schedule written out), so only the input could shrink.
	KeptSwarm bool
}

// Shrink reruns a failing artifact's case with r and searches, within the options' budget,
// for a smaller case in which the same property still fails: first the fault schedule (delta
// debugging over the faults), then the input size (bisection), then the script, then the
// numbers of the faults left are halved while the failure holds; and again, until a whole
// pass changes nothing (or the budget is spent), since a smaller input may let a fault go and
// a fault gone may let the input shrink further. It returns the artifact of the smallest
// failing run, recorded as build.
func Shrink(r Runner, a *Artifact, build string, opts ShrinkOptions) (*Artifact, ShrinkReport, error) {
	if a.Verdict == VerdictPass {
		return nil, ShrinkReport{}, errors.New("scenarios: nothing to shrink: the recorded run passed")
	}
	sh := &shrinker{runner: r, seed: a.Seed, target: shrinkTarget(a), budget: orDefault(opts.MaxRuns, defaultShrinkRuns), progress: opts.Progress}
	report := ShrinkReport{Property: sh.target, FaultsBefore: len(a.Schedule.Entries), InputBefore: inputSize(a.Scenario), StepsBefore: len(a.Scenario.Script)}

	explicit := a.Scenario.Clone()
	explicit.Faults, explicit.Swarm = slices.Clone(a.Schedule.Entries), nil
	switch {
	case sh.try(explicit):
	case a.Scenario.Swarm != nil && sh.try(a.Scenario.Clone()):
		report.KeptSwarm = true
	default:
		return nil, report, fmt.Errorf("%w: %s no longer fails on seed %d", ErrNotReproduced, sh.target, a.Seed)
	}

	for before := (*Scenario)(nil); before != sh.best.Scenario && sh.runs < sh.budget; {
		before = sh.best.Scenario // every change that holds replaces it
		if !report.KeptSwarm {
			sh.shrinkFaults()
		}
		sh.shrinkInput()
		sh.shrinkScript()
		if !report.KeptSwarm {
			sh.simplifyFaults()
		}
	}

	out := NewArtifact(sh.best, sh.bestResult, build)
	report.Runs = sh.runs
	report.FaultsAfter = len(out.Schedule.Entries)
	report.InputAfter = inputSize(out.Scenario)
	report.StepsAfter = len(out.Scenario.Script)
	return out, report, nil
}

// shrinkTarget is the property a shrink keeps failing: the negative control's property when
// it failed, else the first violated one; the verdict itself for a run that hit a limit or
// was undecided (limit, unknown).
func shrinkTarget(a *Artifact) string {
	if a.Verdict == VerdictLimit || a.Verdict == VerdictUnknown {
		return a.Verdict
	}
	for _, v := range a.Violations {
		if v.Property == a.Scenario.Expect.Property {
			return string(v.Property)
		}
	}
	return string(a.Violations[0].Property)
}

type shrinker struct {
	runner     Runner
	seed       uint64
	target     string
	budget     int
	runs       int
	progress   func(string)
	best       *Plan
	bestResult *Result
}

// try runs candidate and keeps it as the best case if it still fails the target.
func (sh *shrinker) try(candidate *Scenario) bool {
	if sh.runs >= sh.budget || candidate.Validate("scenario") != nil {
		return false
	}
	sh.runs++
	plan, res, err := Execute(sh.runner, candidate, sh.seed, RunOptions{})
	if err != nil || !sh.failsTarget(res) {
		return false
	}
	sh.best, sh.bestResult = plan, res
	if sh.progress != nil {
		sh.progress(fmt.Sprintf("run %d: %s still fails with %d faults, input %d, %d script steps",
			sh.runs, sh.target, len(candidate.Faults), inputSize(candidate), len(candidate.Script)))
	}
	return true
}

func (sh *shrinker) failsTarget(res *Result) bool {
	if sh.target == VerdictLimit || sh.target == VerdictUnknown {
		return res.Verdict == sh.target
	}
	return res.Verdict == VerdictFail && slices.Contains(res.ViolatedProperties(), checker.Property(sh.target))
}

func (sh *shrinker) shrinkFaults() {
	base := sh.best.Scenario
	ddmin(base.Faults, func(entries []faults.Entry) bool {
		c := base.Clone()
		c.Faults = slices.Clone(entries)
		return sh.try(c)
	})
}

// simplifyFaults halves the numbers of the faults that are left (windows, delays, trigger
// counts, probabilities) while the failure holds, taking the faults package's one-step
// simplifications in its order and keeping the first that still fails, until none does.
func (sh *shrinker) simplifyFaults() {
	for sh.runs < sh.budget {
		base := sh.best.Scenario
		improved := false
		for _, candidate := range (faults.Schedule{Entries: base.Faults}).Shrinks() {
			if len(candidate.Entries) < len(base.Faults) {
				continue // removals were delta debugging's
			}
			c := base.Clone()
			c.Faults = candidate.Entries
			if sh.try(c) {
				improved = true
				break
			}
			if sh.runs >= sh.budget {
				return
			}
		}
		if !improved {
			return
		}
	}
}

func (sh *shrinker) shrinkScript() {
	base := sh.best.Scenario
	ddmin(base.Script, func(steps []Step) bool {
		c := base.Clone()
		c.Script = append([]Step(nil), steps...)
		return sh.try(c)
	})
}

// shrinkInput bisects the input size between 1 and the current size. The failure need not be
// monotone in the size; only sizes that were run and failed are kept.
func (sh *shrinker) shrinkInput() {
	base := sh.best.Scenario
	lo, hi := 1, inputSize(base)
	if base.Workload.Kind == WorkloadTokens {
		lo = 0
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		c := base.Clone()
		setInputSize(c, mid)
		if sh.try(c) {
			hi = mid
		} else {
			lo = mid + 1
		}
		if sh.runs >= sh.budget {
			return
		}
	}
}

// inputSize is what shrinking reduces: records per source subtask, or token transfers.
func inputSize(s *Scenario) int {
	if s.Workload.Kind == WorkloadTokens {
		return s.Workload.Transfers
	}
	return s.Workload.Records
}

func setInputSize(s *Scenario, n int) {
	if s.Workload.Kind == WorkloadTokens {
		s.Workload.Transfers = n
		if n == 0 {
			s.Workload.RecordInterval = 0
		}
		return
	}
	s.Workload.Records = n
}
