package checker

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/trace"
)

// drawRun draws the size of a synthetic run and generates it.
func drawRun(t *rapid.T) ([]trace.Event, Reference) {
	p := smallRun
	p.sources = rapid.IntRange(1, 3).Draw(t, "sources")
	p.sinks = rapid.IntRange(1, 3).Draw(t, "sinks")
	p.recordsPerSource = rapid.IntRange(1, 25).Draw(t, "records")
	seed := rapid.Uint64().Draw(t, "seed")
	return generate(rand.New(rand.NewPCG(seed, 7)), p)
}

func TestRandomCorrectRunsPass(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		events, ref := drawRun(t)
		if problem := falseVerdict(events, Check(events, ref, Options{})); problem != "" {
			t.Fatalf("%d events: %s", len(events), problem)
		}
	})
}

// mutation breaks a correct run in one place. It returns the broken trace and checks that
// the property it targets blames the right event.
type mutation func(t *rapid.T, events []trace.Event, ref Reference) (broken []trace.Event, judge func(Report))

var mutations = map[string]mutation{
	"drop a commit":            dropCommit,
	"repeat a commit":          repeatCommit,
	"corrupt restored state":   corruptRestore,
	"corrupt a cut":            corruptCut,
	"notify before completion": notifyEarly,
	"recover behind":           recoverBehind,
	"read uncommitted output":  inflateRead,
	"stall after heal":         stallAfterHeal,
	"perturb one event":        perturb,
}

func TestRandomSingleMutationIsCaught(t *testing.T) {
	names := make([]string, 0, len(mutations))
	for name := range mutations {
		names = append(names, name)
	}
	slices.Sort(names)
	rapid.Check(t, func(t *rapid.T) {
		events, ref := drawRun(t)
		name := rapid.SampledFrom(names).Draw(t, "mutation")
		broken, judge := mutations[name](t, slices.Clone(events), ref)
		judge(Check(broken, ref, Options{MaxViolations: -1}))
	})
}

// candidates returns the indices of events that satisfy keep, skipping the test case when
// there are none.
func candidates(t *rapid.T, events []trace.Event, keep func(e *trace.Event) bool) []int {
	var out []int
	for i := range events {
		if keep(&events[i]) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		t.Skip("nothing to mutate")
	}
	return out
}

func pick(t *rapid.T, indices []int) int {
	return indices[rapid.IntRange(0, len(indices)-1).Draw(t, "at")]
}

func renumber(events []trace.Event) []trace.Event {
	for i := range events {
		events[i].Seq = uint64(i)
	}
	return events
}

func setAttr(e *trace.Event, key, value string) {
	e.Attrs = slices.Clone(e.Attrs)
	for i := range e.Attrs {
		if e.Attrs[i].Key == key {
			e.Attrs[i].Value = value
			return
		}
	}
	panic("no attribute " + key)
}

func effectiveCommit(e *trace.Event) bool {
	n, ok := intAttr(e, trace.AttrRecords)
	return e.Kind == trace.KindSinkCommit && ok && n > 0
}

// firstViolation fails unless property p failed with its first violation at seq and saying
// fragment.
func firstViolation(t *rapid.T, report Report, p Property, seq uint64, fragment string) {
	res, _ := report.Result(p)
	if res.Verdict != VerdictFail || res.Violations[0].Seq != seq || !strings.Contains(res.Violations[0].Message, fragment) {
		t.Fatalf("want %s to fail first at seq %d with %q, got:\n%s", p, seq, fragment, res)
	}
}

func dropCommit(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	i := pick(t, candidates(t, events, effectiveCommit))
	txn := events[i].Txn
	broken := renumber(slices.Delete(events, i, i+1))
	return broken, func(r Report) {
		res, _ := r.Result(PropExactlyOnce)
		if res.Verdict != VerdictFail || !strings.Contains(res.Violations[0].Message, strconv.Quote(txn)) {
			t.Fatalf("want records of %s lost, got:\n%s", txn, res)
		}
	}
}

func repeatCommit(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	i := pick(t, candidates(t, events, effectiveCommit))
	broken := renumber(slices.Insert(events, i+1, events[i]))
	return broken, func(r Report) {
		firstViolation(t, r, PropExactlyOnce, uint64(i+1), "duplicated")
		firstViolation(t, r, PropListenerContract, uint64(i+1), "committed again with effect")
	}
}

func corruptRestore(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	i := pick(t, candidates(t, events, func(e *trace.Event) bool { return e.Kind == trace.KindTaskRestore && e.CP > 0 }))
	setAttr(&events[i], trace.AttrState, "corrupt")
	return events, func(r Report) {
		firstViolation(t, r, PropRestoreFidelity, uint64(i), `restored state "corrupt"`)
	}
}

func corruptCut(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	completed := make(map[uint64]bool)
	for _, e := range events {
		if e.Kind == trace.KindCheckpointComplete {
			completed[e.CP] = true
		}
	}
	i := pick(t, candidates(t, events, func(e *trace.Event) bool {
		_, ok := e.Attr("recv.src-0")
		return e.Kind == trace.KindSnapshotTaken && completed[e.CP] && ok
	}))
	n, _ := intAttr(&events[i], "recv.src-0")
	setAttr(&events[i], "recv.src-0", strconv.FormatInt(n+1, 10))
	return events, func(r Report) {
		firstViolation(t, r, PropConsistentCut, uint64(i), "channel src-0->"+events[i].Task+" inconsistent")
	}
}

func notifyEarly(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	completeAt := make(map[uint64]int)
	for i, e := range events {
		if e.Kind == trace.KindCheckpointComplete {
			completeAt[e.CP] = i
		}
	}
	j := pick(t, candidates(t, events, func(e *trace.Event) bool { return e.Kind == trace.KindNotifyComplete }))
	notify := events[j]
	c := completeAt[notify.CP]
	notify.T = events[c].T
	events = slices.Delete(events, j, j+1)
	broken := renumber(slices.Insert(events, c, notify))
	return broken, func(r Report) {
		firstViolation(t, r, PropDurableVisible, uint64(c), "before it was durably complete")
		firstViolation(t, r, PropListenerContract, uint64(c), "before its checkpoint.complete")
	}
}

func recoverBehind(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	i := pick(t, candidates(t, events, func(e *trace.Event) bool { return e.Kind == trace.KindCoordinatorRecover && e.CP > 0 }))
	events[i].CP--
	return events, func(r Report) {
		firstViolation(t, r, PropDurableVisible, uint64(i), fmt.Sprintf("coordinator recovered checkpoint %d, behind", events[i].CP))
	}
}

func inflateRead(t *rapid.T, events []trace.Event, _ Reference) ([]trace.Event, func(Report)) {
	i := pick(t, candidates(t, events, func(e *trace.Event) bool { return e.Kind == trace.KindSinkRead }))
	n, _ := intAttr(&events[i], trace.AttrRecords)
	setAttr(&events[i], trace.AttrRecords, strconv.FormatInt(n+1, 10))
	return events, func(r Report) {
		firstViolation(t, r, PropSinkVisibility, uint64(i), "uncommitted output is visible")
	}
}

func stallAfterHeal(t *rapid.T, events []trace.Event, ref Reference) ([]trace.Event, func(Report)) {
	healT := events[phaseIndex(newTraceIndex(events), phaseHeal)].T
	deadline := healT + ref.Liveness.CheckpointAfterHealNanos
	broken := slices.DeleteFunc(events, func(e trace.Event) bool {
		return e.T > healT && (e.Kind == trace.KindCheckpointComplete || e.Kind == trace.KindTaskFinish)
	})
	broken = renumber(broken)
	return broken, func(r Report) {
		firstViolation(t, r, PropLiveness, uint64(firstAfter(broken, deadline)), "no checkpoint completed within")
	}
}

func perturb(t *rapid.T, events []trace.Event, ref Reference) ([]trace.Event, func(Report)) {
	original := slices.Clone(events)
	i := rapid.IntRange(0, len(events)-1).Draw(t, "at")
	events[i].Task += "'"
	return events, func(r Report) {
		firstViolation(t, r, PropDeterminism, events[len(events)-1].Seq, "trace hash")
		v, differ := FirstDifference(original, events)
		if !differ || v.Seq != uint64(i) {
			t.Fatalf("want the first difference at seq %d, got %v", i, v)
		}
	}
}
