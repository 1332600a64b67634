package scenarios

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/engine"
)

// plantedBugGrounds names, per planted bug, the built-in swarm scenario that hunts it: one
// whose job has the code path the bug breaks (unaligned snapshots for forgotten channel
// state, a two-phase-commit sink and keyed state for the others) and whose faults draw
// crashes, failovers and aborted checkpoints from the seed.
var plantedBugGrounds = map[engine.PlantedBug]string{
	engine.BugSourceOffsetAhead:  StandardName,
	engine.BugForgetChannelState: "explicit-unaligned",
	engine.BugCommitOnAbort:      StandardName,
	engine.BugSkipStateRestore:   StandardName,
}

// plantedBugCatchers names, per planted bug, the property whose contract it breaks first:
// the one a run with the bug planted is expected to violate.
var plantedBugCatchers = map[engine.PlantedBug]checker.Property{
	engine.BugSourceOffsetAhead:  checker.PropExactlyOnce,
	engine.BugForgetChannelState: checker.PropConsistentCut,
	engine.BugCommitOnAbort:      checker.PropDurableVisible,
	engine.BugSkipStateRestore:   checker.PropRestoreFidelity,
}

// PlantedBugScenarios returns, for every planted bug in engine.PlantedBugs order, its hunting
// ground with the bug planted (see Plant).
func PlantedBugScenarios() []*Scenario {
	var out []*Scenario
	for _, bug := range engine.PlantedBugs() {
		base, err := Lookup(plantedBugGrounds[bug])
		if err != nil {
			panic(fmt.Sprintf("scenarios: planted bug %s has no hunting ground: %v", bug, err))
		}
		s, err := Plant(base, string(bug))
		if err != nil {
			panic(fmt.Sprintf("scenarios: planted bug %s does not fit its hunting ground: %v", bug, err))
		}
		out = append(out, s)
	}
	return out
}

// Plant returns a copy of s, named "<name>.<bug>", whose engine has bug planted. It becomes a
// negative control: it expects a failure of the property the bug breaks first among those
// the job promises, so a run that catches the bug is as expected and one that misses it is
// not. An unknown bug, or one the job has no code path for, is an error that names the
// field.
func Plant(s *Scenario, bug string) (*Scenario, error) {
	p := s.Clone()
	p.Name = s.Name + "." + bug
	p.Description = fmt.Sprintf("%s, on an engine with planted bug %s.", s.Name, bug)
	p.PlantedBug = bug
	expect := plantedBugCatchers[engine.PlantedBug(bug)]
	if expect == checker.PropExactlyOnce && !slices.Contains(PropertiesToCheck(s), checker.PropExactlyOnce) {
		// A job that promises no exact output (at-least-once mode or sink) still promises
		// to lose nothing, which is what a lost record breaks.
		expect = checker.PropAtLeastOnce
	}
	p.Expect = Expect{Verdict: VerdictFail, Property: expect}
	if err := p.Validate("scenario"); err != nil {
		return nil, err
	}
	return p, nil
}

// BugHunt tallies the runs of one planted-bug scenario: the yardstick "seeds needed
// to detect each planted bug". A run catches the bug when a checker reports a violation; a
// limit is not a catch. It counts runs, not time, so it is the same on every machine.
type BugHunt struct {
	Bug      string `json:"bug"`
	Scenario string `json:"scenario"` // the hunting ground the bug was planted in
	Seeds    int    `json:"seeds"`
	Caught   int    `json:"caught"`
	// FirstSeed is the first seed, in the order runs were added, whose run caught the bug;
	// 0 when none did.
	FirstSeed uint64 `json:"first_seed"`
	// Properties counts, per property, the runs that violated it.
	Properties map[checker.Property]int `json:"properties"`
}

// NewBugHunt starts the tally of s, one of PlantedBugScenarios.
func NewBugHunt(s *Scenario) *BugHunt {
	ground := plantedBugGrounds[engine.PlantedBug(s.PlantedBug)]
	return &BugHunt{Bug: s.PlantedBug, Scenario: ground, Properties: map[checker.Property]int{}}
}

// Add counts one run.
func (h *BugHunt) Add(r *Result) {
	h.Seeds++
	if r.Verdict != VerdictFail {
		return
	}
	h.Caught++
	if h.FirstSeed == 0 {
		h.FirstSeed = r.Seed
	}
	var seen []checker.Property
	for _, v := range r.Violations {
		if !slices.Contains(seen, v.Property) {
			seen = append(seen, v.Property)
			h.Properties[v.Property]++
		}
	}
}

// PropertyNames returns the properties that caught the bug, most runs first (ties by name).
func (h *BugHunt) PropertyNames() []checker.Property {
	var names []checker.Property
	for p := range h.Properties {
		names = append(names, p)
	}
	slices.SortFunc(names, func(a, b checker.Property) int {
		return cmp.Or(cmp.Compare(h.Properties[b], h.Properties[a]), cmp.Compare(a, b))
	})
	return names
}
