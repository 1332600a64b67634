package spacetime

import (
	"strconv"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// builder appends events the way a Recorder would: seq in order, times never going back.
type builder struct{ events []trace.Event }

func (b *builder) add(ms float64, e trace.Event, attrs ...string) int {
	e.Seq = uint64(len(b.events))
	e.T = int64(ms * 1e6)
	for i := 0; i+1 < len(attrs); i += 2 {
		e.Attrs = append(e.Attrs, trace.Attr{Key: attrs[i], Value: attrs[i+1]})
	}
	b.events = append(b.events, e)
	return len(b.events) - 1
}

// barrier sends one barrier and, unless lost, receives it later.
func (b *builder) barrier(ms float64, from, to string, cp uint64, lost bool) {
	b.add(ms, trace.Event{Kind: trace.KindBarrierSend, Task: from, To: to, CP: cp})
	if !lost {
		b.add(ms+0.4, trace.Event{Kind: trace.KindBarrierRecv, Task: to, From: from, CP: cp})
	}
}

var (
	sources = []string{"source-0", "source-1"}
	sums    = []string{"sum-0", "sum-1"}
	tasks   = []string{"source-0", "source-1", "sum-0", "sum-1", "sink-0"}
)

// checkpointRound runs one checkpoint through the job from ms on: sources snapshot and
// send barriers to both sums, the sums to the sink; lostTo names a sum whose barrier to the
// sink is dropped (the checkpoint then cannot complete at the sink).
func (b *builder) checkpointRound(ms float64, cp uint64, lostFrom string) {
	for i, s := range sources {
		at := ms + float64(i)*0.2
		b.add(at, trace.Event{Kind: trace.KindSnapshotTaken, Task: s, CP: cp}, "state", "aa"+strconv.Itoa(i))
		for _, sum := range sums {
			b.barrier(at+0.1, s, sum, cp, false)
		}
	}
	for i, sum := range sums {
		at := ms + 1 + float64(i)*0.3
		b.add(at, trace.Event{Kind: trace.KindSnapshotTaken, Task: sum, CP: cp}, "state", "bb"+strconv.Itoa(i))
		b.barrier(at+0.1, sum, "sink-0", cp, sum == lostFrom)
	}
	if lostFrom == "" {
		b.add(ms+2.5, trace.Event{Kind: trace.KindSnapshotTaken, Task: "sink-0", CP: cp}, "state", "cc")
		b.add(ms+2.6, trace.Event{Kind: trace.KindSinkPrecommit, Task: "sink-0", CP: cp, Txn: "t" + strconv.FormatUint(cp, 10)})
		for _, t := range tasks {
			b.add(ms+3, trace.Event{Kind: trace.KindSnapshotAck, Task: t, CP: cp})
		}
	}
}

// smallRun is a real-looking run of a five-task job: a checkpoint that completes, one
// that loses a barrier under a net.drop fault and aborts, a task crash and failover, a
// coordinator crash and recovery, a savepoint after them, the run's phases, and one
// violation pinned to the savepoint's commit. It returns the run and the index of the
// violation's event.
func smallRun() (Run, int) {
	var b builder
	b.add(0, trace.Event{Kind: trace.KindPhase}, "phase", "fault")
	for i, t := range tasks {
		b.add(0.1*float64(i), trace.Event{Kind: trace.KindTaskRestore, Task: t}, "state", "00")
	}
	b.add(10, trace.Event{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 1})
	b.checkpointRound(10.5, 1, "")
	b.add(14, trace.Event{Kind: trace.KindCheckpointPersist, Task: "coordinator", CP: 1})
	b.add(15, trace.Event{Kind: trace.KindCheckpointComplete, Task: "coordinator", CP: 1})
	for _, t := range tasks {
		b.add(16, trace.Event{Kind: trace.KindNotifyComplete, Task: t, CP: 1})
	}
	b.add(16.5, trace.Event{Kind: trace.KindSinkCommit, Task: "sink-0", CP: 1, Txn: "t1"}, "records", "3", "start", "16000000")

	b.add(25, trace.Event{Kind: trace.KindFault, Fault: "net.drop", From: "sum-1", To: "sink-0"}, "id", "1", "entry", "0", "window_ns", "20000000")
	b.add(30, trace.Event{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 2})
	b.checkpointRound(30.5, 2, "sum-1")
	b.add(45, trace.Event{Kind: trace.KindFault, Fault: "net.drop", From: "sum-1", To: "sink-0"}, "id", "1", "end", "true", "entry", "0", "window_ns", "20000000")
	b.add(48, trace.Event{Kind: trace.KindFault, Fault: "crash.task", Task: "sum-1"}, "id", "2", "entry", "1")
	b.add(48, trace.Event{Kind: trace.KindTaskCrash, Task: "sum-1"})
	b.add(50, trace.Event{Kind: trace.KindCheckpointAbort, Task: "coordinator", CP: 2, Reason: "task failure"})
	for _, t := range tasks {
		if t != "sum-1" {
			b.add(51, trace.Event{Kind: trace.KindNotifyAbort, Task: t, CP: 2})
		}
	}
	b.add(52, trace.Event{Kind: trace.KindJobFailover, Task: "coordinator", CP: 1, Reason: "task failure"})
	for i, t := range tasks {
		b.add(55+0.1*float64(i), trace.Event{Kind: trace.KindTaskRestore, Task: t, CP: 1}, "state", "11")
	}

	b.add(60, trace.Event{Kind: trace.KindFault, Fault: "crash.coordinator"}, "id", "3", "entry", "2")
	b.add(60, trace.Event{Kind: trace.KindCoordinatorCrash, Task: "coordinator"})
	b.add(63, trace.Event{Kind: trace.KindCoordinatorRecover, Task: "coordinator", CP: 1})
	b.add(70, trace.Event{Kind: trace.KindCheckpointTrigger, Task: "coordinator", CP: 3}, "savepoint", "true")
	b.checkpointRound(70.5, 3, "")
	b.add(75, trace.Event{Kind: trace.KindCheckpointComplete, Task: "coordinator", CP: 3})
	for _, t := range tasks {
		b.add(76, trace.Event{Kind: trace.KindNotifyComplete, Task: t, CP: 3})
	}
	bad := b.add(77, trace.Event{Kind: trace.KindSinkCommit, Task: "sink-0", CP: 3, Txn: "t3"}, "records", "3", "start", "76500000")
	b.add(78, trace.Event{Kind: trace.KindSinkRead, Task: "reader-0"}, "records", "6", "start", "77800000")
	b.add(90, trace.Event{Kind: trace.KindPhase}, "phase", "heal")
	b.add(95, trace.Event{Kind: trace.KindPhase}, "phase", "liveness")
	b.add(100, trace.Event{Kind: trace.KindPhase}, "phase", "end")

	e := b.events[bad]
	v := checker.Violation{
		Property: checker.PropExactlyOnce,
		Message:  "record r7 visible twice: committed by t1 and again by t3 </script><script>window.pwned=1</script>",
		Seq:      e.Seq, T: e.T, Task: e.Task, CP: e.CP,
	}
	return Run{
		Title:      "small run <seed 1>",
		Events:     b.events,
		Violations: []checker.Violation{v},
		Notes:      []string{"scenario: small", "verdict: fail (exactly-once)"},
		Links:      []Link{{Label: "porcupine: sink readers", Href: "porcupine-sink.html"}},
	}, bad
}
