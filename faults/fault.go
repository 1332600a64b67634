package faults

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fault is one fault, as data: a kind and the parameters that kind takes (see the kind
// constants for which). Fields a kind does not take must be left zero; Validate says which.
// A Fault is what a schedule stores, what an artifact replays and what shrinking reduces.
type Fault struct {
	Kind Kind `json:"kind"`

	Task string `json:"task,omitempty"` // crash.task
	Host string `json:"host,omitempty"` // crash.host, pause.host, clock.skew

	// From and To name a directed link between endpoints (task ids or "coordinator"). NetDrop
	// and the data faults accept either or both empty, meaning any endpoint.
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	OneWay bool   `json:"oneway,omitempty"` // net.partition: cut only from -> to

	Message Message `json:"message,omitempty"` // net.drop
	Store   string  `json:"store,omitempty"`   // storage.*: empty means every store
	// Key limits a storage fault to the keys that start with it, as the store names them
	// (empty: every key). Where one medium holds several stores under prefixes of their own,
	// a key is named without its store's prefix.
	Key string `json:"key,omitempty"`

	// Probability applies per message, record, write or commit, in (0, 1].
	Probability float64 `json:"probability,omitempty"`

	// Spans are Durations in Go and integer nanoseconds in files (nanos.go).
	Window  Duration `json:"window_ns,omitempty"`  // how long the effect lasts
	Delay   Duration `json:"delay_ns,omitempty"`   // net.delay, storage.slow, restart.delay
	Timeout Duration `json:"timeout_ns,omitempty"` // external.timeout
	SkewPPM int64    `json:"skew_ppm,omitempty"`   // clock.skew, signed

	// Operator and Parallelism are a rescale's: the operator given the new parallelism.
	// RestoreMode is the restore mode the rescaled job starts in: one of RestoreModes, or
	// empty for claim.
	Operator    string `json:"operator,omitempty"`
	Parallelism int    `json:"parallelism,omitempty"`
	RestoreMode string `json:"restore_mode,omitempty"`
}

// OutOfModel reports whether the fault breaks an assumption of the protocol, so that a run with
// it is expected to end in a violation. It panics on an unknown kind.
func (f Fault) OutOfModel() bool { return f.Kind.OutOfModel() }

// Validate returns an error naming the first field that is wrong: an unknown kind, a field the
// kind does not take, a missing field, or a value out of range.
func (f Fault) Validate() error { return f.validate("") }

func (f Fault) validate(path string) error {
	info, ok := kindTable[f.Kind]
	if !ok {
		if f.Kind == "" {
			return fieldErr(join(path, "kind"), "missing")
		}
		return fieldErr(join(path, "kind"), "unknown fault kind %q", f.Kind)
	}
	set := f.setFields()
	for i := range fieldNames {
		bit := field(1 << i)
		name := join(path, bit.name())
		switch {
		case set&bit != 0 && info.allowed&bit == 0:
			return fieldErr(name, "does not apply to %s", f.Kind)
		case set&bit == 0 && info.required&bit != 0:
			return fieldErr(name, "required for %s", f.Kind)
		}
	}
	return f.checkValues(path)
}

// setFields returns the fields that hold a non-zero value.
func (f Fault) setFields() field {
	var set field
	mark := func(bit field, isSet bool) {
		if isSet {
			set |= bit
		}
	}
	mark(fieldTask, f.Task != "")
	mark(fieldHost, f.Host != "")
	mark(fieldFrom, f.From != "")
	mark(fieldTo, f.To != "")
	mark(fieldOneWay, f.OneWay)
	mark(fieldMessage, f.Message != "")
	mark(fieldStore, f.Store != "")
	// A NaN probability is "set" so that checkValues rejects it by name.
	mark(fieldProbability, f.Probability != 0)
	mark(fieldWindow, f.Window != 0)
	mark(fieldDelay, f.Delay != 0)
	mark(fieldTimeout, f.Timeout != 0)
	mark(fieldSkew, f.SkewPPM != 0)
	mark(fieldKey, f.Key != "")
	mark(fieldOperator, f.Operator != "")
	mark(fieldParallelism, f.Parallelism != 0)
	mark(fieldRestoreMode, f.RestoreMode != "")
	return set
}

// checkValues checks the ranges of the fields that are set; which are set is already right.
func (f Fault) checkValues(path string) error {
	for _, n := range []struct{ name, value string }{
		{"task", f.Task}, {"host", f.Host}, {"from", f.From}, {"to", f.To}, {"store", f.Store},
		{"operator", f.Operator},
	} {
		if n.value != "" && !validName(n.value) {
			return fieldErr(join(path, n.name), "invalid name %q (1 to %d of a-z A-Z 0-9 - _ . : / @)", n.value, MaxNameBytes)
		}
	}
	if f.Key != "" && !validName(f.Key) {
		return fieldErr(join(path, "key"), "invalid key prefix %q (1 to %d of a-z A-Z 0-9 - _ . : / @)", f.Key, MaxNameBytes)
	}
	if f.Task == Coordinator {
		return fieldErr(join(path, "task"), "the coordinator is crashed with %s", CrashCoordinator)
	}
	if f.From != "" && f.From == f.To {
		return fieldErr(join(path, "to"), "a link needs two different endpoints, got %q twice", f.To)
	}
	if f.Message != "" && !slices.Contains(allMessages, f.Message) {
		return fieldErr(join(path, "message"), "unknown message class %q (barrier, trigger, ack, notify)", f.Message)
	}
	if f.Probability != 0 && !(f.Probability > 0 && f.Probability <= 1) {
		return fieldErr(join(path, "probability"), "must be in (0, 1], got %v", f.Probability)
	}
	for _, d := range []struct {
		name  string
		nanos int64
	}{{"window_ns", f.Window.Nanos()}, {"delay_ns", f.Delay.Nanos()}, {"timeout_ns", f.Timeout.Nanos()}} {
		if d.nanos < 0 || d.nanos > MaxDurationNanos {
			return fieldErr(join(path, d.name), "must be in [1, %d], got %d", int64(MaxDurationNanos), d.nanos)
		}
	}
	if f.RestoreMode != "" && !slices.Contains(RestoreModes, f.RestoreMode) {
		return fieldErr(join(path, "restore_mode"), "unknown restore mode %q (claim, no-claim, legacy)", f.RestoreMode)
	}
	if f.Parallelism < 0 || f.Parallelism > MaxRescaleParallelism {
		return fieldErr(join(path, "parallelism"), "must be in [1, %d], got %d", MaxRescaleParallelism, f.Parallelism)
	}
	if f.SkewPPM < -MaxSkewPPM || f.SkewPPM > MaxSkewPPM {
		return fieldErr(join(path, "skew_ppm"), "must be in [-%d, %d], got %d", MaxSkewPPM, MaxSkewPPM, f.SkewPPM)
	}
	return nil
}

// String returns the fault on one line: the kind, then each set field as key=value in a fixed
// order, durations in Go notation. For example
//
//	net.partition from=src-0 to=sum-2 oneway window=1.5s
//
// It is stable, so it can appear in artifacts, golden files and shrink output.
func (f Fault) String() string {
	var b strings.Builder
	b.WriteString(string(f.Kind))
	add := func(key, value string) {
		b.WriteByte(' ')
		b.WriteString(key)
		b.WriteByte('=')
		b.WriteString(value)
	}
	for _, n := range []struct{ key, value string }{
		{"task", f.Task}, {"host", f.Host}, {"from", f.From}, {"to", f.To},
		{"message", string(f.Message)}, {"store", f.Store}, {"key", f.Key}, {"operator", f.Operator},
		{"restore_mode", f.RestoreMode},
	} {
		if n.value != "" {
			add(n.key, n.value)
		}
	}
	if f.OneWay {
		b.WriteString(" oneway")
	}
	if f.Probability != 0 {
		add("p", formatProbability(f.Probability))
	}
	for _, d := range []struct {
		key   string
		nanos int64
	}{{"window", f.Window.Nanos()}, {"delay", f.Delay.Nanos()}, {"timeout", f.Timeout.Nanos()}} {
		if d.nanos != 0 {
			add(d.key, time.Duration(d.nanos).String())
		}
	}
	if f.SkewPPM != 0 {
		add("skew", strconv.FormatInt(f.SkewPPM, 10)+"ppm")
	}
	if f.Parallelism != 0 {
		add("parallelism", strconv.Itoa(f.Parallelism))
	}
	return b.String()
}

// formatProbability writes p in the shortest form that reads back as the same float64.
func formatProbability(p float64) string { return strconv.FormatFloat(p, 'g', -1, 64) }
