package checker

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// tb builds hand-written traces that read like the run they describe. Every method appends
// one event 10ns after the previous and returns its seq, so a test can name the event it
// expects a checker to blame.
type tb struct {
	events []trace.Event
	t      int64
}

func newTB() *tb { return &tb{} }

// attrs turns "key=value" pairs into attributes.
func attrs(pairs ...string) []trace.Attr {
	var out []trace.Attr
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			panic("attrs: want key=value, got " + p)
		}
		out = append(out, trace.Attr{Key: k, Value: v})
	}
	return out
}

func (b *tb) add(e trace.Event) uint64 {
	b.t += 10
	e.Seq = uint64(len(b.events))
	e.T = b.t
	b.events = append(b.events, e)
	return e.Seq
}

const coord = "coordinator"

func (b *tb) trigger(cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointTrigger, Task: coord, CP: cp})
}
func (b *tb) savepoint(cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointTrigger, Task: coord, CP: cp, Attrs: attrs("savepoint=true")})
}
func (b *tb) persist(cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointPersist, Task: coord, CP: cp})
}
func (b *tb) complete(cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointComplete, Task: coord, CP: cp})
}
func (b *tb) abort(cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCheckpointAbort, Task: coord, CP: cp, Reason: "expired"})
}
func (b *tb) coordCrash() uint64 {
	return b.add(trace.Event{Kind: trace.KindCoordinatorCrash, Task: coord})
}
func (b *tb) recover(cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindCoordinatorRecover, Task: coord, CP: cp})
}
func (b *tb) snap(task string, cp uint64, pairs ...string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSnapshotTaken, Task: task, CP: cp, Attrs: attrs(pairs...)})
}
func (b *tb) carry(task string, cp, taken uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindSnapshotCarried, Task: task, CP: cp, Attrs: attrs("taken=" + strconv.FormatUint(taken, 10))})
}
func (b *tb) barrierRecv(task, from string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindBarrierRecv, Task: task, From: from, CP: cp})
}
func (b *tb) decline(task string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindSnapshotDecline, Task: task, CP: cp, Reason: "busy"})
}
func (b *tb) notify(task string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindNotifyComplete, Task: task, CP: cp})
}
func (b *tb) notifyAbort(task string, cp uint64) uint64 {
	return b.add(trace.Event{Kind: trace.KindNotifyAbort, Task: task, CP: cp})
}
func (b *tb) crash(task string) uint64 {
	return b.add(trace.Event{Kind: trace.KindTaskCrash, Task: task})
}
func (b *tb) restore(task string, cp uint64, pairs ...string) uint64 {
	return b.add(trace.Event{Kind: trace.KindTaskRestore, Task: task, CP: cp, Attrs: attrs(pairs...)})
}
func (b *tb) finish(task string) uint64 {
	return b.add(trace.Event{Kind: trace.KindTaskFinish, Task: task})
}

// write appends a sink.write of rid with its reference value "v-" + rid.
func (b *tb) write(task, txn, rid string) uint64 { return b.writeValue(task, txn, rid, "v-"+rid) }
func (b *tb) writeValue(task, txn, rid, value string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkWrite, Task: task, Txn: txn, RID: rid, Attrs: attrs("value=" + value)})
}
func (b *tb) upsert(task, rid, value string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkUpsert, Task: task, RID: rid, Attrs: attrs("value=" + value)})
}
func (b *tb) commit(task string, cp uint64, txn string, pairs ...string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkCommit, Task: task, CP: cp, Txn: txn, Attrs: attrs(pairs...)})
}
func (b *tb) sinkAbort(task, txn string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkAbort, Task: task, Txn: txn, Reason: "failover"})
}

// read appends a sink.read of a reader client that began at virtual time start.
func (b *tb) read(reader string, start int64, records string) uint64 {
	return b.add(trace.Event{Kind: trace.KindSinkRead, Task: reader,
		Attrs: attrs("records="+records, "start="+itoa(start))})
}
func (b *tb) phase(name string) uint64 {
	return b.add(trace.Event{Kind: trace.KindPhase, Attrs: attrs("phase=" + name)})
}

// now is the virtual time of the last event.
func (b *tb) now() int64 { return b.t }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// wantPass fails the test unless res passed.
func wantPass(t *testing.T, res Result) {
	t.Helper()
	if res.Verdict != VerdictPass {
		t.Fatalf("want pass, got:\n%s", res)
	}
}

// wantFirst fails the test unless res failed and its first violation is at seq and says
// something containing fragment.
func wantFirst(t *testing.T, res Result, seq uint64, fragment string) Violation {
	t.Helper()
	if res.Verdict != VerdictFail || len(res.Violations) == 0 {
		t.Fatalf("want a violation at seq %d, got:\n%s", seq, res)
	}
	v := res.Violations[0]
	if v.Seq != seq || !strings.Contains(v.Message, fragment) {
		t.Fatalf("want first violation at seq %d containing %q, got:\n%s", seq, fragment, res)
	}
	wantRulesNamed(t, res)
	return v
}

// wantRulesNamed fails the test if a violation of a property that judges several rules does
// not name its rule: simrun zoo -controls, and a reader, could not tell which rule it broke.
func wantRulesNamed(t *testing.T, res Result) {
	t.Helper()
	rules := 0
	for _, r := range Rules() {
		if r.Property == res.Property {
			rules++
		}
	}
	for _, v := range res.Violations {
		if rules > 1 && v.Rule == "" {
			t.Fatalf("%s judges %d rules, but this violation names none: %s", res.Property, rules, v)
		}
	}
}

// wantUnknown fails the test unless res is unknown with a note containing fragment: a
// property that had nothing to judge must say what it lacked, never pass.
func wantUnknown(t *testing.T, res Result, fragment string) {
	t.Helper()
	if res.Verdict != VerdictUnknown || !strings.Contains(res.Note, fragment) {
		t.Fatalf("want unknown with a note containing %q, got:\n%s", fragment, res)
	}
}
