package generate

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/faults"
	"github.com/ckptsim/ckptsim/scenarios"
)

// notGenerated are the scenario fields (by JSON path, "[]" for a list's elements, each
// entry covering the fields under it) and the fault kinds ("kind " and its name) that Generate never draws, each with the reason. A
// field or kind the generator neither draws nor lists here fails TestGenerateSpansTheSpace,
// so that a new knob is drawn, or left out on purpose, but never forgotten.
var notGenerated = map[string]string{
	"name":           "every drawn scenario is called " + Name,
	"expect.verdict": "pass: a correct engine passes every draw, which is the promise of Generate",
	"planted_bug":    "retired: planted bugs are diffs in the bug zoo now, and validation refuses the field",
	"check":          "the default properties judge every rule of the specification; a list would only judge fewer",
	"expect.property": "a generated scenario expects pass, and a property names what a negative control " +
		"expects to fail",
	"expect.snapshots":                "the snapshots a hand-written script expects; the checkers judge a drawn script's",
	"expect.every_fault_fires":        "an event trigger may wait for an event a drawn run never has; a fault that does not fire is reported, not failed",
	"checkpoint.max_buffered_records": "a bound small enough to overflow overflows every checkpoint of a catch-up after a failover, for ever (see checkpoint); the regime channel-state-overflow reaches the path",
	"swarm.out_of_model":              "it lets the swarm draw faults no protocol survives, for negative controls",
	"kind " + string(faults.DataDrop): "out of model: records lost silently break the lossless channel every " +
		"snapshot algorithm assumes",
	"kind " + string(faults.DataDuplicate): "out of model: records delivered twice break the channel every snapshot algorithm assumes",
	"kind " + string(faults.DataReorder):   "out of model: records that overtake each other break the FIFO channel aligned barriers rely on",
}

// leftOut returns the reason a field or kind is not drawn: its own entry in notGenerated,
// or that of a field it is part of.
func leftOut(name string) (string, bool) {
	for listed, reason := range notGenerated {
		if under(name, listed) {
			return reason, true
		}
	}
	return "", false
}

// under reports whether path is field or a part of it (an element's field).
func under(path, field string) bool {
	rest, ok := strings.CutPrefix(path, field)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// scenarioFields lists the JSON paths of every field a scenario file accepts: the fields of
// Scenario and of every struct under it, a list's elements under "[]", embedded structs
// flattened as encoding/json flattens them. A type with a text form of its own (durations,
// seed ranges) is one field.
func scenarioFields() []string {
	var paths []string
	textual := reflect.TypeFor[encoding.TextMarshaler]()
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t.Implements(textual) || reflect.PointerTo(t).Implements(textual):
			paths = append(paths, prefix)
			return
		case t.Kind() == reflect.Slice:
			walk(t.Elem(), prefix+"[]")
			return
		case t.Kind() != reflect.Struct:
			paths = append(paths, prefix)
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case !f.IsExported() || name == "-":
			case f.Anonymous && name == "":
				walk(f.Type, prefix)
			default:
				walk(f.Type, join(prefix, name))
			}
		}
	}
	walk(reflect.TypeFor[scenarios.Scenario](), "")
	return paths
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// drawnFields adds to seen the JSON path of every field set in s's file, with its value.
func drawnFields(t *testing.T, s *scenarios.Scenario, seen map[string]map[string]bool) {
	var doc any
	if err := json.Unmarshal(scenarios.Marshal(s), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any, prefix string)
	walk = func(v any, prefix string) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(e, join(prefix, k))
			}
		case []any:
			for _, e := range v {
				walk(e, prefix+"[]")
			}
		default:
			if seen[prefix] == nil {
				seen[prefix] = map[string]bool{}
			}
			seen[prefix][fmt.Sprint(v)] = true
		}
	}
	walk(doc, "")
}

// TestGenerateSpansTheSpace: every field a scenario file accepts is drawn by Generate with
// two values at least (a field always left at its default, or always set alike, is not
// drawn; a flag is drawn once it is set) and every fault kind is drawn, on the seeds 1 to 3000, or listed in notGenerated
// with its reason; and nothing listed there is drawn after all.
func TestGenerateSpansTheSpace(t *testing.T) {
	values := map[string]map[string]bool{}
	kinds := map[string]bool{}
	for seed := uint64(1); seed <= 3000; seed++ {
		s := Seed(seed)
		drawnFields(t, s, values)
		for _, e := range s.Faults {
			kinds["kind "+string(e.Fault.Kind)] = true
		}
		if s.Swarm != nil {
			for _, k := range s.Swarm.Kinds {
				kinds["kind "+string(k)] = true
			}
		}
	}
	// A flag is written only when set: once set, it was drawn both ways (a switch that is on
	// when absent, like checkpoint.periodic, is set to false).
	seen := func(name string) bool {
		return kinds[name] || len(values[name]) > 1 || values[name]["true"] || values[name]["false"]
	}
	universe := scenarioFields()
	for _, k := range faults.Kinds() {
		universe = append(universe, "kind "+string(k))
	}
	for _, name := range universe {
		reason, excluded := leftOut(name)
		switch {
		case seen(name) && excluded:
			t.Errorf("%s is drawn, yet listed as left out (%s)", name, reason)
		case !seen(name) && !excluded:
			t.Errorf("%s is never drawn, and not listed in notGenerated with the reason", name)
		}
	}
	for name := range notGenerated {
		if !slices.ContainsFunc(universe, func(u string) bool { return under(u, name) }) {
			t.Errorf("notGenerated lists %s, which is no scenario field or fault kind", name)
		}
	}
}
