package protocol_test

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// exampleHost is the smallest host that honours every obligation of the
// package documentation, for the pipeline src -> map -> sink. It owns the
// "network" (a FIFO per data channel, a queue per direction of control
// messages), the "durable storage" (counter and completed-checkpoint
// store), each task's state, and the sink's external system.
type exampleHost struct {
	now   protocol.Time
	topo  protocol.Topology
	coord *protocol.Coordinator
	tasks map[protocol.TaskID]*protocol.Task

	channels    map[protocol.ChannelID][]protocol.ChannelEvent
	toTasks     []protocol.Message
	toCoord     []protocol.Message
	counter     protocol.CheckpointID
	store       []protocol.CompletedCheckpoint
	uploads     []upload
	sourceRead  int64 // the source's offset: records read so far
	sink        *protocol.TwoPhaseCommit
	sinkTxnSeq  int
	sinkPending map[protocol.CheckpointID]protocol.TwoPhaseCommitState
}

type upload struct {
	task protocol.TaskID
	req  protocol.SnapshotRequest
	snap protocol.TaskSnapshot
}

func newExampleHost() *exampleHost {
	cfg := protocol.DefaultConfig()
	cfg.Interval = time.Second
	h := &exampleHost{
		topo: protocol.Topology{
			Tasks: []protocol.TaskID{"src", "map", "sink"},
			Channels: []protocol.ChannelID{
				{From: "src", To: "map"},
				{From: "map", To: "sink"},
			},
		},
		tasks:       map[protocol.TaskID]*protocol.Task{},
		channels:    map[protocol.ChannelID][]protocol.ChannelEvent{},
		sinkPending: map[protocol.CheckpointID]protocol.TwoPhaseCommitState{},
	}
	var err error
	h.coord, err = protocol.NewCoordinator(cfg, h.topo, protocol.Durable{}, h.now)
	if err != nil {
		panic(err)
	}
	for _, id := range h.topo.Tasks {
		h.tasks[id] = h.newTask(cfg, id)
	}
	h.sink, _ = protocol.NewTwoPhaseCommit(h.nextTxn(), 16)
	return h
}

func (h *exampleHost) newTask(cfg protocol.Config, id protocol.TaskID) *protocol.Task {
	t, err := protocol.NewTask(cfg.TaskConfig(id, h.topo.Inputs(id), h.topo.Outputs(id)))
	if err != nil {
		panic(err)
	}
	return t
}

func (h *exampleHost) nextTxn() protocol.TransactionID {
	h.sinkTxnSeq++
	return protocol.TransactionID(fmt.Sprintf("txn-%d", h.sinkTxnSeq))
}

// coordinatorReady handles a CoordinatorReady in field order.
func (h *exampleHost) coordinatorReady() {
	rd := h.coord.Ready()
	for _, v := range rd.CounterWrites {
		h.counter = v // durable now
		sayln("  storage: counter =", v)
		h.coord.CounterPersisted(h.now, v, nil)
		h.coordinatorReady()
	}
	for _, cc := range rd.MetadataWrites {
		h.store = append(h.store, cc) // durable now
		sayln("  storage: completed checkpoint", cc.ID)
		h.coord.MetadataPersisted(h.now, cc.ID, nil)
		h.coordinatorReady()
	}
	for _, m := range rd.Messages {
		sayln("  send:", m)
		h.toTasks = append(h.toTasks, m)
	}
	for _, cc := range rd.Completed {
		sayln("  checkpoint complete:", cc.ID)
	}
	if rd.Failover != nil {
		sayln("  failover:", rd.Failover)
	}
}

// taskReady handles a TaskReady in field order.
func (h *exampleHost) taskReady(id protocol.TaskID) {
	t := h.tasks[id]
	rd := t.Ready()
	outputs := h.topo.Outputs(id)
	for _, req := range rd.Snapshots {
		// The synchronous part of the snapshot: copy the state now,
		// before any further record.
		snap := protocol.TaskSnapshot{Handle: fmt.Sprintf("%s/%d", id, req.Checkpoint)}
		switch id {
		case "src":
			snap.SourceOffsets = []protocol.SourceOffset{{Split: "p0", Offset: h.sourceRead}}
		case "sink":
			state, err := h.sink.PreCommit(req.Checkpoint, h.nextTxn())
			if err != nil {
				panic(err)
			}
			h.sinkPending[req.Checkpoint] = state
		}
		sayf("  %s: snapshot %d %v\n", id, req.Checkpoint, snap.SourceOffsets)
		h.uploads = append(h.uploads, upload{task: id, req: req, snap: snap})
	}
	for _, s := range rd.Sends {
		ch := outputs[s.Output]
		sayf("  %s: %v -> %v\n", id, s.Event, ch)
		h.channels[ch] = append(h.channels[ch], s.Event)
	}
	for _, m := range rd.Messages {
		sayln("  send:", m)
		h.toCoord = append(h.toCoord, m)
	}
	for _, n := range rd.Notifications {
		sayf("  %s: listener %v\n", id, n)
		if id == "sink" && n.Type == protocol.NotifyComplete {
			for _, a := range h.sink.NotifyCheckpointComplete(n.Checkpoint) {
				sayf("  sink: external system: %v\n", a)
			}
		}
	}
}

// deliverAll moves everything in flight until the system is quiet: data
// channel events, finished uploads, control messages.
func (h *exampleHost) deliverAll() {
	for progress := true; progress; {
		progress = false
		for _, ch := range h.topo.Channels {
			for len(h.channels[ch]) > 0 {
				ev := h.channels[ch][0]
				h.channels[ch] = h.channels[ch][1:]
				to := h.tasks[ch.To]
				if err := to.Receive(h.now, 0, ev); err != nil {
					panic(err)
				}
				h.taskReady(ch.To)
				progress = true
			}
		}
		for len(h.uploads) > 0 {
			u := h.uploads[0]
			h.uploads = h.uploads[1:]
			if err := h.tasks[u.task].SnapshotCompleted(h.now, u.req.Checkpoint, u.snap); err != nil {
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
			if err := h.coord.Step(h.now, m); err != nil {
				panic(err)
			}
			h.coordinatorReady()
			progress = true
		}
	}
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
	//   send: notify-complete coordinator->src cp=1
	//   send: notify-complete coordinator->map cp=1
	//   send: notify-complete coordinator->sink cp=1
	//   checkpoint complete: 1
	//   src: listener notify-complete cp=1
	//   map: listener notify-complete cp=1
	//   sink: listener notify-complete cp=1
	//   sink: external system: commit txn-1@1
	// retained: 1
}

// Example_crashAndRestore continues after one completed checkpoint: the map
// task crashes, the coordinator crashes too, a new coordinator incarnation
// is built from durable storage, and the job fails over to the latest
// completed checkpoint. The sink recommits the transactions of the
// restored checkpoint (idempotently) and aborts the one it had open.
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
	cfg := protocol.DefaultConfig()
	cfg.Interval = time.Second
	var err error
	h.coord, err = protocol.NewCoordinator(cfg, h.topo, protocol.Durable{HighestID: h.counter, Completed: h.store}, h.now)
	if err != nil {
		panic(err)
	}
	h.coordinatorReady() // re-announces checkpoint 1; tasks drop the duplicate
	h.toTasks = nil      // (the old tasks are about to be replaced anyway)

	fmt.Println("map crashed: fail over")
	h.coord.RequestFailover(h.now, protocol.ReasonTaskFailure)
	plan := h.coord.Ready().Failover
	fmt.Println("plan:", plan)
	for _, id := range h.topo.Tasks {
		snap, _ := plan.Restore.Snapshot(id)
		h.tasks[id] = h.newTask(cfg, id)
		if err := h.tasks[id].Restore(h.now, plan.Restore.ID, snap); err != nil {
			panic(err)
		}
		switch id {
		case "src":
			h.sourceRead = snap.SourceOffsets[0].Offset
			fmt.Println("  src: rewind to offset", h.sourceRead)
		case "sink":
			var actions []protocol.TransactionAction
			h.sink, actions, _ = protocol.RestoreTwoPhaseCommit(h.sinkPending[plan.Restore.ID], plan.Restore.ID, h.nextTxn(), 16)
			for _, a := range actions {
				fmt.Println("  sink: external system:", a)
			}
		}
	}
	h.coord.JobRestarted(h.now)

	h.now = h.coord.NextDeadline()
	quiet(func() {
		h.coord.Tick(h.now)
		h.coordinatorReady()
		h.deliverAll()
	})
	fmt.Println("next checkpoint after restore:", h.coord.LatestRestorable().ID)

	// Output:
	// coordinator crash; recover from storage: counter 1 store 1
	//   send: notify-complete coordinator->src cp=1
	//   send: notify-complete coordinator->map cp=1
	//   send: notify-complete coordinator->sink cp=1
	// map crashed: fail over
	// plan: reason=task-failure restore=1
	//   src: rewind to offset 42
	//   sink: external system: commit txn-1@1
	//   sink: external system: abort txn-2@1
	// next checkpoint after restore: 2
}

// exampleQuiet silences the host while an example replays steps it has
// already shown.
var exampleQuiet bool

func sayln(args ...any) {
	if !exampleQuiet {
		fmt.Println(args...)
	}
}

func sayf(format string, args ...any) {
	if !exampleQuiet {
		fmt.Printf(format, args...)
	}
}

// quiet runs f without its printing, for steps an example has shown before.
func quiet(f func()) {
	defer func(saved bool) { exampleQuiet = saved }(exampleQuiet)
	exampleQuiet = true
	f()
}
