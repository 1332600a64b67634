package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Entry is one scheduled fault: what to inject and when.
type Entry struct {
	Trigger Trigger `json:"trigger"`
	Fault   Fault   `json:"fault"`
}

// String returns the entry on one line: the fault, "when", the trigger. For example
//
//	crash.task task=sum-2 when nth=3 on=snapshot.ack task=sum-2
func (e Entry) String() string { return e.Fault.String() + " when " + e.Trigger.String() }

// Schedule is an ordered list of scheduled faults. It is what an artifact stores, what a replay
// injects and what shrinking reduces. Order matters only for ties: entries whose triggers fire
// at the same moment (the same virtual time, or the same trace event) fire in schedule order.
type Schedule struct {
	Entries []Entry `json:"entries"`
}

// OutOfModel reports whether any fault in the schedule is out of model, so that the run is
// expected to end in a violation.
func (s Schedule) OutOfModel() bool {
	for _, e := range s.Entries {
		if e.Fault.OutOfModel() {
			return true
		}
	}
	return false
}

// Validate returns an error naming the first wrong field by its path, such as
// entries[2].fault.window_ns.
func (s Schedule) Validate() error {
	if len(s.Entries) > MaxEntries {
		return fieldErr("entries", "at most %d entries, got %d", MaxEntries, len(s.Entries))
	}
	for i, e := range s.Entries {
		path := fmt.Sprintf("entries[%d]", i)
		if err := e.Trigger.validate(path + ".trigger"); err != nil {
			return err
		}
		if err := e.Fault.validate(path + ".fault"); err != nil {
			return err
		}
	}
	return nil
}

// String returns one line per entry (see Entry.String), or "no faults" for an empty schedule.
func (s Schedule) String() string {
	if len(s.Entries) == 0 {
		return "no faults"
	}
	lines := make([]string, len(s.Entries))
	for i, e := range s.Entries {
		lines[i] = e.String()
	}
	return strings.Join(lines, "\n")
}

// MarshalJSON writes the schedule with an entries array even when it is empty, so that every
// schedule has one JSON form.
func (s Schedule) MarshalJSON() ([]byte, error) {
	type plain Schedule // without this method
	if s.Entries == nil {
		s.Entries = []Entry{}
	}
	return json.Marshal(plain(s))
}

// ParseSchedule decodes a schedule from JSON strictly: an unknown field, a second JSON value
// after the first, an unknown kind or an invalid value is an error that names the field.
func ParseSchedule(data []byte) (Schedule, error) {
	type plain Schedule
	var s plain
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Schedule{}, fmt.Errorf("faults: schedule: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Schedule{}, fmt.Errorf("faults: schedule: unexpected data after the schedule")
	}
	if len(s.Entries) == 0 {
		s.Entries = nil // "entries": [] and null and a missing key are the same schedule
	}
	if err := Schedule(s).Validate(); err != nil {
		return Schedule{}, err
	}
	return Schedule(s), nil
}
