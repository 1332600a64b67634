package checker

import (
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// The splits of a job's split sources, judged as part of consistent-cut. A split source's
// splits are each held by the coordinator's split enumerator or by one reader, and a
// checkpoint records both sides: the enumerator's state on its checkpoint.trigger (attr
// unassigned) and each reader's splits on its snapshot (attr splits). A restore gives each
// side back what the checkpoint holds, so at every completed checkpoint every split must be
// held exactly once (cut.splits-held-once): held twice it is read twice after a restore,
// held by neither it is never read again. And between restarts the enumerator gives a
// split only to a reader that does not hold it already (splits.one-reader): a split another
// reader holds would be read by both. A trace without split events judges neither. An empty
// list is an absent attribute in a trace, so a trace whose triggers and snapshots never list
// a split at all lacks the evidence: consistent-cut is unknown then, not failed.

// The rules of the split sources.
const (
	ruleSplitsHeldOnce = "cut.splits-held-once"
	ruleSplitsOneOwner = "splits.one-reader"
)

// splitKinds are the kinds the split judges react to.
var splitKinds = kindsOf(trace.KindSplitAssign, trace.KindSplitAdd, trace.KindCheckpointTrigger,
	trace.KindSnapshotTaken, trace.KindSnapshotCarried, trace.KindTaskRestore, trace.KindTaskCrash,
	trace.KindJobFailover, trace.KindJobResubmit)

// splitItems returns the splits an attribute lists, as split or split=offset items.
func splitItems(e *trace.Event, key string) []string {
	v, _ := e.Attr(key)
	if v == "" {
		return nil
	}
	items := strings.Split(v, trace.ListSeparator)
	for i, item := range items {
		items[i], _, _ = strings.Cut(item, "=")
	}
	return items
}

// judgeSplitsHeldOnce judges the completed checkpoint complete, whose cut maps each task to
// its snapshot's event; trigger is the checkpoint's checkpoint.trigger and all the job's
// splits. A job without split events (all empty) judges nothing.
func judgeSplitsHeldOnce(events []trace.Event, complete *trace.Event, cut map[string]int, trigger *trace.Event, all []string) []Violation {
	if len(all) == 0 {
		return nil
	}
	if trigger == nil {
		return []Violation{forRule(ruleSplitsHeldOnce, violationAt(PropConsistentCut, complete,
			"checkpoint %d completed, but its checkpoint.trigger, which holds the split enumerator's state, is not in the trace", complete.CP))}
	}
	holders := map[string][]string{}
	for _, split := range splitItems(trigger, trace.AttrUnassigned) {
		holders[split] = append(holders[split], "the enumerator")
	}
	tasks := make([]string, 0, len(cut))
	for task := range cut {
		tasks = append(tasks, task)
	}
	slices.Sort(tasks)
	for _, task := range tasks {
		for _, split := range splitItems(&events[cut[task]], trace.AttrSplits) {
			holders[split] = append(holders[split], task)
		}
	}
	var out []Violation
	for _, split := range all {
		switch h := holders[split]; {
		case len(h) == 0:
			out = append(out, forRule(ruleSplitsHeldOnce, violationAt(PropConsistentCut, complete,
				"checkpoint %d holds split %s nowhere: neither the enumerator's state nor a reader's snapshot has it, so a restore never reads it again", complete.CP, split)))
		case len(h) > 1:
			out = append(out, forRule(ruleSplitsHeldOnce, violationAt(PropConsistentCut, complete,
				"checkpoint %d holds split %s twice, by %s: a restore reads it twice", complete.CP, split, strings.Join(h, " and "))))
		}
	}
	return out
}

// splitJudge follows which reader holds each split, between restarts.
type splitJudge struct {
	events []trace.Event
	owner  map[string]string // split -> reader holding it in this attempt
	taken  map[taskCheckpoint]int
	found  []Violation
}

// judgeSplitOwners judges splits.one-reader over the trace.
func judgeSplitOwners(ix *traceIndex) []Violation {
	j := &splitJudge{events: ix.events, owner: map[string]string{}, taken: map[taskCheckpoint]int{}}
	for i := range ix.only(splitKinds) {
		j.observe(i)
	}
	return j.found
}

// release forgets what reader held.
func (j *splitJudge) release(reader string) {
	for split, owner := range j.owner {
		if owner == reader {
			delete(j.owner, split)
		}
	}
}

func (j *splitJudge) observe(i int) {
	e := &j.events[i]
	switch e.Kind {
	case trace.KindSnapshotTaken:
		j.taken[taskCheckpoint{e.Task, e.CP}] = i
	case trace.KindJobFailover, trace.KindJobResubmit:
		clear(j.owner)
	case trace.KindTaskCrash:
		j.release(e.Task) // a region failover may hand its splits out again before its restore
	case trace.KindTaskRestore:
		j.release(e.Task) // the incarnation before held them
		if at, ok := j.taken[taskCheckpoint{e.Task, e.CP}]; ok && e.CP != 0 {
			for _, split := range splitItems(&j.events[at], trace.AttrSplits) {
				j.owner[split] = e.Task
			}
		}
	case trace.KindSplitAssign:
		split, _ := e.Attr(trace.AttrSplit)
		if owner, held := j.owner[split]; held && owner != e.To {
			j.found = append(j.found, forRule(ruleSplitsOneOwner, violationAt(PropConsistentCut, e,
				"split %s assigned to %s while %s holds it", split, e.To, owner)))
		}
	case trace.KindSplitAdd:
		split, _ := e.Attr(trace.AttrSplit)
		j.owner[split] = e.Task
	}
}

// splitEvidence reports whether some checkpoint.trigger lists unassigned splits or some
// reader's snapshot lists its splits: without either, a trace that assigns splits says
// nothing of where they are at its checkpoints.
func splitEvidence(ix *traceIndex) bool {
	for i := range ix.only(kindsOf(trace.KindCheckpointTrigger, trace.KindSnapshotTaken, trace.KindSnapshotCarried)) {
		e := &ix.events[i]
		if len(splitItems(e, trace.AttrUnassigned)) > 0 || len(splitItems(e, trace.AttrSplits)) > 0 {
			return true
		}
	}
	return false
}

// allSplits lists every split the trace names, in the order it first names them.
func allSplits(ix *traceIndex) []string {
	var all []string
	seen := map[string]bool{}
	add := func(split string) {
		if !seen[split] {
			seen[split] = true
			all = append(all, split)
		}
	}
	for i := range ix.only(kindsOf(trace.KindSplitAssign, trace.KindCheckpointTrigger)) {
		e := &ix.events[i]
		if e.Kind == trace.KindSplitAssign {
			split, _ := e.Attr(trace.AttrSplit)
			add(split)
			continue
		}
		for _, split := range splitItems(e, trace.AttrUnassigned) {
			add(split)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return all
}
