package checker

import (
	"math/rand/v2"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// withoutKind returns events less those of kind, renumbered so that the trace stays well
// formed: what an engine that never emits kind would have written.
func withoutKind(events []trace.Event, kind string) []trace.Event {
	var out []trace.Event
	for _, e := range events {
		if e.Kind != kind {
			e.Seq = uint64(len(out))
			out = append(out, e)
		}
	}
	return out
}

// A correct run stripped of the events a property needs must leave that property unknown,
// naming what it lacked; before, each of these passed.
func TestMissingEvidenceIsUnknown(t *testing.T) {
	events, ref := generate(rand.New(rand.NewPCG(3, 1)), smallRun)
	for _, tc := range []struct {
		kind     string
		property Property
		note     string
	}{
		{trace.KindSnapshotTaken, PropConsistentCut, "completed but no snapshot.taken"},
		{trace.KindCheckpointPersist, PropDurableVisible, "without a checkpoint.persist"},
		{trace.KindSinkRead, PropSinkVisibility, "no sink.read"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			whole, _ := Check(events, ref, Options{Properties: []Property{tc.property}}).Result(tc.property)
			wantPass(t, whole) // so it is the missing events that make the difference
			report := Check(withoutKind(events, tc.kind), ref, Options{Properties: []Property{tc.property}})
			res, _ := report.Result(tc.property)
			wantUnknown(t, res, tc.note)
		})
	}
}

func TestWellFormedRejectsWhatTheSchemaDoesNotDefine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		event   trace.Event
		message string
	}{
		{"misspelt kind", trace.Event{Kind: "snapshot.taekn", Task: "a", CP: 1}, `kind "snapshot.taekn" is not defined`},
		{"misspelt attribute", trace.Event{Kind: trace.KindSnapshotTaken, Task: "a", CP: 1, Attrs: attrs("snet.b=1")},
			"snapshot.taken has attribute snet.b"},
		{"field of another kind", trace.Event{Kind: trace.KindNotifyComplete, Task: "a", CP: 1, Txn: "t"},
			"notify.complete has field txn"},
		{"missing required attribute", trace.Event{Kind: trace.KindSnapshotCarried, Task: "a", CP: 2}, "snapshot.carried without taken"},
		{"missing required field", trace.Event{Kind: trace.KindBarrierRecv, Task: "a", CP: 1}, "barrier.recv without from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newTB()
			b.add(tc.event)
			wantFirst(t, WellFormed(b.events), 0, tc.message)
		})
	}
	wantUnknown(t, WellFormed(nil), "no events")
}
