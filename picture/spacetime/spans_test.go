package spacetime

import (
	"reflect"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func TestCheckpointSpans(t *testing.T) {
	sp := []trace.Attr{{Key: "savepoint", Value: "true"}}
	events := []trace.Event{
		{T: 10, Kind: trace.KindCheckpointTrigger, CP: 1},
		{T: 15, Kind: trace.KindCheckpointTrigger, CP: 2, Attrs: sp}, // concurrent with 1
		{T: 18, Kind: trace.KindCheckpointPersist, CP: 1},
		{T: 20, Kind: trace.KindCheckpointComplete, CP: 1},
		{T: 30, Kind: trace.KindCheckpointAbort, CP: 2, Reason: "expired"},
		{T: 40, Kind: trace.KindCheckpointRequest, CP: 3},
		{T: 41, Kind: trace.KindCheckpointTrigger, CP: 3},
		{T: 50, Kind: trace.KindCheckpointAbort, CP: 4, Reason: "declined"}, // never started
		trace.StopTrigger(5),
		trace.DrainTrigger(6),
	}
	events[len(events)-2].T = 60
	events[len(events)-1].T = 70
	got := checkpointSpans(events, 100)
	want := []checkpointSpan{
		{CP: 1, Start: 10, End: 20, Persist: 18, Outcome: "complete", First: 0, Last: 3, Row: 0},
		{CP: 2, Start: 15, End: 30, Persist: -1, Outcome: "abort", Savepoint: true, Reason: "expired", First: 1, Last: 4, Row: 1},
		{CP: 3, Start: 40, End: 100, Persist: -1, Outcome: "open", First: 5, Last: -1, Row: 0},
		{CP: 4, Start: 50, End: 50, Persist: -1, Outcome: "abort", Reason: "declined", First: 7, Last: 7, Row: 1},
		{CP: 5, Start: 60, End: 100, Persist: -1, Outcome: "open", Savepoint: true, Stop: true, First: 8, Last: -1, Row: 1},
		{CP: 6, Start: 70, End: 100, Persist: -1, Outcome: "open", Savepoint: true, Stop: true, Drain: true, First: 9, Last: -1, Row: 2},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans\n%+v\nwant\n%+v", got, want)
	}
}

func TestFaultSpans(t *testing.T) {
	attrs := func(kv ...string) []trace.Attr {
		var a []trace.Attr
		for i := 0; i < len(kv); i += 2 {
			a = append(a, trace.Attr{Key: kv[i], Value: kv[i+1]})
		}
		return a
	}
	events := []trace.Event{
		{T: 5, Kind: trace.KindFault, Fault: "net.clog", From: "a", To: "coordinator", Attrs: attrs("entry", "0", "id", "1", "window_ns", "10")},
		{T: 7, Kind: trace.KindFault, Fault: "crash.task", Task: "b", Attrs: attrs("id", "2")},
		{T: 15, Kind: trace.KindFault, Fault: "net.clog", From: "a", To: "coordinator", Attrs: attrs("end", "true", "entry", "0", "id", "1", "window_ns", "10")},
	}
	got := faultSpans(events, map[string]int{"coordinator": 0, "a": 1, "b": 2})
	want := []faultSpan{
		{ID: "1", Fault: "net.clog", Label: "net.clog from=a to=coordinator window=10ns", Start: 5, End: 15, First: 0, Last: 2, Lanes: []int{1, 0}, Row: 0},
		{ID: "2", Fault: "crash.task", Label: "crash.task task=b", Start: 7, End: 7, Instant: true, First: 1, Last: -1, Lanes: []int{2}, Row: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("faults\n%+v\nwant\n%+v", got, want)
	}
}

func TestPhaseBands(t *testing.T) {
	ph := func(t int64, name string) trace.Event {
		return trace.Event{T: t, Kind: trace.KindPhase, Attrs: []trace.Attr{{Key: "phase", Value: name}}}
	}
	got := phaseBands([]trace.Event{ph(0, "fault"), {T: 1, Kind: trace.KindTaskCrash}, ph(30, "heal"), ph(35, "liveness")}, 90)
	want := []phaseBand{{"fault", 0, 30, 0}, {"heal", 30, 35, 2}, {"liveness", 35, 90, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("phases %+v, want %+v", got, want)
	}
	got = phaseBands([]trace.Event{ph(0, "liveness"), ph(50, "end")}, 90)
	want = []phaseBand{{"liveness", 0, 50, 0}, {"end", 50, 50, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("phases %+v, want %+v", got, want)
	}
}

// A fault's label gives its durations in human units, as simrun's report does.
func TestFaultLabelsReadInHumanUnits(t *testing.T) {
	e := trace.Event{Kind: trace.KindFault, Fault: "storage.slow", Attrs: []trace.Attr{
		{Key: "delay_ns", Value: "40000000"}, {Key: "entry", Value: "1"}, {Key: "id", Value: "1"},
		{Key: "store", Value: "state"}, {Key: "window_ns", Value: "100000000"}}}
	if got, want := faultLabel(&e), "storage.slow delay=40ms store=state window=100ms"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
}
