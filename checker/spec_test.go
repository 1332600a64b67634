package checker

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// notBehaviour are the Config fields that change nothing a trace can show, so no rule names
// them, each with the reason.
var notBehaviour = map[string]string{
	"CheckInvariants": "it makes the protocol check its own internals and panic when one breaks; a correct run is the same with it or without",
}

// vocabulary returns every word of the protocol's contract a rule must govern: the exported
// Config fields and the names of every reason, checkpoint kind, mode, message type and
// in-band event.
func vocabulary() []string {
	var words []string
	config := reflect.TypeFor[protocol.Config]()
	for i := range config.NumField() {
		f := config.Field(i)
		if f.IsExported() && notBehaviour[f.Name] == "" {
			words = append(words, "Config."+f.Name)
		}
	}
	enum := func(prefix string, name func(n int) string) {
		for n := 1; ; n++ {
			s := name(n)
			if strings.HasSuffix(s, ")") {
				return
			}
			words = append(words, prefix+s)
		}
	}
	enum("Reason.", func(n int) string { return protocol.Reason(n).String() })
	enum("Kind.", func(n int) string { return protocol.Kind(n).String() })
	enum("Mode.", func(n int) string { return protocol.Mode(n).String() })
	enum("Msg.", func(n int) string { return protocol.MessageType(n).String() })
	enum("Event.", func(n int) string { return protocol.EventType(n).String() })
	enum("RestoreMode.", func(n int) string { return protocol.RestoreMode(n).String() })
	return words
}

// TestSpecificationIsComplete: every word of the protocol's contract is governed by a rule,
// every rule names only real words, and every property judges at least one rule.
func TestSpecificationIsComplete(t *testing.T) {
	words := vocabulary()
	covered := map[string]bool{}
	for _, r := range Rules() {
		for _, w := range r.Covers {
			if !slices.Contains(words, w) {
				t.Errorf("rule %s covers %q, which is no word of the protocol's contract", r.Name, w)
			}
			covered[w] = true
		}
	}
	for _, w := range words {
		if !covered[w] {
			t.Errorf("no rule governs %s", w)
		}
	}
	judged := map[Property]bool{}
	for _, r := range Rules() {
		judged[r.Property] = true
	}
	for _, p := range AllProperties {
		if !judged[p] {
			t.Errorf("property %s judges no rule of the specification", p)
		}
		if judges[p] == nil {
			t.Errorf("property %s has no judge in Check", p)
		}
	}
}

// TestRulesAreNamedOnce: names and ids are unique, ids number each section from 1, and every
// rule says what it needs.
func TestRulesAreNamedOnce(t *testing.T) {
	names := map[string]bool{}
	for _, s := range Specification() {
		if names[s.Name] {
			t.Errorf("section name %s given twice", s.Name)
		}
		names[s.Name] = true
		for i, r := range s.Rules {
			if want := fmt.Sprintf("%s%d", s.Letter, i+1); r.ID != want {
				t.Errorf("rule %s has id %s, want %s", r.Name, r.ID, want)
			}
			if names[r.Name] || slices.Contains(AllProperties, Property(r.Name)) {
				t.Errorf("rule name %s is taken", r.Name)
			}
			names[r.Name] = true
			if r.Says == "" || r.Evidence == "" || r.Without == "" || !slices.Contains(AllProperties, r.Property) {
				t.Errorf("rule %s lacks a sentence, its evidence, its verdict without it or a property", r.Name)
			}
		}
	}
}

// TestSelectTakesRulesAndSections: -check's names.
func TestSelectTakesRulesAndSections(t *testing.T) {
	got, err := Select([]string{"notify.in-order", "sink", "liveness"})
	want := []Property{PropExactlyOnce, PropAtLeastOnce, PropListenerContract, PropDurableVisible, PropSinkVisibility, PropLiveness}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Select = %v, %v; want %v", got, err, want)
	}
	if _, err := Select([]string{"notify.in-ordr"}); err == nil || !strings.Contains(err.Error(), `"notify.in-ordr" is no property, rule or section`) {
		t.Errorf("a misspelt rule: %v", err)
	}
}
