package protocol_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// exampleHost is the smallest host that honours every obligation of the
// package documentation, for the pipeline src -> map -> sink. It owns the
// "network" (a FIFO per data channel, a queue per direction of control
// messages), the "durable storage" (counter, completed-checkpoint store and
// a blob store of uploaded task state), each task's state, and the sink's
// external system. It handles every field of every Ready, in order, and
// takes the next Ready only when it has finished the one in hand.
type exampleHost struct {
	now   protocol.Time
	cfg   protocol.Config
	topo  protocol.Topology
	coord *protocol.Coordinator
	tasks map[protocol.TaskID]*protocol.Task

	channels map[protocol.ChannelID][]protocol.ChannelEvent
	toTasks  []protocol.Message
	toCoord  []protocol.Message

	// Durable storage.
	counter protocol.CheckpointID
	store   []protocol.CompletedCheckpoint
	blobs   map[string]exampleState
	// Uploads in flight, completed by deliverAll once sealed.
	uploads []upload

	// The operators' live state.
	sourceRead int64 // the source's offset: records read so far
	sourceEnd  int64 // bounded input: the source finishes here (0: never)
	sink       *protocol.TwoPhaseCommit
	sinkTxnSeq int
	endOfData  map[protocol.ChannelID]bool // delivered to the receiver
	exited     map[protocol.TaskID]bool
	plan       *protocol.FailoverPlan
}

// exampleState is what a snapshot uploads: the source's offsets, or the
// sink's two-phase-commit state. It lives in the blob store under the
// snapshot's handle, so a restore finds it there and nowhere else.
type exampleState struct {
	offsets  []protocol.SourceOffset
	twoPhase protocol.TwoPhaseCommitState
}

type upload struct {
	task   protocol.TaskID
	id     protocol.CheckpointID
	sealed bool
	snap   protocol.TaskSnapshot
	state  exampleState
}

func newExampleHost() *exampleHost {
	cfg := protocol.DefaultConfig()
	cfg.Interval = time.Second
	h := &exampleHost{
		cfg: cfg,
		topo: protocol.Topology{
			Tasks: []protocol.TaskID{"src", "map", "sink"},
			Channels: []protocol.ChannelID{
				{From: "src", To: "map"},
				{From: "map", To: "sink"},
			},
		},
		tasks:     map[protocol.TaskID]*protocol.Task{},
		channels:  map[protocol.ChannelID][]protocol.ChannelEvent{},
		blobs:     map[string]exampleState{},
		endOfData: map[protocol.ChannelID]bool{},
		exited:    map[protocol.TaskID]bool{},
	}
	var err error
	h.coord, err = protocol.NewCoordinator(cfg, h.topo, protocol.Durable{}, h.now)
	if err != nil {
		panic(err)
	}
	for _, id := range h.topo.Tasks {
		h.tasks[id] = h.newTask(id)
	}
	h.sink, _ = protocol.NewTwoPhaseCommit(h.nextTxn(), 16)
	return h
}

func (h *exampleHost) newTask(id protocol.TaskID) *protocol.Task {
	t, err := protocol.NewTask(h.cfg.TaskConfig(id, h.topo.Inputs(id), h.topo.Outputs(id)))
	if err != nil {
		panic(err)
	}
	return t
}

func (h *exampleHost) nextTxn() protocol.TransactionID {
	h.sinkTxnSeq++
	return protocol.TransactionID(fmt.Sprintf("txn-%d", h.sinkTxnSeq))
}

// coordinatorReady handles the coordinator's Readies, each in field order.
// The writes are "durable" at once, but their confirmations are passed back
// only after the whole Ready was handled: confirming in the middle and
// taking the next Ready there would act on later outputs before earlier
// ones.
func (h *exampleHost) coordinatorReady() {
	for h.coord.HasReady() {
		rd := h.coord.Ready()
		var confirm []func()
		for _, v := range rd.CounterWrites {
			h.counter = v
			sayln("  storage: counter =", v)
			confirm = append(confirm, func() { h.coord.CounterPersisted(h.now, v, nil) })
		}
		for _, cc := range rd.MetadataWrites {
			h.store = append(h.store, cc)
			sayln("  storage: completed checkpoint", cc.ID)
			confirm = append(confirm, func() { h.coord.MetadataPersisted(h.now, cc.ID, nil) })
		}
		// What happened is told before the messages that announce it go
		// out: a task may act on a notification at once, and its trace
		// must not come before the completion's.
		for _, cc := range rd.Completed {
			sayln("  checkpoint complete:", cc.ID)
		}
		for _, a := range rd.Aborted {
			sayln("  checkpoint aborted:", a)
		}
		for _, m := range rd.Messages {
			sayln("  send:", m)
			h.toTasks = append(h.toTasks, m)
		}
		// The store first, then the state: the store never names state
		// that is gone. Discarded is about the store only; the state
		// nothing holds any more is in Released.
		for _, d := range rd.Discarded {
			h.store = slices.DeleteFunc(h.store, func(cc protocol.CompletedCheckpoint) bool { return cc.ID == d.ID })
			sayln("  storage: removed checkpoint", d.ID)
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
			sayln("  storage: deleted", r.Snapshot.Handle)
		}
		if rd.Failover != nil {
			sayln("  failover:", rd.Failover)
			h.plan = rd.Failover // the example restarts the tasks from it
		}
		if rd.JobFinished {
			sayln("  job finished")
		}
		for _, c := range confirm {
			c()
		}
	}
}

// taskReady handles a task's Readies, each in field order.
func (h *exampleHost) taskReady(id protocol.TaskID) {
	t := h.tasks[id]
	outputs := h.topo.Outputs(id)
	for t.HasReady() {
		rd := t.Ready()
		for _, req := range rd.Snapshots {
			// The synchronous part of the snapshot: copy the state now,
			// before any further record.
			u := upload{task: id, id: req.Checkpoint, sealed: !req.AwaitChannelState,
				snap: protocol.TaskSnapshot{Handle: fmt.Sprintf("%s/%d", id, req.Checkpoint)}}
			switch id {
			case "src":
				u.state.offsets = []protocol.SourceOffset{{Split: "p0", Offset: h.sourceRead}}
				u.snap.SourceOffsets = u.state.offsets
			case "sink":
				state, err := h.sink.PreCommit(req.Checkpoint, h.nextTxn())
				if err != nil {
					panic(err) // a real sink fails the snapshot instead
				}
				u.state.twoPhase = state
			}
			sayf("  %s: snapshot %d %v\n", id, req.Checkpoint, u.snap.SourceOffsets)
			h.uploads = append(h.uploads, u)
		}
		for _, s := range rd.Sends {
			ch := outputs[s.Output]
			sayf("  %s: %v -> %v\n", id, s.Event, ch)
			h.channels[ch] = append(h.channels[ch], s.Event) // appending is always correct
		}
		for _, cp := range rd.Sealed {
			for i := range h.uploads {
				if h.uploads[i].task == id && h.uploads[i].id == cp {
					h.uploads[i].sealed = true
				}
			}
		}
		for _, a := range rd.Aborted {
			sayf("  %s: cancel upload %d (%v)\n", id, a.Checkpoint, a.Reason)
			h.uploads = slices.DeleteFunc(h.uploads, func(u upload) bool { return u.task == id && u.id == a.Checkpoint })
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
		}
		for _, m := range rd.Messages {
			sayln("  send:", m)
			h.toCoord = append(h.toCoord, m)
		}
		for _, n := range rd.Notifications {
			sayf("  %s: listener %v\n", id, n)
			if id == "sink" {
				n.Deliver(exampleSinkListener{h})
			}
		}
		if rd.Exit {
			sayf("  %s: exit\n", id)
			h.exited[id] = true
		}
	}
}

// exampleSinkListener forwards the sink's notifications to its
// two-phase-commit helper and performs the actions on the "external system".
type exampleSinkListener struct{ h *exampleHost }

func (l exampleSinkListener) NotifyCheckpointComplete(id protocol.CheckpointID) {
	for _, a := range l.h.sink.NotifyCheckpointComplete(id) {
		sayf("  sink: external system: %v\n", a)
	}
}

func (l exampleSinkListener) NotifyCheckpointAborted(id protocol.CheckpointID) {
	l.h.sink.NotifyCheckpointAborted(id) // returns no action: the next completion commits it
}

// input is the index of channel ch among its receiver's inputs.
func (h *exampleHost) input(ch protocol.ChannelID) int {
	return slices.Index(h.topo.Inputs(ch.To), ch)
}

// deliverAll moves everything in flight until the system is quiet: data
// channel events (held back while an input is blocked), finished uploads,
// control messages. A bounded source finishes once it has read everything.
func (h *exampleHost) deliverAll() {
	for progress := true; progress; {
		progress = false
		if h.sourceEnd > 0 && h.sourceRead >= h.sourceEnd && !h.tasks["src"].Finished() {
			h.tasks["src"].Finish(h.now)
			h.taskReady("src")
			progress = true
		}
		for _, ch := range h.topo.Channels {
			to := h.tasks[ch.To]
			for len(h.channels[ch]) > 0 && !to.Blocked(h.input(ch)) {
				ev := h.channels[ch][0]
				h.channels[ch] = h.channels[ch][1:]
				if err := to.Receive(h.now, h.input(ch), ev); err != nil {
					panic(err)
				}
				h.taskReady(ch.To)
				progress = true
				if ev.Type == protocol.EventEndOfData || ev.Type == protocol.EventEndOfPartition {
					h.endOfData[ch] = true
					if h.drained(ch.To) && !to.Finished() {
						// The operator flushed (the example's hold nothing back).
						if err := to.Finish(h.now); err != nil {
							panic(err)
						}
						h.taskReady(ch.To)
					}
				}
			}
		}
		for len(h.uploads) > 0 && h.uploads[0].sealed {
			u := h.uploads[0]
			h.uploads = h.uploads[1:]
			h.blobs[u.snap.Handle] = u.state // the upload is durable
			if err := h.tasks[u.task].SnapshotCompleted(h.now, u.id, u.snap); err != nil {
				panic(err)
			}
			h.taskReady(u.task)
			progress = true
		}
		for len(h.toTasks) > 0 {
			m := h.toTasks[0]
			h.toTasks = h.toTasks[1:]
			if err := h.tasks[m.Task].Step(h.now, m); err != nil {
				panic(err)
			}
			h.taskReady(m.Task)
			progress = true
		}
		for len(h.toCoord) > 0 {
			m := h.toCoord[0]
			h.toCoord = h.toCoord[1:]
			h.coord.Step(h.now, m) // late and duplicate acks are expected
			h.coordinatorReady()
			progress = true
		}
	}
}

// drained reports whether every input of task delivered end of data.
func (h *exampleHost) drained(task protocol.TaskID) bool {
	for _, ch := range h.topo.Inputs(task) {
		if !h.endOfData[ch] {
			return false
		}
	}
	return true
}

// Example_pipeline steps the pipeline src -> map -> sink through one
// aligned checkpoint: the coordinator reserves the id durably, triggers the
// source, the barrier flows down the pipeline, each task snapshots and
// acks, the coordinator makes the checkpoint durable and only then notifies
// the tasks, and the sink commits its transaction.
func Example_pipeline() {
	h := newExampleHost()
	h.sourceRead = 42 // the source read 42 records before the checkpoint

	h.now = h.coord.NextDeadline()
	fmt.Println("tick: first periodic trigger")
	h.coord.Tick(h.now)
	h.coordinatorReady()
	h.deliverAll()
	fmt.Println("retained:", h.coord.LatestRestorable().ID)

	// Output:
	// tick: first periodic trigger
	//   storage: counter = 1
	//   send: trigger coordinator->src cp=1 checkpoint aligned t=483126149
	//   src: snapshot 1 [p0:42]
	//   src: barrier cp=1 checkpoint aligned -> src->map
	//   map: snapshot 1 []
	//   map: barrier cp=1 checkpoint aligned -> map->sink
	//   sink: snapshot 1 []
	//   send: ack src->coordinator cp=1 handle=src/1 size=0 offsets=[p0:42]
	//   send: ack map->coordinator cp=1 handle=map/1 size=0
	//   send: ack sink->coordinator cp=1 handle=sink/1 size=0
	//   storage: completed checkpoint 1
	//   checkpoint complete: 1
	//   send: notify-complete coordinator->src cp=1
	//   send: notify-complete coordinator->map cp=1
	//   send: notify-complete coordinator->sink cp=1
	//   src: listener notify-complete cp=1
	//   map: listener notify-complete cp=1
	//   sink: listener notify-complete cp=1
	//   sink: external system: commit txn-1@1
	// retained: 1
}

// Example_crashAndRestore continues after one completed checkpoint: the map
// task crashes, the coordinator crashes too, a new coordinator incarnation
// is built from durable storage, and the job fails over to the latest
// completed checkpoint. Each task finds its state in the blob store under
// the handle the plan names; the sink recommits the transactions of the
// restored checkpoint (idempotently) and aborts the one it had open. The
// next checkpoint replaces the restored one, whose state is then deleted.
func Example_crashAndRestore() {
	h := newExampleHost()
	h.sourceRead = 42
	h.now = h.coord.NextDeadline()
	quiet(func() {
		h.coord.Tick(h.now)
		h.coordinatorReady()
		h.deliverAll()
	})

	// More records are read after the checkpoint, then map crashes and,
	// before anything else happens, the coordinator's process dies too.
	h.sourceRead = 50
	fmt.Println("coordinator crash; recover from storage: counter", h.counter, "store", len(h.store))
	var err error
	h.coord, err = protocol.NewCoordinator(h.cfg, h.topo, protocol.Durable{HighestID: h.counter, Completed: slices.Clone(h.store)}, h.now)
	if err != nil {
		panic(err)
	}
	h.coordinatorReady() // re-announces checkpoint 1; tasks drop the duplicate
	h.toTasks = nil      // (the old tasks are about to be replaced anyway)

	fmt.Println("map crashed: fail over")
	h.coord.RequestFailover(h.now, protocol.ReasonTaskFailure)
	h.coordinatorReady()
	plan := h.plan
	h.uploads = nil // the old tasks' uploads die with them
	for _, id := range h.topo.Tasks {
		snap, _ := plan.Restore.Snapshot(id)
		state := h.blobs[snap.Handle]
		h.tasks[id] = h.newTask(id)
		if err := h.tasks[id].Restore(h.now, plan.Restore.ID, snap); err != nil {
			panic(err)
		}
		switch id {
		case "src":
			h.sourceRead = state.offsets[0].Offset
			fmt.Println("  src: rewind to offset", h.sourceRead)
		case "sink":
			var actions []protocol.TransactionAction
			h.sink, actions, err = protocol.RestoreTwoPhaseCommit(state.twoPhase, plan.Restore.ID, h.nextTxn(), 16)
			if err != nil {
				panic(err)
			}
			for _, a := range actions {
				fmt.Println("  sink: external system:", a)
			}
		}
	}
	h.coord.JobRestarted(h.now)
	h.coordinatorReady()

	h.now = h.coord.NextDeadline()
	fmt.Println("tick: next checkpoint")
	quiet(func() {
		h.coord.Tick(h.now)
		h.coordinatorReady()
	})
	// Show only how checkpoint 1 leaves the store.
	h.deliverAllShowing("storage")
	fmt.Println("retained:", h.coord.LatestRestorable().ID, "blobs:", len(h.blobs))

	// Output:
	// coordinator crash; recover from storage: counter 1 store 1
	//   send: notify-complete coordinator->src cp=1
	//   send: notify-complete coordinator->map cp=1
	//   send: notify-complete coordinator->sink cp=1
	// map crashed: fail over
	//   failover: reason=task-failure restore=1
	//   src: rewind to offset 42
	//   sink: external system: commit txn-1@1
	//   sink: external system: abort txn-2@1
	// tick: next checkpoint
	//   storage: completed checkpoint 2
	//   storage: removed checkpoint 1
	//   storage: deleted src/1
	//   storage: deleted map/1
	//   storage: deleted sink/1
	// retained: 2 blobs: 3
}

// Example_boundedInput runs a job whose source ends: it finishes, end of
// data flows down, every task finishes in turn and the coordinator
// triggers the final checkpoint at once. Its notification commits the
// sink's last transaction and lets every task exit, closing its outputs;
// the job is finished.
func Example_boundedInput() {
	h := newExampleHost()
	h.sourceRead = 42
	h.now = h.coord.NextDeadline()
	quiet(func() {
		h.coord.Tick(h.now)
		h.coordinatorReady()
		h.deliverAll()
	})

	fmt.Println("the source reads its last record")
	h.sourceEnd, h.sourceRead = 60, 60
	h.deliverAll()
	// The final snapshots stay: the last checkpoint holds them.
	fmt.Println("exited:", len(h.exited), "blobs:", len(h.blobs))

	// Output:
	// the source reads its last record
	//   src: end-of-data -> src->map
	//   send: task-finished src->coordinator
	//   map: end-of-data -> map->sink
	//   send: task-finished map->coordinator
	//   send: task-finished sink->coordinator
	//   storage: counter = 2
	//   send: trigger coordinator->src cp=2 checkpoint aligned t=483126149
	//   src: snapshot 2 [p0:60]
	//   src: barrier cp=2 checkpoint aligned -> src->map
	//   map: snapshot 2 []
	//   map: barrier cp=2 checkpoint aligned -> map->sink
	//   sink: snapshot 2 []
	//   send: ack src->coordinator cp=2 handle=src/2 size=0 offsets=[p0:60] final
	//   send: ack map->coordinator cp=2 handle=map/2 size=0 final
	//   send: ack sink->coordinator cp=2 handle=sink/2 size=0 final
	//   storage: completed checkpoint 2
	//   checkpoint complete: 2
	//   send: notify-complete coordinator->src cp=2
	//   send: notify-complete coordinator->map cp=2
	//   send: notify-complete coordinator->sink cp=2
	//   storage: removed checkpoint 1
	//   storage: deleted src/1
	//   storage: deleted map/1
	//   storage: deleted sink/1
	//   job finished
	//   src: end-of-partition -> src->map
	//   src: listener notify-complete cp=2
	//   src: exit
	//   map: end-of-partition -> map->sink
	//   map: listener notify-complete cp=2
	//   map: exit
	//   sink: listener notify-complete cp=2
	//   sink: external system: commit txn-2@2
	//   sink: exit
	// exited: 3 blobs: 3
}

// deliverAllShowing runs deliverAll printing only the lines that start
// with prefix (after the indentation).
func (h *exampleHost) deliverAllShowing(prefix string) {
	defer func(saved string) { exampleOnly = saved }(exampleOnly)
	exampleOnly = prefix
	h.deliverAll()
}

// exampleQuiet silences the host while an example replays steps it has
// already shown; exampleOnly restricts it to lines with one prefix.
var (
	exampleQuiet bool
	exampleOnly  string
)

func say(line string) {
	if exampleQuiet || exampleOnly != "" && !strings.HasPrefix(strings.TrimSpace(line), exampleOnly) {
		return
	}
	fmt.Print(line)
}

func sayln(args ...any) { say(fmt.Sprintln(args...)) }

func sayf(format string, args ...any) { say(fmt.Sprintf(format, args...)) }

// quiet runs f without its printing, for steps an example has shown before.
func quiet(f func()) {
	defer func(saved bool) { exampleQuiet = saved }(exampleQuiet)
	exampleQuiet = true
	f()
}
