package checker

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleKeyGroupsOnce is restore-fidelity's rule for rescaled restores.
const ruleKeyGroupsOnce = "restore.keygroups-once"

// In a whole round of rescaled restores (rescaledRounds), every key group a snapshot
// of the restored checkpoint held (its snapshot.taken keygroups) must be restored by
// exactly one task that lists that snapshot in rescaled-from and owns the group: none means
// the group's keyed state was lost, two that it is counted twice. A round that a crash or a
// failover cuts short is not judged; nor is a trace whose snapshots carry no key groups.

// groupRange is a range of key groups, both ends included.
type groupRange struct{ first, last int }

// parseGroups reads "first-last".
func parseGroups(s string) (groupRange, bool) {
	a, b, ok := strings.Cut(s, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || first < 0 || last < first {
		return groupRange{}, false
	}
	return groupRange{first, last}, true
}

// keyGroupsRestoredOnce judges the rule over the trace's whole rounds of rescaled restores.
func keyGroupsRestoredOnce(ix *traceIndex, rounds []*restoreRound) []Violation {
	groupsAt := map[taskCheckpoint]groupRange{} // key groups of each snapshot taken
	for i := range ix.only(kindsOf(trace.KindSnapshotTaken)) {
		e := &ix.events[i]
		if v, ok := e.Attr(trace.AttrKeyGroups); ok {
			if r, ok := parseGroups(v); ok {
				groupsAt[taskCheckpoint{e.Task, e.CP}] = r
			}
		}
	}
	var violations []Violation
	for _, round := range rounds {
		violations = append(violations, judgeRound(ix.events, round, groupsAt)...)
	}
	return violations
}

// judgeRound checks that the restores of a whole round tile the key groups of every keyed
// snapshot of the round's checkpoint.
func judgeRound(events []trace.Event, round *restoreRound, groupsAt map[taskCheckpoint]groupRange) []Violation {
	covers := map[string][]groupRange{} // old task -> the groups restores took from it
	anyKeyed := false
	for _, i := range round.restores {
		e := &events[i]
		from, _ := rescaledFrom(e)
		v, _ := e.Attr(trace.AttrKeyGroups)
		own, keyed := parseGroups(v)
		anyKeyed = anyKeyed || keyed
		for _, old := range from {
			held, ok := groupsAt[taskCheckpoint{old, round.cp}]
			if !ok || !keyed {
				continue
			}
			if r := (groupRange{max(own.first, held.first), min(own.last, held.last)}); r.first <= r.last {
				covers[old] = append(covers[old], r)
			}
		}
	}
	if !anyKeyed {
		return nil // the restores name no key groups: nothing to judge them by
	}
	last := &events[round.restores[len(round.restores)-1]]
	var out []Violation
	for _, key := range slices.SortedFunc(func(yield func(taskCheckpoint) bool) {
		for k := range groupsAt {
			if k.cp == round.cp && !yield(k) {
				return
			}
		}
	}, func(a, b taskCheckpoint) int { return cmp.Compare(a.task, b.task) }) {
		if msg := tiling(groupsAt[key], covers[key.task]); msg != "" {
			v := violationAt(PropRestoreFidelity, last, "rescaled restore from checkpoint %d: key groups of %s's snapshot (%d-%d) %s",
				round.cp, key.task, groupsAt[key].first, groupsAt[key].last, msg)
			v.Rule = ruleKeyGroupsOnce
			out = append(out, v)
		}
	}
	return out
}

// tiling says how the ranges parts fail to cover held exactly once, or "" if they do.
func tiling(held groupRange, parts []groupRange) string {
	slices.SortFunc(parts, func(a, b groupRange) int { return cmp.Compare(a.first, b.first) })
	next := held.first
	for _, p := range parts {
		switch {
		case p.first > next:
			return fmt.Sprintf("%d-%d restored by no task", next, p.first-1)
		case p.first < next:
			return fmt.Sprintf("%d-%d restored twice", p.first, min(p.last, next-1))
		}
		next = p.last + 1
	}
	if next <= held.last {
		return fmt.Sprintf("%d-%d restored by no task", next, held.last)
	}
	return ""
}
