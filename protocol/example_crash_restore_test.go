package protocol_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// restoreHost runs src -> map -> sink on one goroutine, like the pipeline
// example's host, and keeps what a restart needs: the uploaded state in a
// blob store under each snapshot's handle (the source's offsets, the sink's
// two-phase-commit state), so a restore finds it there and nowhere else;
// and the FailoverPlan, from which it restarts every task.
type restoreHost struct {
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
	blobs   map[string]restoreState
	uploads []restoreUpload // in flight, completed by deliverAll once sealed

	sourceRead int64
	sink       *protocol.TwoPhaseCommit
	txnSeq     int
	plan       *protocol.FailoverPlan

	// quiet silences the host while the example replays steps the
	// pipeline example shows; only restricts it to lines with one prefix.
	quiet bool
	only  string
}

// restoreState is what a snapshot uploads.
type restoreState struct {
	offsets  []protocol.SourceOffset
	twoPhase protocol.TwoPhaseCommitState
}

type restoreUpload struct {
	task   protocol.TaskID
	id     protocol.CheckpointID
	sealed bool
	snap   protocol.TaskSnapshot
	state  restoreState
}

func newRestoreHost() *restoreHost {
	cfg := protocol.DefaultConfig()
	cfg.Interval = time.Second
	h := &restoreHost{
		cfg: cfg,
		topo: protocol.Topology{
			Tasks:    []protocol.TaskID{"src", "map", "sink"},
			Channels: []protocol.ChannelID{{From: "src", To: "map"}, {From: "map", To: "sink"}},
		},
		tasks:    map[protocol.TaskID]*protocol.Task{},
		channels: map[protocol.ChannelID][]protocol.ChannelEvent{},
		blobs:    map[string]restoreState{},
	}
	var err error
	if h.coord, err = protocol.NewCoordinator(cfg, h.topo, protocol.Durable{}, h.now); err != nil {
		panic(err)
	}
	for _, id := range h.topo.Tasks {
		h.tasks[id] = h.newTask(id)
	}
	h.sink, _ = protocol.NewTwoPhaseCommit(h.nextTxn(), 16)
	return h
}

// newTask builds a task incarnation: a restarted task gets a new Task.
func (h *restoreHost) newTask(id protocol.TaskID) *protocol.Task {
	t, err := protocol.NewTask(h.cfg.TaskConfig(id, h.topo.Inputs(id), h.topo.Outputs(id)))
	if err != nil {
		panic(err)
	}
	return t
}

func (h *restoreHost) nextTxn() protocol.TransactionID {
	h.txnSeq++
	return protocol.TransactionID(fmt.Sprintf("txn-%d", h.txnSeq))
}

func (h *restoreHost) say(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	if h.quiet || h.only != "" && !strings.HasPrefix(strings.TrimSpace(line), h.only) {
		return
	}
	fmt.Println(line)
}

// coordinatorReady handles the coordinator's Readies, each in field order,
// confirming the writes after the whole Ready was handled.
func (h *restoreHost) coordinatorReady() {
	for h.coord.HasReady() {
		rd := h.coord.Ready()
		var confirm []func()
		for _, v := range rd.CounterWrites {
			h.counter = v
			confirm = append(confirm, func() { h.coord.CounterPersisted(h.now, v, nil) })
		}
		for _, cc := range rd.MetadataWrites {
			h.store = append(h.store, cc)
			h.say("  storage: completed checkpoint %v", cc.ID)
			confirm = append(confirm, func() { h.coord.MetadataPersisted(h.now, cc.ID, nil) })
		}
		for _, a := range rd.Aborted {
			h.say("  checkpoint aborted: %v", a)
		}
		for _, m := range rd.Messages {
			h.say("  send: %v", m)
			h.toTasks = append(h.toTasks, m)
		}
		for _, d := range rd.Discarded {
			h.store = slices.DeleteFunc(h.store, func(cc protocol.CompletedCheckpoint) bool { return cc.ID == d.ID })
			h.say("  storage: removed checkpoint %v", d.ID)
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
			h.say("  storage: deleted %v", r.Snapshot.Handle)
		}
		if rd.Failover != nil {
			h.say("  failover: %v", rd.Failover)
			h.plan = rd.Failover // the example restarts the tasks from it
		}
		for _, c := range confirm {
			c()
		}
	}
}

// taskReady handles a task's Readies, each in field order.
func (h *restoreHost) taskReady(id protocol.TaskID) {
	t := h.tasks[id]
	for t.HasReady() {
		rd := t.Ready()
		for _, req := range rd.Snapshots {
			u := restoreUpload{task: id, id: req.Checkpoint, sealed: !req.AwaitChannelState,
				snap: protocol.TaskSnapshot{Handle: fmt.Sprintf("%s/%d", id, req.Checkpoint)}}
			switch id {
			case "src":
				u.state.offsets = []protocol.SourceOffset{{Split: "p0", Offset: h.sourceRead}}
				u.snap.SourceOffsets = u.state.offsets
			case "sink":
				state, err := h.sink.PreCommit(req.Checkpoint, h.nextTxn())
				if err != nil {
					panic(err)
				}
				u.state.twoPhase = state
			}
			h.uploads = append(h.uploads, u)
		}
		for _, s := range rd.Sends {
			ch := h.topo.Outputs(id)[s.Output]
			h.channels[ch] = append(h.channels[ch], s.Event)
		}
		for _, cp := range rd.Sealed {
			for i := range h.uploads {
				if h.uploads[i].task == id && h.uploads[i].id == cp {
					h.uploads[i].sealed = true
				}
			}
		}
		for _, a := range rd.Aborted {
			h.uploads = slices.DeleteFunc(h.uploads, func(u restoreUpload) bool { return u.task == id && u.id == a.Checkpoint })
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
		}
		h.toCoord = append(h.toCoord, rd.Messages...)
		for _, n := range rd.Notifications {
			if id == "sink" {
				n.Deliver(restoreSink{h})
			}
		}
	}
}

// restoreSink is the sink's listener.
type restoreSink struct{ h *restoreHost }

func (l restoreSink) NotifyCheckpointComplete(id protocol.CheckpointID) {
	for _, a := range l.h.sink.NotifyCheckpointComplete(id) {
		l.h.say("  sink: external system: %v", a)
	}
}

func (l restoreSink) NotifyCheckpointAborted(id protocol.CheckpointID) {
	l.h.sink.NotifyCheckpointAborted(id)
}

// deliverAll moves everything in flight until the system is quiet.
func (h *restoreHost) deliverAll() {
	for progress := true; progress; {
		progress = false
		for _, ch := range h.topo.Channels {
			to, input := h.tasks[ch.To], slices.Index(h.topo.Inputs(ch.To), ch)
			for len(h.channels[ch]) > 0 && !to.Blocked(input) {
				ev := h.channels[ch][0]
				h.channels[ch] = h.channels[ch][1:]
				if err := to.Receive(h.now, input, ev); err != nil {
					panic(err)
				}
				h.taskReady(ch.To)
				progress = true
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
			h.coord.Step(h.now, m)
			h.coordinatorReady()
			progress = true
		}
	}
}

// restart carries out the failover plan: every task restarts as a new
// Task, restored from its snapshot in the plan, and finds its state in the
// blob store under the snapshot's handle.
func (h *restoreHost) restart() {
	restore := h.plan.Restore
	h.uploads = nil // the old tasks' uploads die with them
	for _, id := range h.topo.Tasks {
		snap, _ := restore.Snapshot(id)
		state := h.blobs[snap.Handle]
		h.tasks[id] = h.newTask(id)
		if err := h.tasks[id].Restore(h.now, restore.ID, snap); err != nil {
			panic(err)
		}
		switch id {
		case "src":
			h.sourceRead = state.offsets[0].Offset
			h.say("  src: rewind to offset %d", h.sourceRead)
		case "sink":
			// Recommit the restored checkpoint's transactions (the
			// external system ignores a second commit) and abort the one
			// that was open.
			sink, actions, err := protocol.RestoreTwoPhaseCommit(state.twoPhase, restore.ID, h.nextTxn(), 16)
			if err != nil {
				panic(err)
			}
			h.sink = sink
			for _, a := range actions {
				h.say("  sink: external system: %v", a)
			}
		}
	}
	h.coord.JobRestarted(h.now)
	h.coordinatorReady()
}

// Example_crashAndRestore continues after one completed checkpoint: the map
// task crashes, the coordinator crashes too, a new coordinator incarnation
// is built from durable storage, and the job fails over to the latest
// completed checkpoint. Each task finds its state in the blob store under
// the handle the plan names; the sink recommits the transactions of the
// restored checkpoint (idempotently) and aborts the one it had open. The
// next checkpoint replaces the restored one, whose state is then deleted.
func Example_crashAndRestore() {
	h := newRestoreHost()
	h.sourceRead = 42
	h.now = h.coord.NextDeadline()
	h.quiet = true // checkpoint 1, as in the pipeline example
	h.coord.Tick(h.now)
	h.coordinatorReady()
	h.deliverAll()
	h.quiet = false

	// More records are read after the checkpoint, then map crashes and,
	// before anything else happens, the coordinator's process dies too.
	h.sourceRead = 50
	fmt.Println("coordinator crash; recover from storage: counter", h.counter, "store", len(h.store))
	durable := protocol.Durable{HighestID: h.counter, Completed: slices.Clone(h.store)}
	var err error
	if h.coord, err = protocol.NewCoordinator(h.cfg, h.topo, durable, h.now); err != nil {
		panic(err)
	}
	h.coordinatorReady() // re-announces checkpoint 1; tasks drop the duplicate
	h.toTasks = nil      // (the old tasks are about to be replaced anyway)

	fmt.Println("map crashed: fail over")
	h.coord.RequestFailover(h.now, protocol.ReasonTaskFailure)
	h.coordinatorReady()
	h.restart()

	h.now = h.coord.NextDeadline()
	fmt.Println("tick: next checkpoint")
	h.only = "storage" // show only how checkpoint 1 leaves the store
	h.coord.Tick(h.now)
	h.coordinatorReady()
	h.deliverAll()
	h.only = ""
	fmt.Println("restorable:", h.coord.LatestRestorable().ID, "blobs:", len(h.blobs))

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
	// restorable: 2 blobs: 3
}
