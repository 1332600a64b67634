package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// TriggerType says when a scheduled fault fires.
type TriggerType string

const (
	// AtTime fires once, at virtual time At.
	AtTime TriggerType = "at"
	// OnNth fires once, at the Nth trace event that Match accepts.
	OnNth TriggerType = "nth"
	// OnChance fires at each trace event that Match accepts with probability Probability, at
	// most Max times.
	OnChance TriggerType = "chance"
)

// Match is a predicate on trace events: each non-zero field must equal the event's. The zero
// Match accepts every event. Fault and phase events, which the injector itself emits, never
// match, so a fault cannot trigger on its own announcement.
type Match struct {
	Kind string `json:"kind,omitempty"` // a trace kind such as snapshot.ack
	Task string `json:"task,omitempty"` // a task id, or "coordinator"
	CP   uint64 `json:"cp,omitempty"`   // a checkpoint id
}

// Matches reports whether e satisfies m.
func (m Match) Matches(e *trace.Event) bool {
	if e.Kind == trace.KindFault || e.Kind == trace.KindPhase {
		return false
	}
	return (m.Kind == "" || m.Kind == e.Kind) &&
		(m.Task == "" || m.Task == e.Task) &&
		(m.CP == 0 || m.CP == e.CP)
}

// Trigger says when a scheduled fault fires. Which fields apply depends on Type: At for
// AtTime; the Match and Nth for OnNth; the Match, Probability and Max for OnChance. An event
// trigger with After counts only the events from that virtual time on: "the first
// checkpoint.complete after 2s", or savepoints now and then once the input nears its end.
type Trigger struct {
	Type        TriggerType `json:"type"`
	At          Duration    `json:"at_ns,omitempty"` // in files, integer nanoseconds (nanos.go)
	Match                   // flattened into the trigger's JSON object
	Nth         int         `json:"nth,omitempty"`
	Probability float64     `json:"probability,omitempty"`
	Max         int         `json:"max,omitempty"`
	After       Duration    `json:"from_ns,omitempty"`
}

// At returns a trigger that fires at virtual time t.
func At(t Duration) Trigger { return Trigger{Type: AtTime, At: t} }

// Nth returns a trigger that fires at the nth event m accepts (n counts from 1).
func Nth(n int, m Match) Trigger { return Trigger{Type: OnNth, Match: m, Nth: n} }

// Chance returns a trigger that fires at each event m accepts with probability p, at most max
// times.
func Chance(p float64, max int, m Match) Trigger {
	return Trigger{Type: OnChance, Match: m, Probability: p, Max: max}
}

// Validate returns an error naming the first field that is wrong.
func (t Trigger) Validate() error { return t.validate("") }

func (t Trigger) validate(path string) error {
	var allowed []string
	switch t.Type {
	case AtTime:
		allowed = []string{"at_ns"}
	case OnNth:
		allowed = []string{"kind", "task", "cp", "nth", "from_ns"}
	case OnChance:
		allowed = []string{"kind", "task", "cp", "probability", "max", "from_ns"}
	case "":
		return fieldErr(join(path, "type"), "missing (at, nth or chance)")
	default:
		return fieldErr(join(path, "type"), "unknown trigger type %q (at, nth or chance)", t.Type)
	}
	for _, f := range []struct {
		name  string
		isSet bool
	}{
		{"at_ns", t.At != 0}, {"kind", t.Kind != ""}, {"task", t.Task != ""},
		{"cp", t.CP != 0}, {"nth", t.Nth != 0}, {"probability", t.Probability != 0},
		{"max", t.Max != 0}, {"from_ns", t.After != 0},
	} {
		if f.isSet && !slices.Contains(allowed, f.name) {
			return fieldErr(join(path, f.name), "does not apply to a trigger of type %s", t.Type)
		}
	}
	switch t.Type {
	case AtTime:
		if t.At < 0 || t.At > MaxAtNanos {
			return fieldErr(join(path, "at_ns"), "must be in [0, %d], got %d", int64(MaxAtNanos), t.At.Nanos())
		}
		return nil
	case OnNth:
		if t.Nth < 1 || t.Nth > MaxNth {
			return fieldErr(join(path, "nth"), "must be in [1, %d], got %d", MaxNth, t.Nth)
		}
	case OnChance:
		if !(t.Probability > 0 && t.Probability <= 1) {
			return fieldErr(join(path, "probability"), "must be in (0, 1], got %v", t.Probability)
		}
		if t.Max < 1 || t.Max > MaxNth {
			return fieldErr(join(path, "max"), "must be in [1, %d], got %d", MaxNth, t.Max)
		}
	}
	if t.After < 0 || t.After > MaxAtNanos {
		return fieldErr(join(path, "from_ns"), "must be in [0, %d], got %d", int64(MaxAtNanos), t.After.Nanos())
	}
	if t.Kind != "" && !triggerKind(t.Kind) {
		return fieldErr(join(path, "kind"), "unknown or unmatchable trace kind %q", t.Kind)
	}
	if t.Task != "" && !validName(t.Task) {
		return fieldErr(join(path, "task"), "invalid name %q", t.Task)
	}
	return nil
}

// triggerKind reports whether a trigger may name kind: a kind of the trace schema, since a typo
// would make a trigger that silently never fires, and not fault or phase, which the injector
// emits itself.
func triggerKind(kind string) bool {
	return trace.IsKind(kind) && kind != trace.KindFault && kind != trace.KindPhase
}

// String returns the trigger on one line, for example
//
//	t=1.5s
//	nth=3 on=snapshot.ack task=sum-2
//	p=0.1 max=2 on=barrier.recv task=sum-2 cp=4
//
// An empty kind prints as on=*.
func (t Trigger) String() string {
	switch t.Type {
	case AtTime:
		return "t=" + time.Duration(t.At).String()
	case OnNth:
		return "nth=" + strconv.Itoa(t.Nth) + " " + t.Match.String() + t.from()
	case OnChance:
		return fmt.Sprintf("p=%s max=%d %s", formatProbability(t.Probability), t.Max, t.Match.String()) + t.from()
	}
	return "type=" + string(t.Type) + "?"
}

// from is " from=D" for a trigger that counts events from D on, else "".
func (t Trigger) from() string {
	if t.After == 0 {
		return ""
	}
	return " from=" + time.Duration(t.After).String()
}

// String returns the match as on=KIND [task=T] [cp=N].
func (m Match) String() string {
	var b strings.Builder
	b.WriteString("on=")
	if m.Kind == "" {
		b.WriteString("*")
	} else {
		b.WriteString(m.Kind)
	}
	if m.Task != "" {
		b.WriteString(" task=" + m.Task)
	}
	if m.CP != 0 {
		b.WriteString(" cp=" + strconv.FormatUint(m.CP, 10))
	}
	return b.String()
}
