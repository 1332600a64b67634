package faults

import (
	"bytes"
	"encoding/json"
)

// A fault's spans and a trigger's times are Durations in Go, the one duration type of the
// fault and scenario APIs, and integer nanoseconds in files ("window_ns": 250000000), as
// every schedule, scenario file and artifact written so far has them: a file reads back as
// it was, and an artifact's digest, taken over its JSON, still matches. Marshalling and
// encoding/json's decoding go through the plain int64 forms below; a decoder that walks the
// types itself learns the keys from NanosKeys.

// faultJSON is Fault as files hold it.
type faultJSON struct {
	Kind        Kind    `json:"kind"`
	Task        string  `json:"task,omitempty"`
	Host        string  `json:"host,omitempty"`
	From        string  `json:"from,omitempty"`
	To          string  `json:"to,omitempty"`
	OneWay      bool    `json:"oneway,omitempty"`
	Message     Message `json:"message,omitempty"`
	Store       string  `json:"store,omitempty"`
	Key         string  `json:"key,omitempty"`
	Probability float64 `json:"probability,omitempty"`
	Window      int64   `json:"window_ns,omitempty"`
	Delay       int64   `json:"delay_ns,omitempty"`
	Timeout     int64   `json:"timeout_ns,omitempty"`
	SkewPPM     int64   `json:"skew_ppm,omitempty"`
	Operator    string  `json:"operator,omitempty"`
	Parallelism int     `json:"parallelism,omitempty"`
	RestoreMode string  `json:"restore_mode,omitempty"`
}

// MarshalJSON writes f with its spans in nanoseconds.
func (f Fault) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultJSON{f.Kind, f.Task, f.Host, f.From, f.To, f.OneWay, f.Message, f.Store, f.Key,
		f.Probability, f.Window.Nanos(), f.Delay.Nanos(), f.Timeout.Nanos(), f.SkewPPM, f.Operator, f.Parallelism, f.RestoreMode})
}

// UnmarshalJSON reads f, its spans in nanoseconds, refusing unknown fields.
func (f *Fault) UnmarshalJSON(data []byte) error {
	var w faultJSON
	if err := strictDecode(data, &w); err != nil {
		return err
	}
	*f = Fault{Kind: w.Kind, Task: w.Task, Host: w.Host, From: w.From, To: w.To, OneWay: w.OneWay, Message: w.Message,
		Store: w.Store, Key: w.Key, Probability: w.Probability, Window: Duration(w.Window), Delay: Duration(w.Delay),
		Timeout: Duration(w.Timeout), SkewPPM: w.SkewPPM, Operator: w.Operator, Parallelism: w.Parallelism, RestoreMode: w.RestoreMode}
	return nil
}

// NanosKeys are the JSON keys of f's spans, whose values are integer nanoseconds.
func (Fault) NanosKeys() []string { return []string{"window_ns", "delay_ns", "timeout_ns"} }

// triggerJSON is Trigger as files hold it.
type triggerJSON struct {
	Type        TriggerType `json:"type"`
	At          int64       `json:"at_ns,omitempty"`
	Match                   // flattened into the trigger's JSON object
	Nth         int         `json:"nth,omitempty"`
	Probability float64     `json:"probability,omitempty"`
	Max         int         `json:"max,omitempty"`
	After       int64       `json:"from_ns,omitempty"`
}

// MarshalJSON writes t with its times in nanoseconds.
func (t Trigger) MarshalJSON() ([]byte, error) {
	return json.Marshal(triggerJSON{t.Type, t.At.Nanos(), t.Match, t.Nth, t.Probability, t.Max, t.After.Nanos()})
}

// UnmarshalJSON reads t, its times in nanoseconds, refusing unknown fields.
func (t *Trigger) UnmarshalJSON(data []byte) error {
	var w triggerJSON
	if err := strictDecode(data, &w); err != nil {
		return err
	}
	*t = Trigger{Type: w.Type, At: Duration(w.At), Match: w.Match, Nth: w.Nth, Probability: w.Probability, Max: w.Max, After: Duration(w.After)}
	return nil
}

// NanosKeys are the JSON keys of t's times, whose values are integer nanoseconds.
func (Trigger) NanosKeys() []string { return []string{"at_ns", "from_ns"} }

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
