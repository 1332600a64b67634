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
	if ref.Output == nil {
		return unknownResult(PropExactlyOnce, "the reference has no expected output")
	}
	out := replayOutput(events, ref.Output)
	var violations []Violation
	differing := make(map[string]bool)
	for rid, want := range ref.Output {
		got := out.counts[rid]
		if got < want.Count {
			differing[rid] = true
			violations = append(violations, explainLoss(PropExactlyOnce, events, out, rid, want.Count))
		}
	}
	for rid, got := range out.counts {
		want, expected := ref.Output[rid]
		if got <= want.Count {
			continue
		}
		differing[rid] = true
		e := &events[out.overflow[rid]]
		switch {
		case !expected:
			violations = append(violations, violationAt(PropExactlyOnce, e,
				"record %q committed %d times but is not in the reference output", rid, got))
		default:
			violations = append(violations, violationAt(PropExactlyOnce, e,
				"record %q duplicated: committed %d times, expected %d", rid, got, want.Count))
		}
	}
	for rid, wrong := range out.wrongValue {
		violations = append(violations, violationAt(PropExactlyOnce, &events[wrong.index],
			"record %q committed with value %q, expected %q", rid, wrong.value, ref.Output[rid].Value))
	}
	for rid, index := range out.lastUpsert {
		if want, ok := ref.Output[rid]; ok && out.values[rid] != want.Value {
			violations = append(violations, violationAt(PropExactlyOnce, &events[index],
				"record %q ends with value %q, expected %q", rid, out.values[rid], want.Value))
		}
	}
	for _, index := range out.partial {
		e := &events[index]
		records, _ := intAttr(e, trace.AttrRecords)
		violations = append(violations, violationAt(PropExactlyOnce, e,
			"commit of transaction %q made %d records visible, but it holds %d writes",
			e.Txn, records, len(out.txns[e.Txn].writes)))
	}
	res := newResult(PropExactlyOnce, violations)
	res.Diff = countsDiff(ref.Output, out.counts, differing)
	return res
}

// AtLeastOnce checks that no record of ref.Output is lost: each is committed at least as
// often as expected. Duplicates and changed values are allowed, since replay after recovery
// may re-emit records and re-aggregate them.
func AtLeastOnce(events []trace.Event, ref Reference) Result {
	if ref.Output == nil {
		return unknownResult(PropAtLeastOnce, "the reference has no expected output")
	}
	out := replayOutput(events, nil)
	var violations []Violation
	lost := make(map[string]bool)
	for rid, want := range ref.Output {
		if out.counts[rid] < want.Count {
			lost[rid] = true
			violations = append(violations, explainLoss(PropAtLeastOnce, events, out, rid, want.Count))
		}
	}
	res := newResult(PropAtLeastOnce, violations)
	res.Diff = countsDiff(ref.Output, out.counts, lost)
	return res
}

// explainLoss pins the loss of rid to the event that shows where it went: the commit that
// made its transaction's records vanish, or its last write that was never committed, or the
// end of the trace when it was never written at all.
func explainLoss(p Property, events []trace.Event, out *committedOutput, rid string, want int) Violation {
	got := out.counts[rid]
	if got > 0 {
		return violationAt(p, lastEvent(events), "record %q committed %d times, expected %d", rid, got, want)
	}
	w, written := out.lastWrite[rid]
	if !written {
		return violationAt(p, lastEvent(events), "record %q lost: never written by a sink", rid)
	}
	txnID := events[w].Txn
	txn := out.txns[txnID]
	switch {
	case txn.zeroCommit >= 0:
		return violationAt(p, &events[txn.zeroCommit],
			"record %q lost: the commit of its transaction %q made no records visible (records=0)", rid, txnID)
	case txn.abort >= 0:
		return violationAt(p, &events[w],
			"record %q lost: its last write, in transaction %q, was aborted and never redone", rid, txnID)
	default:
		return violationAt(p, &events[w],
			"record %q lost: its last write, in transaction %q, was never committed", rid, txnID)
	}
}

// maxDiffRecords bounds how many record ids a diff shows; the violations list them all.
const maxDiffRecords = 20

// countsDiff renders, with go-cmp, the expected and committed counts of the differing record
// ids (the first maxDiffRecords in id order). A lost record shows as 0, a duplicate as 2.
func countsDiff(expected map[string]Expected, counts map[string]int, differing map[string]bool) string {
	if len(differing) == 0 {
		return ""
	}
	ids := make([]string, 0, len(differing))
	for rid := range differing {
		ids = append(ids, rid)
	}
	slices.Sort(ids)
	if len(ids) > maxDiffRecords {
		ids = ids[:maxDiffRecords]
	}
	want := make(map[string]int, len(ids))
	got := make(map[string]int, len(ids))
	for _, rid := range ids {
		want[rid] = expected[rid].Count
		got[rid] = counts[rid]
	}
	return cmp.Diff(want, got)
}
