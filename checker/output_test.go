package checker

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// writes appends one sink.writes listing rids with their reference values "v-" + rid.
func (b *tb) writes(task, txn string, rids ...string) uint64 {
	values := make([]string, len(rids))
	for i, rid := range rids {
		values[i] = "v-" + rid
	}
	return b.writesValues(task, txn, rids, values)
}

func (b *tb) writesValues(task, txn string, rids, values []string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkWrites, Task: task, Txn: txn, Attrs: []trace.Attr{
		{Key: trace.AttrRIDs, Value: strings.Join(rids, trace.ListSeparator)},
		{Key: trace.AttrValues, Value: strings.Join(values, trace.ListSeparator)},
	}})
}

// messages returns the violation messages of res, which do not depend on sequence numbers.
func messages(res Result) []string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, v.Message)
	}
	return out
}

// sinkRun is a sink's writes and commits, to be traced per record or in batches.
type sinkRun struct {
	name    string
	writes  []sinkRunWrite
	commits [][2]string // txn, records attribute ("" for none)
	pass    bool
}

type sinkRunWrite struct{ txn, rid, value string }

// events traces r with one sink.write per record when cuts < 0; otherwise with sink.writes,
// a new batch starting at write i+1 when bit i of cuts is set (and at every change of
// transaction).
func (r sinkRun) events(cuts int) []trace.Event {
	b := newTB()
	var rids, values []string
	flush := func(txn string) {
		if len(rids) > 0 {
			b.writesValues("sink", txn, rids, values)
		}
		rids, values = nil, nil
	}
	for i, w := range r.writes {
		if cuts < 0 {
			b.writeValue("sink", w.txn, w.rid, w.value)
			continue
		}
		if i > 0 && (cuts&(1<<(i-1)) != 0 || r.writes[i-1].txn != w.txn) {
			flush(r.writes[i-1].txn)
		}
		rids, values = append(rids, w.rid), append(values, w.value)
	}
	flush(r.writes[len(r.writes)-1].txn)
	for _, c := range r.commits {
		if c[1] == "" {
			b.commit("sink", 1, c[0])
		} else {
			b.commit("sink", 1, c[0], "records="+c[1])
		}
	}
	return b.events
}

// TestSinkWritesMeansItsSinkWrites checks that a sink.writes is judged exactly as the
// sink.write events it stands for, for every way of cutting a transaction's writes into
// batches, on runs that pass, lose, duplicate and change records.
func TestSinkWritesMeansItsSinkWrites(t *testing.T) {
	three := Reference{Guarantee: GuaranteeExactlyOnce,
		Output: ExpectOnce(map[string]string{"r1": "v-r1", "r2": "v-r2", "r3": "v-r3"})}
	runs := []sinkRun{
		{"exact", []sinkRunWrite{{"t1", "r1", "v-r1"}, {"t1", "r2", "v-r2"}, {"t1", "r3", "v-r3"}},
			[][2]string{{"t1", "3"}}, true},
		{"lost", []sinkRunWrite{{"t1", "r1", "v-r1"}, {"t1", "r2", "v-r2"}, {"t2", "r3", "v-r3"}},
			[][2]string{{"t1", "2"}}, false},
		{"duplicated", []sinkRunWrite{{"t1", "r1", "v-r1"}, {"t1", "r2", "v-r2"}, {"t1", "r3", "v-r3"}, {"t2", "r3", "v-r3"}},
			[][2]string{{"t1", "3"}, {"t2", "1"}}, false},
		{"wrong value", []sinkRunWrite{{"t1", "r1", "v-r1"}, {"t1", "r2", "bad"}, {"t1", "r3", "v-r3"}},
			[][2]string{{"t1", ""}}, false},
		{"partial", []sinkRunWrite{{"t1", "r1", "v-r1"}, {"t1", "r2", "v-r2"}, {"t1", "r3", "v-r3"}},
			[][2]string{{"t1", "2"}}, false},
	}
	for _, r := range runs {
		want := ExactlyOnce(r.events(-1), three)
		if (want.Verdict == VerdictPass) != r.pass {
			t.Fatalf("%s: per-record run judged %s", r.name, want.Verdict)
		}
		for cuts := 0; cuts < 1<<(len(r.writes)-1); cuts++ {
			got := ExactlyOnce(r.events(cuts), three)
			if want.Verdict != got.Verdict || strings.Join(messages(want), "\n") != strings.Join(messages(got), "\n") {
				t.Fatalf("%s, cuts %b: batched writes judged\n%s\nper-record writes judged\n%s", r.name, cuts, got, want)
			}
		}
	}
}

func TestSinkWritesLossIsPinnedToTheBatch(t *testing.T) {
	b := newTB()
	b.writes("sink", "t1", "r1")
	b.commit("sink", 1, "t1", "records=1")
	lost := b.writes("sink", "t2", "r2")
	b.finish("sink")
	wantFirst(t, ExactlyOnce(b.events, twoRecords), lost,
		`record "r2" lost: its last write, in transaction "t2", was never committed`)
}

func TestSinkWritesCountTowardsTheStoreForVisibility(t *testing.T) {
	// A commit without a records attribute adds what its transaction holds: both records of
	// the batch, so a read of 2 after it is fine and a read of 3 sees uncommitted output.
	b := newTB()
	b.writes("sink", "t1", "r1", "r2")
	b.commit("sink", 1, "t1", "start="+itoa(b.now()))
	b.read("reader-0", b.now(), "2")
	wantPass(t, SinkVisibility(b.events, SearchOptions{}))
	b.read("reader-0", b.now(), "3")
	if res := SinkVisibility(b.events, SearchOptions{}); res.Verdict != VerdictFail {
		t.Fatalf("a read of uncommitted output passed:\n%s", res)
	}
}
