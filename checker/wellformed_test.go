package checker

import (
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

func TestWellFormedPassesBuiltTraces(t *testing.T) {
	wantPass(t, WellFormed(notifiedRun().events))
	wantPass(t, WellFormed(failoverRun().events))
}

func TestWellFormedFlagsBrokenTraces(t *testing.T) {
	cases := []struct {
		name     string
		mutate   func([]trace.Event)
		seq      uint64
		fragment string
	}{
		{"seq gap", func(es []trace.Event) { es[3].Seq = 9 }, 9, "seq 9 follows seq 2"},
		{"time back", func(es []trace.Event) { es[3].T = 1 }, 3, "time goes back from t=30 to t=1"},
		{"missing cp", func(es []trace.Event) { es[2].CP = 0 }, 2, "checkpoint.complete without cp"},
		{"bad count", func(es []trace.Event) { es[4].Attrs = attrs("records=many") }, 4, `attribute records="many" is not a non-negative integer`},
		{"start after event", func(es []trace.Event) { es[4].Attrs = attrs("start=999") }, 4, "start=999 is later than the event's t=50"},
		{"batch without ids", func(es []trace.Event) {
			es[4] = trace.Event{Seq: 4, T: 50, Kind: trace.KindSinkWrites, Task: "sink-0", Txn: "t1"}
		}, 4, "sink.writes without rids"},
		{"batch lists disagree", func(es []trace.Event) {
			es[4] = trace.Event{Seq: 4, T: 50, Kind: trace.KindSinkWrites, Task: "sink-0", Txn: "t1",
				Attrs: attrs("rids=a b c", "values=1 2")}
		}, 4, "sink.writes lists 3 record ids but 2 values"},
		{"replayed without counts", func(es []trace.Event) {
			es[4] = trace.Event{Seq: 4, T: 50, Kind: trace.KindTaskRestore, Task: "sum-0", CP: 1, Attrs: attrs("replayed=sum-0 sum-1:2")}
		}, 4, `attribute replayed="sum-0 sum-1:2" is not a list of task:count items`},
		{"union entry without a value", func(es []trace.Event) {
			es[4] = trace.Event{Seq: 4, T: 50, Kind: trace.KindTaskRestore, Task: "src-0", CP: 1, Attrs: attrs("union.src=0:3 2")}
		}, 4, `attribute union.src="0:3 2" is not a list of key:value items`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			events := notifiedRun().events
			c.mutate(events)
			wantFirst(t, WellFormed(events), c.seq, c.fragment)
		})
	}
}
