package trace_test

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// liveRecords is how many records the long source reads at most before it is told to stop;
// the short source reads liveShortRecords and finishes by itself, before the first checkpoint.
const (
	liveRecords      = 300
	liveShortRecords = 20
)

// The source reads liveBatch records every liveReadEvery, as if it polled a queue, so that
// the checkpoints, livePause apart, cut the stream somewhere along it.
const (
	liveBatch     = 5
	liveReadEvery = 100 * time.Microsecond
	livePause     = time.Millisecond
)

// liveCheckpoints is how many checkpoints the coordinator triggers before it stops the
// source; the final checkpoint of the finished job comes on top.
const liveCheckpoints = 3

// liveItem is what a data channel carries: a record, or a channel event of the protocol
// (barrier, end of data, end of partition), in the order it was sent.
type liveItem struct {
	rid   string
	value int64
	event *protocol.ChannelEvent
}

// liveTask is one task and everything its goroutine owns.
type liveTask struct {
	id      string
	ups     []string        // the task at the other end of each input, in input order
	ins     []chan liveItem // the inputs, at most two (run selects over them)
	down    string          // the task at the other end of out; "" at the sink
	out     chan liveItem   // nil at the sink
	ctrl    chan protocol.Message
	toCoord chan<- protocol.Message
	rec     *trace.SyncRecorder
	now     func() protocol.Time
	task    *protocol.Task

	sent     int64
	recv     []int64                 // records consumed, per input
	closed   []bool                  // end of partition arrived on the input: nothing follows
	ended    int                     // inputs that delivered end of data
	uploads  []protocol.CheckpointID // snapshots taken whose upload is "in flight"
	finished bool                    // Finish was called: no record follows
	exited   bool

	// The sink's two-phase commit, and the records each of its transactions holds.
	twoPhase *protocol.TwoPhaseCommit
	txnSeq   int
	held     map[protocol.TransactionID]uint64
}

// Example_liveHost is a live host: two sources feeding one map task, which feeds a sink
// (src-a, src-b -> map -> sink), each task on a goroutine of its own, data channels that
// are Go channels, a coordinator goroutine, and the wall clock. It embeds package protocol
// through its public API, records with a trace.SyncRecorder and the typed constructors, and
// has the file it wrote judged by checker.Check, as simrun check would judge it. The
// interleaving differs from run to run, and so does the trace; the verdict does not.
//
// The short source, src-a, finishes before the first checkpoint. Once a completed
// checkpoint holds its final snapshot it exits, and every later checkpoint carries that
// snapshot over instead of asking for a new one. The host traces each carried snapshot
// (snapshot.carried, with taken from TaskSnapshot.TakenFor) before the checkpoint's
// checkpoint.persist: without it, map's count of src-a's records would have no sender in
// those cuts, and consistent-cut could not pass (TestLiveHostNeedsCarriedSnapshots).
//
// Every task traces task.restore of checkpoint 0 as it starts fresh, so the trace names the
// job's tasks: otherwise src-a's task.finish would read as the end of the whole job. Every
// event is emitted before the message or channel event that carries its effect to another
// goroutine (package protocol, "Tracing"): that, and nothing about goroutines or clocks, is
// what makes the trace's order a causal one.
func Example_liveHost() {
	events, ref := runLiveHost()
	report := checker.Check(events, ref, checker.Options{})
	completed, carried := 0, 0
	for _, e := range events {
		switch e.Kind {
		case trace.KindCheckpointComplete:
			completed++
		case trace.KindSnapshotCarried:
			carried++
		}
	}
	fmt.Println("checkpoints completed:", completed)
	fmt.Println("checkpoints carrying src-a's final snapshot:", carried)
	for _, res := range report.Results {
		fmt.Println(res)
	}
	fmt.Println("verdict:", report.Verdict())

	// Output:
	// checkpoints completed: 4
	// checkpoints carrying src-a's final snapshot: 3
	// well-formed: pass
	// contract: pass
	// exactly-once: pass
	// at-least-once: pass
	// consistent-cut: pass
	// listener-contract: pass
	// checkpoint-outcome: pass
	// no-trigger-after-finish: pass
	// durable-before-visible: pass
	// liveness: pass
	// verdict: pass
}

// runLiveHost runs the live job to its end and returns the events of the file it wrote, read
// back, and the reference to judge them by.
func runLiveHost() ([]trace.Event, checker.Reference) {
	var file bytes.Buffer
	clock := trace.Since(time.Now())
	rec := trace.NewSyncRecorder(trace.NewRecorder(&file, trace.Header{Scenario: "live-pipeline", Build: "example"}), clock)
	now := func() protocol.Time { return protocol.Time(clock()) } // one clock for protocol and trace

	cfg := protocol.DefaultConfig()
	cfg.Interval = 0 // the coordinator goroutine triggers checkpoints itself
	cfg.CheckInvariants = true
	topo := protocol.Topology{
		Tasks:    []protocol.TaskID{"src-a", "src-b", "map", "sink"},
		Channels: []protocol.ChannelID{{From: "src-a", To: "map"}, {From: "src-b", To: "map"}, {From: "map", To: "sink"}},
	}
	toCoord := make(chan protocol.Message, 64) // more than the run ever holds: no send blocks
	tasks := map[protocol.TaskID]*liveTask{}
	for _, id := range topo.Tasks {
		task, err := protocol.NewTask(cfg.TaskConfig(id, topo.Inputs(id), topo.Outputs(id)))
		if err != nil {
			panic(err)
		}
		tasks[id] = &liveTask{id: string(id), task: task, ctrl: make(chan protocol.Message, 64), toCoord: toCoord, rec: rec, now: now}
		rec.Emit(trace.TaskRestore(string(id), 0, "")) // a fresh start: the job's tasks
	}
	for _, ch := range topo.Channels {
		// Room for what follows the final barrier (end of data, end of partition), so that
		// a task never blocks on a downstream task that has exited.
		from, to := tasks[ch.From], tasks[ch.To]
		from.out, from.down = make(chan liveItem, 16), to.id
		to.ins, to.ups = append(to.ins, from.out), append(to.ups, from.id)
		to.recv, to.closed = append(to.recv, 0), append(to.closed, false)
	}
	sink := tasks["sink"]
	twoPhase, err := protocol.NewTwoPhaseCommit(sink.nextTxn(), 16)
	if err != nil {
		panic(err)
	}
	sink.twoPhase = twoPhase
	sink.held = map[protocol.TransactionID]uint64{}

	stop := make(chan struct{})
	var readA, readB int64 // records each source read; the expected output
	var running sync.WaitGroup
	running.Go(func() { runCoordinator(cfg, topo, rec, now, toCoord, tasks, stop) })
	running.Go(func() { readA = tasks["src-a"].runSource("a", liveShortRecords, nil) })
	running.Go(func() { readB = tasks["src-b"].runSource("b", liveRecords, stop) })
	running.Go(tasks["map"].run)
	running.Go(sink.run)
	running.Wait()
	if err := rec.Close(); err != nil {
		panic(err)
	}

	// Read the file back, as simrun check would.
	_, events, err := trace.ReadAll(&file)
	if err != nil {
		panic(err)
	}
	want := map[string]string{}
	for prefix, read := range map[string]int64{"a": readA, "b": readB} {
		for i := range read {
			want[prefix+strconv.FormatInt(i, 10)] = strconv.FormatInt(i*i, 10)
		}
	}
	return events, checker.Reference{
		Guarantee: checker.GuaranteeExactlyOnce,
		Output:    checker.ExpectOnce(want),
		// A bounded job: every task must finish, with all of the output committed.
		Liveness: checker.LivenessBounds{FinishTasks: []string{"src-a", "src-b", "map", "sink"}},
		Promises: []checker.Property{checker.PropExactlyOnce, checker.PropAtLeastOnce, checker.PropConsistentCut,
			checker.PropListenerContract, checker.PropCheckpointOutcome, checker.PropDurableVisible,
			checker.PropNoTriggerAfterFinish, checker.PropLiveness},
	}
}

// runCoordinator drives the coordinator: once the short source has finished, it triggers
// liveCheckpoints checkpoints, each livePause after the one before completed, then stops the
// long source, and returns when the job has finished. The id counter and the
// completed-checkpoint store are "durable" at once.
func runCoordinator(cfg protocol.Config, topo protocol.Topology, rec *trace.SyncRecorder, now func() protocol.Time,
	inbox <-chan protocol.Message, tasks map[protocol.TaskID]*liveTask, stop chan<- struct{}) {
	coord, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, now())
	if err != nil {
		panic(err)
	}
	completed := 0
	var next <-chan time.Time // when to trigger the next checkpoint; nil: not now
	for {
		var finished bool
		for coord.HasReady() {
			rd := coord.Ready()
			var confirm []func()
			for _, v := range rd.CounterWrites {
				confirm = append(confirm, func() { coord.CounterPersisted(now(), v, nil) })
			}
			for _, cc := range rd.MetadataWrites {
				// The cut is fixed now: say which snapshots it carries over, then that the
				// write starts.
				for _, ts := range cc.Tasks {
					if ts.Snapshot.Carried(cc.ID) {
						rec.Emit(trace.SnapshotCarried(string(ts.Task), uint64(cc.ID), uint64(ts.Snapshot.TakenFor)))
					}
				}
				rec.Emit(trace.CheckpointPersist(uint64(cc.ID)))
				confirm = append(confirm, func() { coord.MetadataPersisted(now(), cc.ID, nil) })
			}
			// Traced before the Messages go out: they carry the triggers, and the
			// notifications that a completion or an abort causes.
			for _, tc := range rd.Triggered {
				rec.Emit(trace.CheckpointTrigger(uint64(tc.ID), tc.Kind == protocol.KindSavepoint))
			}
			for _, cc := range rd.Completed {
				rec.Emit(trace.CheckpointComplete(uint64(cc.ID)))
				if completed++; completed < liveCheckpoints {
					next = time.After(livePause)
				}
			}
			for _, a := range rd.Aborted {
				rec.Emit(trace.CheckpointAbort(uint64(a.Checkpoint), a.Reason.String()))
			}
			for _, m := range rd.Messages {
				tasks[m.Task].ctrl <- m // an exited task's buffer takes what it no longer reads
			}
			if rd.Failover != nil {
				panic("the live example has no failures to fail over from: " + rd.Failover.String())
			}
			finished = finished || rd.JobFinished
			for _, c := range confirm {
				c()
			}
		}
		if finished {
			return // every task exits once it has the final notification
		}
		if completed == liveCheckpoints && stop != nil {
			close(stop) // the long source finishes; the final checkpoint follows by itself
			stop = nil
		}
		select {
		case m := <-inbox:
			if m.Type == protocol.MsgTaskFinished && m.Task == "src-a" {
				next = time.After(livePause) // the first checkpoint finds src-a finished
			}
			coord.Step(now(), m) // late and duplicate acks are expected
		case <-next:
			next = nil
			if err := coord.TriggerCheckpoint(now()); err != nil {
				panic(err)
			}
		case <-time.After(time.Duration(coord.NextDeadline() - now())):
			coord.Tick(now()) // timeouts and re-sent notifications; none in this run
		}
	}
}

// runSource reads liveBatch records every liveReadEvery, named prefix and a number, until
// stop or until it has read limit; then it finishes, and serves the coordinator until it may
// exit. It returns how many records it read.
func (t *liveTask) runSource(prefix string, limit int64, stop <-chan struct{}) int64 {
	poll := time.NewTicker(liveReadEvery)
	defer poll.Stop()
	for !t.exited {
		readable := poll.C
		if t.finished {
			readable = nil // nothing more to read
		}
		select {
		case m := <-t.ctrl:
			t.step(m)
		case <-stop:
			stop = nil
			t.finish()
		case <-readable:
			for range min(liveBatch, limit-t.sent) {
				t.out <- liveItem{rid: prefix + strconv.FormatInt(t.sent, 10), value: t.sent}
				t.sent++
			}
			if t.sent == limit {
				t.finish() // a bounded input, read to its end
			}
		}
	}
	return t.sent
}

// run serves a task with inputs: records and channel events from upstream, messages from
// the coordinator. An input is read only while it is open and not blocked for alignment.
func (t *liveTask) run() {
	for !t.exited {
		first, second := t.readable(0), t.readable(1)
		select {
		case m := <-t.ctrl:
			t.step(m)
		case item := <-first:
			t.receive(0, item)
		case item := <-second:
			t.receive(1, item)
		}
	}
}

// readable returns input i if the task may read it now, else nil (a channel never ready).
// Blocked is asked anew before every read: a barrier on another input changes it.
func (t *liveTask) readable(i int) chan liveItem {
	if i >= len(t.ins) || t.closed[i] || t.task.Blocked(i) {
		return nil
	}
	return t.ins[i]
}

func (t *liveTask) step(m protocol.Message) {
	if err := t.task.Step(t.now(), m); err != nil {
		panic(err)
	}
	t.handleReady()
}

// receive handles what arrived on input i.
func (t *liveTask) receive(i int, item liveItem) {
	if item.event == nil {
		// run reads no blocked input, and the job is aligned: every record it reads is
		// processed at once.
		if a := t.task.Admit(i); a.Action != protocol.AdmitProcess {
			panic(fmt.Sprint("unexpected admission ", a))
		}
		t.recv[i]++
		if t.twoPhase != nil {
			txn := t.twoPhase.Current()
			t.rec.Emit(trace.SinkWrite(t.id, string(txn), item.rid, strconv.FormatInt(item.value, 10)))
			t.held[txn]++
			return
		}
		t.out <- liveItem{rid: item.rid, value: item.value * item.value}
		t.sent++
		return
	}
	ev := *item.event
	if ev.Type == protocol.EventBarrier {
		t.rec.Emit(trace.BarrierRecv(t.id, t.ups[i], uint64(ev.Checkpoint)))
	}
	if err := t.task.Receive(t.now(), i, ev); err != nil {
		panic(err)
	}
	t.handleReady()
	switch ev.Type {
	case protocol.EventEndOfPartition:
		t.closed[i] = true
	case protocol.EventEndOfData:
		if t.ended++; t.ended == len(t.ins) && !t.finished {
			t.finish() // every input has ended, and the operator holds nothing back
		}
	}
}

// finish tells the task that it has produced its last record.
func (t *liveTask) finish() {
	if err := t.task.Finish(t.now()); err != nil {
		panic(err)
	}
	t.finished = true
	t.handleReady()
}

// handleReady handles every Ready the task has, each field in order, and completes the
// uploads of the snapshots taken once the Ready that asked for them is done.
func (t *liveTask) handleReady() {
	for t.task.HasReady() || len(t.uploads) > 0 {
		if !t.task.HasReady() {
			cp := t.uploads[0]
			t.uploads = t.uploads[1:]
			handle := protocol.TaskSnapshot{Handle: t.id + "/" + cp.String()}
			if err := t.task.SnapshotCompleted(t.now(), cp, handle); err != nil {
				panic(err)
			}
			continue
		}
		rd := t.task.Ready()
		for _, req := range rd.Snapshots {
			t.snapshot(req.Checkpoint)
		}
		for _, s := range rd.Sends {
			if s.Event.Type == protocol.EventBarrier {
				t.rec.Emit(trace.BarrierSend(t.id, t.down, uint64(s.Event.Checkpoint)))
			}
			t.out <- liveItem{event: &s.Event}
		}
		for _, m := range rd.Messages {
			switch m.Type {
			case protocol.MsgAck:
				t.rec.Emit(trace.SnapshotAck(t.id, uint64(m.Checkpoint), m.Snapshot.Final))
			case protocol.MsgDecline:
				t.rec.Emit(trace.SnapshotDecline(t.id, uint64(m.Checkpoint), m.Reason.String()))
			}
			t.toCoord <- m
		}
		for _, n := range rd.Notifications {
			if n.Type == protocol.NotifyComplete {
				t.rec.Emit(trace.NotifyComplete(t.id, uint64(n.Checkpoint)))
			} else {
				t.rec.Emit(trace.NotifyAbort(t.id, uint64(n.Checkpoint)))
			}
			if t.twoPhase != nil {
				n.Deliver(sinkListener{t})
			}
		}
		if rd.Exit {
			t.rec.Emit(trace.TaskFinish(t.id))
			t.exited = true
		}
	}
}

// snapshot takes the task's snapshot for cp, at once: nothing is processed between the input
// that asked for it and the cut.
func (t *liveTask) snapshot(cp protocol.CheckpointID) {
	s := trace.SnapshotState{State: strconv.FormatInt(t.sent, 16)}
	if t.down != "" {
		s.Sent = map[string]uint64{t.down: uint64(t.sent)}
	}
	if len(t.ups) > 0 {
		s.Recv = map[string]uint64{}
	}
	for i, up := range t.ups {
		s.Recv[up] = uint64(t.recv[i])
		s.State += "-" + strconv.FormatInt(t.recv[i], 16)
	}
	if t.twoPhase != nil {
		txn := t.twoPhase.Current()
		if _, err := t.twoPhase.PreCommit(cp, t.nextTxn()); err != nil {
			panic(err)
		}
		t.rec.Emit(trace.SinkPrecommit(t.id, uint64(cp), string(txn)))
	}
	t.rec.Emit(trace.SnapshotTaken(t.id, uint64(cp), s))
	t.uploads = append(t.uploads, cp)
}

func (t *liveTask) nextTxn() protocol.TransactionID {
	t.txnSeq++
	return protocol.TransactionID("txn-" + strconv.Itoa(t.txnSeq))
}

// sinkListener commits, on the "external store", what a notification commits.
type sinkListener struct{ t *liveTask }

func (l sinkListener) NotifyCheckpointComplete(id protocol.CheckpointID) {
	for _, a := range l.t.twoPhase.NotifyCheckpointComplete(id) {
		start := l.t.rec.Now()
		if a.Type != protocol.TransactionCommit {
			l.t.rec.Emit(trace.SinkAbort(l.t.id, string(a.Transaction), "aborted"))
			continue
		}
		records := l.t.held[a.Transaction] // what this commit makes visible
		delete(l.t.held, a.Transaction)    // a repeated commit makes nothing visible
		l.t.rec.Emit(trace.SinkCommit(l.t.id, uint64(a.Checkpoint), string(a.Transaction), records, start))
	}
}

func (l sinkListener) NotifyCheckpointAborted(id protocol.CheckpointID) {
	l.t.twoPhase.NotifyCheckpointAborted(id) // no action: the next completion commits it
}

// TestLiveHostNeedsCarriedSnapshots: the live host's trace passes consistent-cut only
// because it traces the snapshots that later checkpoints carry over. Without its
// snapshot.carried events, map's count of src-a's records in those cuts has no sender, and
// the verdict must not be a pass (a fail, or unknown naming the missing evidence).
func TestLiveHostNeedsCarriedSnapshots(t *testing.T) {
	events, ref := runLiveHost()
	var without []trace.Event
	for _, e := range events {
		if e.Kind != trace.KindSnapshotCarried {
			e.Seq = uint64(len(without))
			without = append(without, e)
		}
	}
	if len(without) == len(events) {
		t.Fatal("the live host traced no snapshot.carried")
	}
	if res := checker.ConsistentCut(events, ref); res.Verdict != checker.VerdictPass {
		t.Fatalf("with snapshot.carried: %v", res)
	}
	res := checker.ConsistentCut(without, ref)
	t.Logf("without snapshot.carried: %v", res)
	if res.Verdict == checker.VerdictPass {
		t.Fatalf("without snapshot.carried: %v, want no pass", res)
	}
}
