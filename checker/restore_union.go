package checker

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleUnionEverywhere is restore-fidelity's rule for union state on rescaled restores.
const ruleUnionEverywhere = "restore.union-state-everywhere"

// Union list state (union.<state> on snapshot.taken: the entries a task holds) is given
// whole to every task of a rescaled job, which keeps its share (union.<state> on its
// task.restore). In a whole round of rescaled restores (rescaledRounds), a restore that
// keeps entries of a state must have read every snapshot of the restored checkpoint that
// holds entries of it (rescaled-from), and across the round every entry the snapshots held
// is kept by exactly one restore, with the value the snapshot held: none loses it, two
// double it. An entry is held by one snapshot, and no restore keeps entries of a state no
// snapshot holds. A round whose snapshots hold a union state that no restore of it says
// what it kept cannot be judged.

// unionHeld is the entries of one union state held by the snapshots of one checkpoint.
type unionHeld struct {
	holders []string         // the tasks whose snapshots hold entries, sorted
	entries map[string]int64 // entry key -> value
}

// unionStateEverywhere judges the rule; unjudged counts the union states of whole rounds
// without the evidence to judge them.
func unionStateEverywhere(ix *traceIndex, rounds []*restoreRound) (violations []Violation, unjudged int) {
	held, violations := unionHeldAt(ix)
	for _, round := range rounds {
		for _, state := range slices.Sorted(maps.Keys(held[round.cp])) {
			found, judged := judgeUnionRound(ix.events, round, state, held[round.cp][state])
			violations = append(violations, found...)
			if !judged {
				unjudged++
			}
		}
		violations = append(violations, keptOfNoState(ix.events, round, held[round.cp])...)
	}
	return violations, unjudged
}

// unionHeldAt returns what the snapshots of each checkpoint hold of each union state, a
// task's latest snapshot for the checkpoint counting, and flags an entry two tasks hold.
func unionHeldAt(ix *traceIndex) (map[uint64]map[string]*unionHeld, []Violation) {
	type key struct {
		cp    uint64
		state string
	}
	snapshots := map[key]map[string]int{} // -> task -> index of its snapshot.taken
	for i := range ix.only(kindsOf(trace.KindSnapshotTaken)) {
		e := &ix.events[i]
		for state := range unionAttrs(e) {
			k := key{e.CP, state}
			if snapshots[k] == nil {
				snapshots[k] = map[string]int{}
			}
			snapshots[k][e.Task] = i
		}
	}
	held := map[uint64]map[string]*unionHeld{}
	var violations []Violation
	order := slices.SortedFunc(maps.Keys(snapshots), func(a, b key) int { return cmp.Or(cmp.Compare(a.cp, b.cp), cmp.Compare(a.state, b.state)) })
	for _, k := range order {
		byTask := snapshots[k]
		h := &unionHeld{holders: slices.Sorted(maps.Keys(byTask)), entries: map[string]int64{}}
		owner := map[string]int{} // entry key -> index of the snapshot holding it
		for _, task := range h.holders {
			e := &ix.events[byTask[task]]
			for _, en := range unionAttrs(e)[k.state] {
				if other, twice := owner[en.Key]; twice {
					later := &ix.events[max(other, byTask[task])]
					violations = append(violations, unionViolation(later, "entry %s of union state %s held by the snapshots of %s and %s for checkpoint %d",
						en.Key, k.state, ix.events[other].Task, task, k.cp))
				}
				owner[en.Key], h.entries[en.Key] = byTask[task], en.Value
			}
		}
		if held[k.cp] == nil {
			held[k.cp] = map[string]*unionHeld{}
		}
		held[k.cp][k.state] = h
	}
	return held, violations
}

// keptOfNoState flags the restores of a round that keep entries of a union state no
// snapshot of its checkpoint holds.
func keptOfNoState(events []trace.Event, round *restoreRound, held map[string]*unionHeld) []Violation {
	var out []Violation
	for _, i := range round.restores {
		kept := unionAttrs(&events[i])
		for _, state := range slices.Sorted(maps.Keys(kept)) {
			if held[state] == nil && len(kept[state]) > 0 {
				out = append(out, unionViolation(&events[i], "%s kept entries of union state %s, which no snapshot of checkpoint %d holds", events[i].Task, state, round.cp))
			}
		}
	}
	return out
}

// unionAttrs returns the union-state entries an event lists, by state.
func unionAttrs(e *trace.Event) map[string][]trace.Entry {
	var out map[string][]trace.Entry
	for _, a := range e.Attrs {
		state, ok := strings.CutPrefix(a.Key, trace.AttrUnionPrefix)
		if !ok {
			continue
		}
		if entries, ok := trace.ParseEntries(a.Value); ok {
			if out == nil {
				out = map[string][]trace.Entry{}
			}
			out[state] = entries
		}
	}
	return out
}

// judgeUnionRound checks the restores of one round that keep entries of state h; judged is
// false when none of them says what it kept.
func judgeUnionRound(events []trace.Event, round *restoreRound, state string, h *unionHeld) (out []Violation, judged bool) {
	keptBy := map[string][]string{} // entry key -> the tasks that kept it
	var last *trace.Event
	for _, i := range round.restores {
		e := &events[i]
		kept, ok := unionAttrs(e)[state]
		if !ok {
			continue
		}
		last = e
		from, _ := rescaledFrom(e)
		for _, holder := range h.holders {
			if !slices.Contains(from, holder) {
				out = append(out, unionViolation(e, "%s restored union state %s from checkpoint %d without %s's snapshot, which holds entries of it", e.Task, state, round.cp, holder))
			}
		}
		for _, en := range kept {
			keptBy[en.Key] = append(keptBy[en.Key], e.Task)
			if v, ok := h.entries[en.Key]; ok && v != en.Value {
				out = append(out, unionViolation(e, "%s kept entry %s of union state %s at %d, checkpoint %d held %d", e.Task, en.Key, state, en.Value, round.cp, v))
			} else if !ok {
				out = append(out, unionViolation(e, "%s kept entry %s of union state %s, which no snapshot of checkpoint %d held", e.Task, en.Key, state, round.cp))
			}
		}
	}
	if last == nil {
		return nil, false
	}
	keys := slices.SortedFunc(maps.Keys(h.entries), func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(a, b)) })
	for _, key := range keys {
		switch by := keptBy[key]; len(by) {
		case 0:
			out = append(out, unionViolation(last, "rescaled restore from checkpoint %d: entry %s of union state %s kept by no task", round.cp, key, state))
		case 1:
		default:
			out = append(out, unionViolation(last, "rescaled restore from checkpoint %d: entry %s of union state %s kept by %d tasks (%s)", round.cp, key, state, len(by), strings.Join(by, ", ")))
		}
	}
	return out, true
}

// unionViolation is a violation of the rule pinned to e.
func unionViolation(e *trace.Event, format string, args ...any) Violation {
	v := violationAt(PropRestoreFidelity, e, format, args...)
	v.Rule = ruleUnionEverywhere
	return v
}
