package trace_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// constructed holds, for every kind of the schema, events built by its constructor: with
// every optional field and attribute it can write, and with as few as it allows.
// TestEveryKindHasAConstructor fails on a kind that has no entry here, so a kind added to
// the schema needs a constructor before the tests pass again.
var constructed = map[string][]trace.Event{
	trace.KindCheckpointRequest: {trace.CheckpointRequest(1)},
	trace.KindCheckpointTrigger: {trace.CheckpointTrigger(1, true), trace.CheckpointTrigger(2, false), trace.StopTrigger(4), trace.DrainTrigger(5),
		trace.WithUnassigned(trace.CheckpointTrigger(6, false), []string{"src:3", "src:4"}),
		trace.PeriodicCheckpointTrigger(3, 250), trace.PeriodicCheckpointTrigger(4, trace.NoStart)},
	trace.KindCheckpointPersist:  {trace.CheckpointPersist(1)},
	trace.KindCheckpointComplete: {trace.CheckpointComplete(1)},
	trace.KindCheckpointAbort:    {trace.CheckpointAbort(2, "expired"), trace.CheckpointAbort(2, "")},
	trace.KindCoordinatorCrash:   {trace.CoordinatorCrash(), trace.CoordinatorFailed("error: index out of range")},
	trace.KindCoordinatorRecover: {trace.CoordinatorRecover(1), trace.CoordinatorRecover(0)},
	trace.KindJobFailover:        {trace.JobFailover(1, "task-failure"), trace.JobFailover(0, "")},
	trace.KindJobFinish:          {trace.JobFinish(), trace.JobStop(4)},

	trace.KindBarrierSend: {trace.BarrierSend("src-0", "sum-0", 1)},
	trace.KindBarrierRecv: {trace.BarrierRecv("sum-0", "src-0", 1)},
	trace.KindTriggerRecv: {trace.TriggerRecv("src-0", 1)},
	trace.KindSplitAssign: {trace.SplitAssign("src-0", "src:3")},
	trace.KindSplitAdd:    {trace.SplitAdd("src-0", "src:3")},
	trace.KindMarkerSend:  {trace.MarkerSend("sum-0", "sink-0", 2)},
	trace.KindMarkerRecv:  {trace.MarkerRecv("sink-0", "sum-0", 2)},
	trace.KindSnapshotTaken: {
		trace.SnapshotTaken("sum-0", 1, trace.SnapshotState{
			State: "9f2c",
			Sent:  map[string]uint64{"sink-0": 4, "sink-1": 0},
			Recv:  map[string]uint64{"src-0": 3, "src-1": 2},
			Chan:  map[string]uint64{"src-1": 1},
			Out:   map[string]uint64{"sink-0": 1},
			Union: map[string][]trace.Entry{"src": {{Key: "0", Value: 120}, {Key: "3", Value: 118}}},
			// Token attributes alongside record counts: the schema allows both on one
			// event, and the test wants every key in one place.
			Tokens: 0, HasTokens: true,
			ChanTokens: map[string]uint64{"src-1": 7},
			ChanMsgs:   map[string][]uint64{"src-1": {7}, "src-0": nil},
			ChanMore:   map[string]uint64{"src-1": 0},
			Pieces:     []string{"piece/sum-0/1/0", "piece/sum-0/0/1"},
		}),
		trace.SnapshotTaken("sum-0", 2, trace.SnapshotState{}),
		trace.SnapshotTaken("src-0", 4, trace.SnapshotState{Stopped: []string{"src:0=17", "src:1=20"}}),
		trace.SnapshotTaken("src-0", 5, trace.SnapshotState{IsReader: true, Splits: []string{"src:2=9"}}),
		trace.SnapshotTaken("sum-1", 5, trace.SnapshotState{KeyGroups: "64-127"}),
	},
	trace.KindSnapshotCarried: {trace.SnapshotCarried("src-0", 3, 2), trace.StopCarried("src-0", 4, 2, []string{"src:0=20"}),
		trace.ReaderCarried("src-1", 4, 2, []string{"src:1=20"})},
	trace.KindSnapshotAck:     {trace.SnapshotAck("sum-0", 1, true), trace.SnapshotAck("sum-0", 1, false)},
	trace.KindSnapshotDecline: {trace.SnapshotDecline("sum-0", 2, "upload-failed"), trace.SnapshotDecline("sum-0", 2, "")},
	trace.KindStateRelease:    {trace.StateRelease("sum-0", 1)},
	trace.KindPieceRelease:    {trace.PieceRelease("sum-0", 1, "piece/sum-0/1/0")},
	trace.KindStateLive:       {trace.StateLive([]string{"state/piece/sum-0/1/0"}, 420)},
	trace.KindJobResubmit:     {trace.JobResubmit(4, "no-claim"), trace.JobRescale(4, "claim", "sum", 3, []string{"src-0", "sum-0", "sum-1", "sum-2"})},

	trace.KindNotifyComplete: {trace.NotifyComplete("sink-0", 1)},
	trace.KindNotifyAbort:    {trace.NotifyAbort("sink-0", 2)},

	trace.KindTaskCrash: {trace.TaskCrash("sum-0", "listener failed"), trace.TaskCrash("sum-0", "")},
	trace.KindTaskRestore: {trace.TaskRestore("sum-0", 1, "9f2c"), trace.TaskRestore("sum-0", 0, ""),
		trace.TaskRestoreRescaled("sum-2", 4, "9f2c", []string{"sum-0", "sum-1"}, "86-127"),
		trace.WithReplayed(trace.TaskRestoreRescaled("sink-0", 4, "", nil, ""), []trace.Entry{{Key: "sum-1", Value: 3}}),
		trace.WithUnion(trace.TaskRestoreRescaled("src-1", 4, "", []string{"src-0", "src-1"}, ""), "src", []trace.Entry{{Key: "1", Value: 40}})},
	trace.KindTaskFinish: {trace.TaskFinish("src-0"), trace.TaskStop("src-0", 4)},
	trace.KindContractBroken: {trace.ContractBroken("sum-1", 4, "snapshot-request", "a second request"),
		trace.ContractBroken("sum-1", 0, "receive", "")},

	trace.KindSinkWrite:     {trace.SinkWrite("sink-0", "tx-1", "r1", "apple=1"), trace.SinkWrite("sink-0", "tx-1", "r2", "")},
	trace.KindSinkWrites:    {trace.SinkWrites("sink-0", "tx-1", []string{"r3", "r4"}, []string{"3", "4"}), trace.SinkWrites("sink-0", "tx-1", []string{"r5"}, nil)},
	trace.KindSinkPrecommit: {trace.SinkPrecommit("sink-0", 1, "tx-1"), trace.SinkPrecommit("sink-0", 0, "tx-2")},
	trace.KindSinkCommit:    {trace.SinkCommit("sink-0", 1, "tx-1", 5, 900), trace.SinkCommit("sink-0", 0, "tx-1", 0, trace.NoStart)},
	trace.KindSinkAbort:     {trace.SinkAbort("sink-0", "tx-2", "fenced"), trace.SinkAbort("sink-0", "tx-2", "")},
	trace.KindSinkRead:      {trace.SinkRead("reader", 5, 950), trace.SinkRead("reader", 0, trace.NoStart)},
	trace.KindSinkUpsert:    {trace.SinkUpsert("sink-0", "r6", "6", 960), trace.SinkUpsert("sink-0", "r7", "", trace.NoStart)},

	trace.KindRecordSend: {trace.RecordSend("src-0", "sum-0", "r1")},
	trace.KindRecordRecv: {trace.RecordRecv("sum-0", "src-0", "r1")},

	trace.KindFault: {
		trace.Fault("partition", trace.FaultTarget{Task: "sum-0", From: "src-0", To: "sum-0", CP: 1, Reason: "r", Txn: "tx-1", RID: "r1"},
			trace.Attr{Key: "window_ns", Value: "500"}, trace.Attr{Key: "id", Value: "1"}),
		trace.Fault("crash.task", trace.FaultTarget{}),
	},
	trace.KindPhase: {
		trace.Phase(trace.PhaseFault), trace.Phase(trace.PhaseHeal), trace.Phase(trace.PhaseLiveness), trace.Phase(trace.PhaseEnd),
	},
}

// TestEveryKindHasAConstructor checks constructed against the schema's list of kinds, and
// that each constructor builds an event of its own kind.
func TestEveryKindHasAConstructor(t *testing.T) {
	for _, kind := range trace.Kinds() {
		if len(constructed[kind]) == 0 {
			t.Errorf("kind %s has no constructor in kinds_typed.go (or no entry in constructed)", kind)
		}
	}
	for kind, events := range constructed {
		if !trace.IsKind(kind) {
			t.Errorf("constructed lists %q, which is not a kind", kind)
		}
		for _, e := range events {
			if e.Kind != kind {
				t.Errorf("the constructor listed under %s builds %s", kind, e.Kind)
			}
		}
	}
}

// TestConstructorsWriteWhatTheSchemaGives checks each kind's events against trace.FieldsOf:
// every event carries the required fields and attributes and nothing the kind does not
// allow, and together they carry every field, attribute and attribute prefix the kind
// allows, so that no constructor leaves out something the schema lists.
func TestConstructorsWriteWhatTheSchemaGives(t *testing.T) {
	for _, kind := range trace.Kinds() {
		fields, _ := trace.FieldsOf(kind)
		seen := map[string]bool{}
		for _, e := range constructed[kind] {
			present := presentFields(e)
			for _, f := range fields.Required {
				if !slices.Contains(present, f) {
					t.Errorf("%v: no %s, which %s requires", e, f, kind)
				}
			}
			for _, f := range present {
				if !fields.AllowsField(f) {
					t.Errorf("%v: field %s, which %s does not allow", e, f, kind)
				}
				seen[f] = true
			}
			for _, key := range fields.RequiredAttrs {
				if _, ok := e.Attr(key); !ok {
					t.Errorf("%v: no %s, which %s requires", e, key, kind)
				}
			}
			for _, a := range e.Attrs {
				if !fields.Allows(a.Key) {
					t.Errorf("%v: attribute %s, which %s does not allow", e, a.Key, kind)
				}
				seen[a.Key] = true
				for _, prefix := range fields.AttrPrefixes {
					if strings.HasPrefix(a.Key, prefix) {
						seen[prefix] = true
					}
				}
				seen["any attribute"] = true
			}
		}
		want := slices.Concat(fields.Required, fields.Optional, fields.Attrs, fields.RequiredAttrs, fields.AttrPrefixes)
		if fields.AnyAttrs {
			want = append(want, "any attribute")
		}
		for _, w := range want {
			if !seen[w] {
				t.Errorf("no constructed %s carries %s, which the schema gives it", kind, w)
			}
		}
	}
}

// presentFields names the fixed fields beyond seq, t and kind that e carries.
func presentFields(e trace.Event) []string {
	var present []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"task", e.Task != ""}, {"from", e.From != ""}, {"to", e.To != ""}, {"cp", e.CP != 0},
		{"reason", e.Reason != ""}, {"txn", e.Txn != ""}, {"rid", e.RID != ""}, {"fault", e.Fault != ""},
	} {
		if f.set {
			present = append(present, f.name)
		}
	}
	return present
}

// TestConstructorsAreWellFormed records every constructed event, reads the file back and
// has the checkers' well-formed property judge it: what the constructors build is what the
// schema means, as the checkers read it, and survives the file unchanged.
func TestConstructorsAreWellFormed(t *testing.T) {
	var out bytes.Buffer
	rec := trace.NewRecorder(&out, trace.Header{Scenario: "constructors"})
	rec.KeepEvents()
	for i, kind := range trace.Kinds() {
		for _, e := range constructed[kind] {
			rec.Emit(1000+int64(i), e) // after every start above
		}
	}
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	_, events, err := trace.ReadAll(&out)
	if err != nil {
		t.Fatal(err)
	}
	kept := rec.Events()
	if len(events) != len(kept) {
		t.Fatalf("read back %d events of %d", len(events), len(kept))
	}
	for i := range events {
		if got, want := events[i].String(), kept[i].String(); got != want {
			t.Errorf("read back %s\nrecorded  %s", got, want)
		}
	}
	if res := checker.WellFormed(events); res.Verdict != checker.VerdictPass {
		t.Errorf("constructed events are not well-formed:\n%v", res)
	}
}

// TestSnapshotTakenWritesEveryCountInKeyOrder: zero counts are evidence and are written;
// attributes come in key order, whatever the maps' order, so the event has one form.
func TestSnapshotTakenWritesEveryCountInKeyOrder(t *testing.T) {
	e := trace.SnapshotTaken("map", 4, trace.SnapshotState{
		State: "ab12",
		Sent:  map[string]uint64{"sink": 0},
		Recv:  map[string]uint64{"src": 12},
		ChanMsgs: map[string][]uint64{
			"src": {3, 0, 5},
		},
	})
	want := `{"seq":0,"t":0,"kind":"snapshot.taken","task":"map","cp":4,"chanmsgs.src":"3 0 5","recv.src":"12","sent.sink":"0","state":"ab12"}`
	if got := e.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !slices.IsSortedFunc(e.Attrs, func(a, b trace.Attr) int { return strings.Compare(a.Key, b.Key) }) {
		t.Errorf("attributes out of key order: %v", e.Attrs)
	}
}

// TestConstructorsRefuseWhatWouldReadBackAsSomethingElse: a list item holding the separator
// would split into two records, an empty task name would make a bare prefix key.
func TestConstructorsRefuseWhatWouldReadBackAsSomethingElse(t *testing.T) {
	for name, f := range map[string]func(){
		"rid with a space":  func() { trace.SinkWrites("sink", "tx", []string{"a b"}, nil) },
		"value with space":  func() { trace.SinkWrites("sink", "tx", []string{"a"}, []string{"1 2"}) },
		"empty rid":         func() { trace.SinkWrites("sink", "tx", []string{"a", ""}, nil) },
		"no rid":            func() { trace.SinkWrites("sink", "tx", nil, nil) },
		"lengths differ":    func() { trace.SinkWrites("sink", "tx", []string{"a", "b"}, []string{"1"}) },
		"empty channel key": func() { trace.SnapshotTaken("map", 1, trace.SnapshotState{Recv: map[string]uint64{"": 1}}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	// An empty value is a value: the list keeps its place.
	e := trace.SinkWrites("sink", "tx", []string{"a", "b"}, []string{"", "2"})
	if v, _ := e.Attr(trace.AttrValues); v != " 2" {
		t.Errorf("values = %q, want %q", v, " 2")
	}
}

// TestEntriesRoundTrip: the entries of union.<state> and replayed read back as written,
// none as NoneRead, and anything else is refused.
func TestEntriesRoundTrip(t *testing.T) {
	restore := trace.TaskRestoreRescaled("src-0", 2, "", nil, "")
	for _, want := range [][]trace.Entry{nil, {{Key: "0", Value: 58}, {Key: "sum-1", Value: -1}}} {
		for key, e := range map[string]trace.Event{
			trace.AttrUnionPrefix + "src": trace.WithUnion(restore, "src", want),
			trace.AttrReplayed:            trace.WithReplayed(restore, want),
		} {
			v, _ := e.Attr(key)
			got, ok := trace.ParseEntries(v)
			if !ok || !slices.Equal(got, want) {
				t.Errorf("%q reads back as %v, %v; want %v", v, got, ok, want)
			}
		}
	}
	for _, bad := range []string{"", "0", "0:x", ":3"} {
		if got, ok := trace.ParseEntries(bad); ok {
			t.Errorf("%q read as %v", bad, got)
		}
	}
}
