package faults

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// Attribute keys of fault events, beyond the fault's own parameters (which use their JSON
// names: host, message, store, oneway, probability, window_ns, delay_ns, timeout_ns, skew_ppm).
const (
	// AttrID is the EffectID of the injection; a windowed fault's end event repeats it.
	AttrID = "id"
	// AttrEntry is the index of the schedule entry that injected the fault.
	AttrEntry = "entry"
	// AttrEnd marks the event that ends a windowed fault's effect (value "true").
	AttrEnd = "end"
)

// faultEvent returns the trace event announcing fault f of schedule entry entry under id, or
// its end. Task carries the task it hits (the coordinator for crash.coordinator), From and To
// its link; the other parameters are attributes in key order.
func faultEvent(entry int, id EffectID, f Fault, end bool) trace.Event {
	e := trace.Event{Kind: trace.KindFault, Fault: string(f.Kind), Task: f.Task, From: f.From, To: f.To}
	if f.Kind == CrashCoordinator {
		e.Task = Coordinator
	}
	add := func(key, value string) { e.Attrs = append(e.Attrs, trace.Attr{Key: key, Value: value}) }
	add(AttrEntry, strconv.Itoa(entry))
	add(AttrID, strconv.FormatUint(uint64(id), 10))
	if end {
		add(AttrEnd, "true")
	}
	for _, s := range []struct{ key, value string }{
		{"host", f.Host}, {"message", string(f.Message)}, {"store", f.Store}, {"key", f.Key},
	} {
		if s.value != "" {
			add(s.key, s.value)
		}
	}
	if f.OneWay {
		add("oneway", "true")
	}
	if f.Probability != 0 {
		add("probability", formatProbability(f.Probability))
	}
	for _, n := range []struct {
		key   string
		value int64
	}{
		{"window_ns", f.Window.Nanos()}, {"delay_ns", f.Delay.Nanos()},
		{"timeout_ns", f.Timeout.Nanos()}, {"skew_ppm", f.SkewPPM},
	} {
		if n.value != 0 {
			add(n.key, strconv.FormatInt(n.value, 10))
		}
	}
	slices.SortFunc(e.Attrs, func(a, b trace.Attr) int { return strings.Compare(a.Key, b.Key) })
	return e
}

// phaseEvent returns the trace event that starts phase p.
func phaseEvent(p Phase) trace.Event {
	return trace.Event{Kind: trace.KindPhase, Attrs: []trace.Attr{{Key: trace.AttrPhase, Value: p.String()}}}
}
