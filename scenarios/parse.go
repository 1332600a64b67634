package scenarios

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
)

// Parse reads a scenario file: one JSON object, decoded strictly (an unknown field, a
// duplicate key or a value of the wrong type is an error), completed with defaults and
// validated. Every error names the path of the field at fault, under "scenario".
func Parse(data []byte) (*Scenario, error) {
	var s Scenario
	if err := decodeStrict(data, "scenario", &s); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	if err := refuseWrittenZeros(data); err != nil {
		return nil, fmt.Errorf("scenarios: %w", err)
	}
	if err := s.Complete("scenario"); err != nil {
		return nil, err
	}
	return &s, nil
}

// Complete applies defaults to s and validates it, naming paths under root. The catalogue
// and artifacts use it for scenarios that do not come from a file.
func (s *Scenario) Complete(root string) error {
	s.applyDefaults()
	if err := s.Validate(root); err != nil {
		return fmt.Errorf("scenarios: %w", err)
	}
	return nil
}

// completed refuses a scenario built in Go that Complete never saw: its defaults are not
// applied, and the error the engine would give for a missing setting would not say why.
func completed(s *Scenario) error {
	c := s.Clone()
	c.applyDefaults()
	if !reflect.DeepEqual(c, s) {
		return fmt.Errorf("scenarios: %s: defaults not applied: call Complete on a scenario built or changed in Go before it runs", cmp.Or(s.Name, "the scenario"))
	}
	return nil
}

// Marshal returns s as an indented JSON file that Parse reads back to an equal Scenario.
func Marshal(s *Scenario) []byte {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("scenarios: marshalling scenario %q: %v", s.Name, err))
	}
	return append(data, '\n')
}
