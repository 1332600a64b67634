package checker

import (
	"fmt"
	"slices"
	"strings"
)

// Rule is one rule of the specification: what a trace of a correct checkpointing engine
// must satisfy, written from Flink's semantics and the protocol's contract, never read off
// an implementation. Every rule is judged by one property, which reports its violations;
// a property may judge several rules.
type Rule struct {
	// ID is the rule's place in the table: its section's letter and a number ("C3").
	ID string
	// Name is how people and -check name the rule ("trigger.min-pause").
	Name string
	// Property judges the rule and reports its violations.
	Property Property
	// Says is the rule in one sentence.
	Says string
	// Evidence is what the rule reads: trace events and reference fields.
	Evidence string
	// Without is the verdict when that evidence is missing, and why.
	Without string
	// Covers names the protocol's vocabulary the rule governs: Config fields
	// ("Config.MinPause"), reasons ("Reason.expired"), checkpoint kinds
	// ("Kind.savepoint"), message types ("Msg.trigger") and modes ("Mode.aligned").
	Covers []string
	// Flink says where Flink states the same rule: a class, a test or a page.
	Flink string
}

// Section is one part of the specification.
type Section struct {
	Letter string
	Name   string // also a group name for -check
	Rules  []Rule
}

// Specification returns the rules, section by section, in table order.
func Specification() []Section {
	return []Section{
		{Letter: "G", Name: "trace", Rules: traceRules},
		{Letter: "C", Name: "coordinator", Rules: coordinatorRules},
		{Letter: "T", Name: "task", Rules: taskRules},
		{Letter: "R", Name: "recovery", Rules: recoveryRules},
		{Letter: "L", Name: "listener", Rules: listenerRules},
		{Letter: "S", Name: "sink", Rules: sinkRules},
		{Letter: "P", Name: "progress", Rules: progressRules},
	}
}

// Rules returns every rule in table order.
func Rules() []Rule {
	var all []Rule
	for _, s := range Specification() {
		all = append(all, s.Rules...)
	}
	return all
}

// RuleNamed returns the rule called name, or false.
func RuleNamed(name string) (Rule, bool) {
	for _, r := range Rules() {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}

// Select reads a list of names, each a property, a rule or a section of the specification,
// and returns the properties that judge them, in AllProperties order. A rule selects the
// property that judges it; a section every property that judges one of its rules.
func Select(names []string) ([]Property, error) {
	want := map[Property]bool{}
	for _, name := range names {
		props, err := selectOne(strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		for _, p := range props {
			want[p] = true
		}
	}
	var out []Property
	for _, p := range AllProperties {
		if want[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

func selectOne(name string) ([]Property, error) {
	if slices.Contains(AllProperties, Property(name)) {
		return []Property{Property(name)}, nil
	}
	if r, ok := RuleNamed(name); ok {
		return []Property{r.Property}, nil
	}
	for _, s := range Specification() {
		if s.Name == name {
			var props []Property
			for _, r := range s.Rules {
				props = append(props, r.Property)
			}
			return props, nil
		}
	}
	return nil, fmt.Errorf("checker: %q is no property, rule or section of the specification", name)
}
