package mutate

// Tests is what the mutated package's own unit tests said.
type Tests string

const (
	TestsKilled Tests = "killed" // some test failed
	TestsPassed Tests = "passed" // every test passed: the mutant lived through them
	TestsHang   Tests = "hang"   // go test outran its timeout
)

// Outcome is everything simrun mutate learned of one mutant.
type Outcome struct {
	*Mutant
	Description string `json:"description"`
	// Tests and TestsFailed: the verdict of the mutated package's tests and the top-level
	// tests that failed.
	Tests       Tests    `json:"tests"`
	TestsFailed []string `json:"tests_failed,omitempty"`
	// Catch is how the harness saw it, Stage where ("sweep" or "explore"), and Properties
	// the properties that failed there.
	Catch      Catch    `json:"catch"`
	Stage      string   `json:"stage,omitempty"`
	Properties []string `json:"properties,omitempty"`
	// Changed: some run of the default sweep traced otherwise than with the correct build.
	// A mutant that changes no run is one the default sweep cannot see at all.
	Changed bool `json:"changed"`
	// Equivalent is the reason the mutant is marked equivalent in equivalent.txt.
	Equivalent string `json:"equivalent,omitempty"`
	// Explored is how the exploration ran ("explore", "sweep -generated -seeds 1-N"), if it did.
	Explored string `json:"explored,omitempty"`
	// Panic is the first line of the first panic the harness met, to see what broke.
	Panic string `json:"panic,omitempty"`
}

// Survivor reports whether the verdicts missed the mutant: no rule, invariant or verdict
// caught it, and it is not marked equivalent.
func (o *Outcome) Survivor() bool { return !o.Catch.Caught() && o.Equivalent == "" }

// Summary is the figures of a sample.
type Summary struct {
	Summary   bool `json:"summary"`
	Mutants   int  `json:"mutants"`   // mutants run (compiled)
	Discarded int  `json:"discarded"` // drawn but did not compile
	Sites     int  `json:"sites"`     // mutants enumerated in the packages
	// Killed, Passed and TestsHang count the unit tests' verdicts.
	Killed    int `json:"tests_killed"`
	Passed    int `json:"tests_passed"`
	TestsHang int `json:"tests_hang"`
	// Catches counts the harness's catches by kind; Unchanged the mutants not caught that
	// changed no run of the default sweep.
	Catches    map[Catch]int `json:"catches"`
	Unchanged  int           `json:"unchanged"`
	Equivalent int           `json:"equivalent"`
	// Goal: of the mutants the unit tests kill (GoalOf), how many the harness caught by a
	// rule, an invariant or a verdict (GoalCaught).
	GoalOf     int `json:"goal_of"`
	GoalCaught int `json:"goal_caught"`
	Survivors  int `json:"survivors"`
}

// Tally sums outcomes into a Summary.
func Tally(outcomes []*Outcome, sites, discarded int) Summary {
	s := Summary{Summary: true, Mutants: len(outcomes), Discarded: discarded, Sites: sites, Catches: map[Catch]int{}}
	for _, o := range outcomes {
		switch o.Tests {
		case TestsKilled:
			s.Killed++
		case TestsPassed:
			s.Passed++
		case TestsHang:
			s.TestsHang++
		}
		s.Catches[o.Catch]++
		if !o.Catch.Caught() && o.Catch != CatchHang && !o.Changed {
			s.Unchanged++
		}
		if o.Equivalent != "" {
			s.Equivalent++
		}
		if o.Survivor() {
			s.Survivors++
		}
		if o.Tests == TestsKilled && o.Equivalent == "" {
			s.GoalOf++
			if o.Catch.Caught() {
				s.GoalCaught++
			}
		}
	}
	return s
}

// Percent is part of whole in whole percent, 0 of nothing.
func Percent(part, whole int) int {
	if whole == 0 {
		return 0
	}
	return (part*100 + whole/2) / whole
}
