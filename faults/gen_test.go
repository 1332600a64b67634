package faults

import (
	"slices"

	"github.com/ckptsim/ckptsim/trace"
	"pgregory.net/rapid"
)

// Generators of valid faults, triggers and schedules, for property tests.

var genName = rapid.StringMatching(`[a-z][a-z0-9._:/@-]{0,11}`)

func genProbability(t *rapid.T, label string) float64 {
	return rapid.OneOf(rapid.Just(1.0), rapid.Float64Range(1e-12, 1)).Draw(t, label)
}

func genFault(t *rapid.T) Fault {
	f := Fault{Kind: rapid.SampledFrom(allKinds).Draw(t, "kind")}
	info := kindTable[f.Kind]
	for i, name := range fieldNames {
		bit := field(1 << i)
		if info.required&bit == 0 && (info.allowed&bit == 0 || !rapid.Bool().Draw(t, "set "+name)) {
			continue
		}
		switch bit {
		case fieldTask:
			f.Task = genName.Filter(func(s string) bool { return s != Coordinator }).Draw(t, name)
		case fieldHost:
			f.Host = genName.Draw(t, name)
		case fieldFrom:
			f.From = genName.Draw(t, name)
		case fieldTo:
			f.To = genName.Filter(func(s string) bool { return s != f.From }).Draw(t, name)
		case fieldOneWay:
			f.OneWay = true
		case fieldMessage:
			f.Message = rapid.SampledFrom(allMessages).Draw(t, name)
		case fieldStore:
			f.Store = genName.Draw(t, name)
		case fieldProbability:
			f.Probability = genProbability(t, name)
		case fieldWindow:
			f.Window = Duration(rapid.Int64Range(1, MaxDurationNanos).Draw(t, name))
		case fieldDelay:
			f.Delay = Duration(rapid.Int64Range(1, MaxDurationNanos).Draw(t, name))
		case fieldTimeout:
			f.Timeout = Duration(rapid.Int64Range(1, MaxDurationNanos).Draw(t, name))
		case fieldSkew:
			f.SkewPPM = rapid.Int64Range(-MaxSkewPPM, MaxSkewPPM).Filter(func(v int64) bool { return v != 0 }).Draw(t, name)
		}
	}
	return f
}

func genMatch(t *rapid.T) Match {
	var m Match
	if rapid.Bool().Draw(t, "match kind") {
		m.Kind = rapid.SampledFrom(slices.DeleteFunc(trace.Kinds(), func(k string) bool { return !triggerKind(k) })).Draw(t, "kind")
	}
	if rapid.Bool().Draw(t, "match task") {
		m.Task = genName.Draw(t, "task")
	}
	if rapid.Bool().Draw(t, "match cp") {
		m.CP = rapid.Uint64Min(1).Draw(t, "cp")
	}
	return m
}

func genTrigger(t *rapid.T) Trigger {
	switch rapid.SampledFrom([]TriggerType{AtTime, OnNth, OnChance}).Draw(t, "trigger") {
	case AtTime:
		return At(Duration(rapid.Int64Range(0, MaxAtNanos).Draw(t, "at")))
	case OnNth:
		return Nth(rapid.IntRange(1, MaxNth).Draw(t, "nth"), genMatch(t))
	default:
		return Chance(genProbability(t, "p"), rapid.IntRange(1, MaxNth).Draw(t, "max"), genMatch(t))
	}
}

func genSchedule(maxEntries int) *rapid.Generator[Schedule] {
	return rapid.Custom(func(t *rapid.T) Schedule {
		n := rapid.IntRange(0, maxEntries).Draw(t, "entries")
		var s Schedule
		for range n {
			s.Entries = append(s.Entries, Entry{Trigger: genTrigger(t), Fault: genFault(t)})
		}
		return s
	})
}
