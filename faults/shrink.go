package faults

import "fmt"

// Magnitude names a number in a schedule entry that shrinking may halve, by its JSON path
// within the entry.
type Magnitude string

// The magnitudes, in the order Shrinks tries them.
const (
	ShrinkWindow      Magnitude = "fault.window_ns"
	ShrinkDelay       Magnitude = "fault.delay_ns"
	ShrinkTimeout     Magnitude = "fault.timeout_ns"
	ShrinkSkew        Magnitude = "fault.skew_ppm"
	ShrinkProbability Magnitude = "fault.probability"
	ShrinkAt          Magnitude = "trigger.at_ns"
	ShrinkNth         Magnitude = "trigger.nth"
	ShrinkChance      Magnitude = "trigger.probability"
	ShrinkMax         Magnitude = "trigger.max"
)

var allMagnitudes = []Magnitude{
	ShrinkWindow, ShrinkDelay, ShrinkTimeout, ShrinkSkew, ShrinkProbability,
	ShrinkAt, ShrinkNth, ShrinkChance, ShrinkMax,
}

// MinShrinkProbability is the floor below which shrinking does not halve a probability: below
// it a fault almost never fires, which is no simpler to read than a fault that is gone, and
// removing the entry is the better step.
const MinShrinkProbability = 1.0 / 1024

// Without returns a copy of s without its i-th entry. It panics if i is out of range.
func (s Schedule) Without(i int) Schedule {
	s.mustHave(i)
	entries := make([]Entry, 0, len(s.Entries)-1)
	entries = append(entries, s.Entries[:i]...)
	entries = append(entries, s.Entries[i+1:]...)
	if len(entries) == 0 {
		entries = nil
	}
	return Schedule{Entries: entries}
}

// Halve returns a copy of s in which magnitude m of the i-th entry is halved, and whether
// anything changed. Integers halve rounding toward zero and stop where the result would be
// invalid (a window of 0, an nth of 0) or, for skew, zero; probabilities stop at
// MinShrinkProbability. A valid schedule stays valid. It panics if i is out of range.
func (s Schedule) Halve(i int, m Magnitude) (Schedule, bool) {
	s.mustHave(i)
	e := s.Entries[i]
	if !halve(&e, m) {
		return s, false
	}
	entries := append([]Entry(nil), s.Entries...)
	entries[i] = e
	return Schedule{Entries: entries}, true
}

// Shrinks returns every one-step simplification of s, simplest first: each entry removed, in
// order, then each magnitude of each entry halved. Every candidate is smaller than s in a
// well-founded order (fewer entries, or the same entries with one number closer to its floor),
// so a shrinker that keeps taking a candidate that still fails always stops.
func (s Schedule) Shrinks() []Schedule {
	var out []Schedule
	for i := range s.Entries {
		out = append(out, s.Without(i))
	}
	for i := range s.Entries {
		for _, m := range allMagnitudes {
			if smaller, ok := s.Halve(i, m); ok {
				out = append(out, smaller)
			}
		}
	}
	return out
}

func (s Schedule) mustHave(i int) {
	if i < 0 || i >= len(s.Entries) {
		panic(fmt.Sprintf("faults: entry %d of a schedule of %d", i, len(s.Entries)))
	}
}

// halve halves magnitude m of e in place and reports whether it changed.
func halve(e *Entry, m Magnitude) bool {
	switch m {
	case ShrinkWindow:
		return halveDuration(&e.Fault.Window, 1)
	case ShrinkDelay:
		return halveDuration(&e.Fault.Delay, 1)
	case ShrinkTimeout:
		return halveDuration(&e.Fault.Timeout, 1)
	case ShrinkSkew:
		if e.Fault.SkewPPM/2 == 0 {
			return false
		}
		e.Fault.SkewPPM /= 2
		return true
	case ShrinkProbability:
		return halveProbability(&e.Fault.Probability)
	case ShrinkAt:
		return halveDuration(&e.Trigger.At, 0)
	case ShrinkNth:
		return halveInt(&e.Trigger.Nth)
	case ShrinkChance:
		return halveProbability(&e.Trigger.Probability)
	case ShrinkMax:
		return halveInt(&e.Trigger.Max)
	}
	panic("faults: unknown magnitude " + string(m))
}

// halveInt64 halves *v if the result is at least floor and differs from *v.
func halveDuration(v *Duration, floor Duration) bool {
	if *v/2 < floor || *v/2 == *v {
		return false
	}
	*v /= 2
	return true
}

func halveInt(v *int) bool {
	if *v/2 < 1 {
		return false
	}
	*v /= 2
	return true
}

func halveProbability(p *float64) bool {
	if *p/2 < MinShrinkProbability {
		return false
	}
	*p /= 2
	return true
}
