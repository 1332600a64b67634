package checker

import (
	"slices"

	"github.com/google/go-cmp/cmp"

	"github.com/ckptsim/ckptsim/trace"
)

// ExactlyOnce checks that the committed output equals ref.Output: every record id committed
// exactly as often as expected (normally once), with the expected value, and nothing else.
// A lost record is pinned to the write that never became visible, a duplicate to the commit
// that made it visible once too often. Result.Diff shows the committed count per differing
// record id, so a duplicate reads as 2 and a loss as 0.
func ExactlyOnce(events []trace.Event, ref Reference) Result {
	ix := newTraceIndex(events)
	owed := stoppedReference(ix, ref)
	return exactlyOnce(events, owed, newReplay(ix, owed.ref))
}

func exactlyOnce(events []trace.Event, owed owedOutput, sinks *replay) Result {
	ref := owed.ref
	if ref.Output == nil {
		return unknownResult(PropExactlyOnce, owed.why())
	}
	out := sinks.output()
	var violations []Violation
	var differing []int
	var pending missingOutput
	for k := range out.records {
		r := &out.records[k]
		switch {
		case r.count < r.want.Count && pending.mayCome(events, out, k):
		case r.count < r.want.Count:
			differing = append(differing, k)
			violations = append(violations, explainLoss(PropExactlyOnce, events, out, k))
		case r.count > r.want.Count && !r.expected && owed.beyond[r.id]:
			differing = append(differing, k) // judged by beyondCut
		case r.count > r.want.Count && !r.expected:
			differing = append(differing, k)
			violations = append(violations, violationAt(PropExactlyOnce, &events[out.overflow[k]],
				"record %q committed %d times but is not in the reference output", r.id, r.count))
		case r.count > r.want.Count:
			differing = append(differing, k)
			violations = append(violations, violationAt(PropExactlyOnce, &events[out.overflow[k]],
				"record %q duplicated: committed %d times, expected %d", r.id, r.count, r.want.Count))
		}
		if r.lastUpsert >= 0 && r.expected && r.value != r.want.Value {
			violations = append(violations, violationAt(PropExactlyOnce, &events[r.lastUpsert],
				"record %q ends with value %q, expected %q", r.id, r.value, r.want.Value))
		}
	}
	for k, wrong := range out.wrongValue {
		r := &out.records[k]
		violations = append(violations, violationAt(PropExactlyOnce, &events[wrong.index],
			"record %q committed with value %q, expected %q", r.id, wrong.value, r.want.Value))
	}
	for _, index := range out.partial {
		e := &events[index]
		records, _ := intAttr(e, trace.AttrRecords)
		violations = append(violations, violationAt(PropExactlyOnce, e,
			"commit of transaction %q made %d records visible, but it holds %d writes",
			e.Txn, records, out.txns[e.Txn].size))
	}
	for k := range violations {
		violations[k].Rule = ruleExactlyOnce
	}
	violations = append(violations, owed.beyondCut(PropExactlyOnce, events, out)...)
	res := pending.judged(newResult(PropExactlyOnce, violations), out)
	res.Diff = countsDiff(out, differing)
	return res
}

// AtLeastOnce checks that no record of ref.Output is lost: each is committed at least as
// often as expected. Duplicates and changed values are allowed, since replay after recovery
// may re-emit records and re-aggregate them.
func AtLeastOnce(events []trace.Event, ref Reference) Result {
	ix := newTraceIndex(events)
	owed := stoppedReference(ix, ref)
	return atLeastOnce(events, owed, newReplay(ix, owed.ref))
}

func atLeastOnce(events []trace.Event, owed owedOutput, sinks *replay) Result {
	ref := owed.ref
	if ref.Output == nil {
		return unknownResult(PropAtLeastOnce, owed.why())
	}
	out := sinks.output()
	var violations []Violation
	var lost []int
	var pending missingOutput
	for k := range out.records {
		if r := &out.records[k]; r.count < r.want.Count && !pending.mayCome(events, out, k) {
			lost = append(lost, k)
			violations = append(violations, explainLoss(PropAtLeastOnce, events, out, k))
		}
	}
	res := pending.judged(newResult(PropAtLeastOnce, violations), out)
	res.Diff = countsDiff(out, lost)
	return res
}

// explainLoss pins the loss of record k to the event that shows where it went: the commit
// that made its transaction's records vanish, or its last write that was never committed, or
// the end of the trace when it was never written at all.
func explainLoss(p Property, events []trace.Event, out *committedOutput, k int) Violation {
	r := &out.records[k]
	if r.count > 0 {
		return violationAt(p, lastEvent(events), "record %q committed %d times, expected %d", r.id, r.count, r.want.Count)
	}
	if r.lastWrite < 0 {
		return violationAt(p, lastEvent(events), "record %q lost: never written by a sink", r.id)
	}
	txnID := events[r.lastWrite].Txn
	txn := out.txns[txnID]
	switch {
	case txn.zeroCommit >= 0:
		return violationAt(p, &events[txn.zeroCommit],
			"record %q lost: the commit of its transaction %q made no records visible (records=0)", r.id, txnID)
	case txn.abort >= 0:
		return violationAt(p, &events[r.lastWrite],
			"record %q lost: its last write, in transaction %q, was aborted and never redone", r.id, txnID)
	default:
		return violationAt(p, &events[r.lastWrite],
			"record %q lost: its last write, in transaction %q, was never committed", r.id, txnID)
	}
}

// maxDiffRecords bounds how many record ids a diff shows; the violations list them all.
const maxDiffRecords = 20

// countsDiff renders, with go-cmp, the expected and committed counts of the differing
// records (the first maxDiffRecords in id order). A lost record shows as 0, a duplicate as 2.
func countsDiff(out *committedOutput, differing []int) string {
	if len(differing) == 0 {
		return ""
	}
	ids := make([]string, len(differing))
	for i, k := range differing {
		ids[i] = out.records[k].id
	}
	slices.Sort(ids)
	if len(ids) > maxDiffRecords {
		ids = ids[:maxDiffRecords]
	}
	want := make(map[string]int, len(ids))
	got := make(map[string]int, len(ids))
	for _, id := range ids {
		k, _, _ := out.ids.find(out.records, id)
		r := &out.records[k]
		want[id] = r.want.Count
		got[id] = r.count
	}
	return cmp.Diff(want, got)
}
