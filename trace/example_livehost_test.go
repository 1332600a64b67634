package trace_test

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// liveRecords is how many records the source reads at most before it is told to stop.
const liveRecords = 300

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
	id       string
	up, down string        // the tasks at the other end of in and out; "" at the ends
	in, out  chan liveItem // nil at the ends
	ctrl     chan protocol.Message
	toCoord  chan<- protocol.Message
	rec      *trace.SyncRecorder
	now      func() protocol.Time
	task     *protocol.Task

	sent, recv int64
	uploads    []protocol.CheckpointID // snapshots taken whose upload is "in flight"
	finished   bool                    // Finish was called: no record follows
	exited     bool

	// The sink's two-phase commit, and the records each of its transactions holds.
	twoPhase *protocol.TwoPhaseCommit
	txnSeq   int
	held     map[protocol.TransactionID]uint64
}

// Example_liveHost is a live host: the pipeline src -> map -> sink, each task on a goroutine
// of its own, data channels that are Go channels, a coordinator goroutine, and the wall
// clock. It embeds package protocol through its public API, records with a
// trace.SyncRecorder and the typed constructors, and has the file it wrote judged by
// checker.Check, as simrun check would judge it. The interleaving differs from run to run,
// and so does the trace; the verdict does not.
//
// Every event is emitted before the message or channel event that carries its effect to
// another goroutine (package protocol, "Tracing"): that, and nothing about goroutines or
// clocks, is what makes the trace's order a causal one.
func Example_liveHost() {
	var file bytes.Buffer
	clock := trace.Since(time.Now())
	rec := trace.NewSyncRecorder(trace.NewRecorder(&file, trace.Header{Scenario: "live-pipeline", Build: "example"}), clock)
	now := func() protocol.Time { return protocol.Time(clock()) } // one clock for protocol and trace

	cfg := protocol.DefaultConfig()
	cfg.Interval = 0 // the coordinator goroutine triggers checkpoints itself
	cfg.CheckInvariants = true
	topo := protocol.Topology{
		Tasks:    []protocol.TaskID{"src", "map", "sink"},
		Channels: []protocol.ChannelID{{From: "src", To: "map"}, {From: "map", To: "sink"}},
	}
	toCoord := make(chan protocol.Message, 64) // more than the run ever holds: no send blocks
	tasks := map[protocol.TaskID]*liveTask{}
	for i, id := range topo.Tasks {
		task, err := protocol.NewTask(cfg.TaskConfig(id, topo.Inputs(id), topo.Outputs(id)))
		if err != nil {
			panic(err)
		}
		t := &liveTask{id: string(id), task: task, ctrl: make(chan protocol.Message, 64), toCoord: toCoord, rec: rec, now: now}
		if i > 0 {
			// Room for what follows the final barrier (end of data, end of partition), so
			// that a task never blocks on a downstream task that has exited.
			prev := tasks[topo.Tasks[i-1]]
			prev.out, prev.down = make(chan liveItem, 16), t.id
			t.in, t.up = prev.out, prev.id
		}
		tasks[id] = t
	}
	sink := tasks["sink"]
	twoPhase, err := protocol.NewTwoPhaseCommit(sink.nextTxn(), 16)
	if err != nil {
		panic(err)
	}
	sink.twoPhase = twoPhase
	sink.held = map[protocol.TransactionID]uint64{}

	stop := make(chan struct{})
	var read int64 // records the source read; the expected output
	var running sync.WaitGroup
	running.Go(func() { runCoordinator(cfg, topo, rec, now, toCoord, tasks, stop) })
	running.Go(func() { read = tasks["src"].runSource(stop) })
	running.Go(tasks["map"].run)
	running.Go(sink.run)
	running.Wait()
	if err := rec.Close(); err != nil {
		panic(err)
	}

	// Judge the file, as simrun check would.
	_, events, err := trace.ReadAll(&file)
	if err != nil {
		panic(err)
	}
	want := map[string]string{}
	for i := range read {
		want["r"+strconv.FormatInt(i, 10)] = strconv.FormatInt(i*i, 10)
	}
	ref := checker.Reference{
		Guarantee: checker.GuaranteeExactlyOnce,
		Output:    checker.ExpectOnce(want),
		Promises: []checker.Property{checker.PropExactlyOnce, checker.PropAtLeastOnce, checker.PropConsistentCut,
			checker.PropListenerContract, checker.PropCheckpointOutcome, checker.PropDurableVisible, checker.PropNoTriggerAfterFinish},
	}
	report := checker.Check(events, ref, checker.Options{})
	completed := 0
	for _, e := range events {
		if e.Kind == trace.KindCheckpointComplete {
			completed++
		}
	}
	fmt.Println("checkpoints completed:", completed)
	for _, res := range report.Results {
		fmt.Println(res)
	}
	fmt.Println("verdict:", report.Verdict())

	// Output:
	// checkpoints completed: 4
	// well-formed: pass
	// exactly-once: pass
	// at-least-once: pass
	// consistent-cut: pass
	// listener-contract: pass
	// checkpoint-outcome: pass
	// no-trigger-after-finish: pass
	// durable-before-visible: pass
	// verdict: pass
}

// runCoordinator drives the coordinator: it triggers liveCheckpoints checkpoints, each
// livePause after the one before completed, then stops the source, and returns when the job
// has finished. The id counter and the completed-checkpoint store are "durable" at once.
func runCoordinator(cfg protocol.Config, topo protocol.Topology, rec *trace.SyncRecorder, now func() protocol.Time,
	inbox <-chan protocol.Message, tasks map[protocol.TaskID]*liveTask, stop chan<- struct{}) {
	coord, err := protocol.NewCoordinator(cfg, topo, protocol.Durable{}, now())
	if err != nil {
		panic(err)
	}
	completed := 0
	next := time.After(livePause) // when to trigger the next checkpoint; nil: not now
	for {
		var finished bool
		for coord.HasReady() {
			rd := coord.Ready()
			var confirm []func()
			for _, v := range rd.CounterWrites {
				confirm = append(confirm, func() { coord.CounterPersisted(now(), v, nil) })
			}
			for _, cc := range rd.MetadataWrites {
				rec.Emit(trace.CheckpointPersist(uint64(cc.ID))) // before the write starts
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
				tasks[m.Task].ctrl <- m
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
			close(stop) // the source finishes; the final checkpoint follows by itself
			stop = nil
		}
		select {
		case m := <-inbox:
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

// runSource reads liveBatch records every liveReadEvery, until stop or until it has read
// liveRecords; then it finishes, and serves the coordinator until it may exit. It returns
// how many records it read.
func (t *liveTask) runSource(stop <-chan struct{}) int64 {
	poll := time.NewTicker(liveReadEvery)
	defer poll.Stop()
	for !t.exited {
		readable := poll.C
		if t.finished || t.sent == liveRecords {
			readable = nil // nothing more to read
		}
		select {
		case m := <-t.ctrl:
			t.step(m)
		case <-stop:
			stop = nil
			t.finish()
		case <-readable:
			for range min(liveBatch, liveRecords-t.sent) {
				t.out <- liveItem{rid: "r" + strconv.FormatInt(t.sent, 10), value: t.sent}
				t.sent++
			}
		}
	}
	return t.sent
}

// run serves a task with an input: records and channel events from upstream, messages from
// the coordinator.
func (t *liveTask) run() {
	for !t.exited {
		select {
		case m := <-t.ctrl:
			t.step(m)
		case item := <-t.in:
			t.receive(item)
		}
	}
}

func (t *liveTask) step(m protocol.Message) {
	if err := t.task.Step(t.now(), m); err != nil {
		panic(err)
	}
	t.handleReady()
}

// receive handles what arrived on the task's one input.
func (t *liveTask) receive(item liveItem) {
	if item.event == nil {
		// One input never blocks for alignment, and the job is aligned: every record is
		// processed at once.
		if a := t.task.Admit(0); a.Action != protocol.AdmitProcess {
			panic(fmt.Sprint("unexpected admission ", a))
		}
		t.recv++
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
		t.rec.Emit(trace.BarrierRecv(t.id, t.up, uint64(ev.Checkpoint)))
	}
	if err := t.task.Receive(t.now(), 0, ev); err != nil {
		panic(err)
	}
	t.handleReady()
	if ev.Type == protocol.EventEndOfData && !t.finished {
		t.finish() // every input (the one) has ended, and the operator holds nothing back
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
				t.rec.Emit(trace.SnapshotAck(t.id, uint64(m.Checkpoint)))
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
	s := trace.SnapshotState{State: strconv.FormatInt(t.sent, 16) + "-" + strconv.FormatInt(t.recv, 16)}
	if t.down != "" {
		s.Sent = map[string]uint64{t.down: uint64(t.sent)}
	}
	if t.up != "" {
		s.Recv = map[string]uint64{t.up: uint64(t.recv)}
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
