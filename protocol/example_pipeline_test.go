package protocol_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// pipelineHost is the smallest host that honours every obligation of the
// package documentation, for the pipeline src -> map -> sink, on one
// goroutine. It owns the "network" (a FIFO per data channel, a queue per
// direction of control messages), the "durable storage" (the id counter, the
// completed-checkpoint store and a blob store of uploaded task state), the
// source's offset and the sink's external system. It handles every field of
// every Ready, in order, and takes the next Ready only when it has finished
// the one in hand.
type pipelineHost struct {
	now   protocol.Time
	topo  protocol.Topology
	coord *protocol.Coordinator
	tasks map[protocol.TaskID]*protocol.Task

	channels map[protocol.ChannelID][]protocol.ChannelEvent
	toTasks  []protocol.Message
	toCoord  []protocol.Message

	// Durable storage.
	counter protocol.CheckpointID
	store   []protocol.CompletedCheckpoint
	blobs   map[string]bool
	uploads []pipelineUpload // in flight, completed by deliverAll once sealed

	sourceRead int64 // the source's offset: records read so far
	sink       *protocol.TwoPhaseCommit
	txnSeq     int
}

type pipelineUpload struct {
	task   protocol.TaskID
	id     protocol.CheckpointID
	sealed bool
	snap   protocol.TaskSnapshot
}

func newPipelineHost() *pipelineHost {
	cfg := protocol.DefaultConfig()
	cfg.Interval = time.Second
	h := &pipelineHost{
		topo: protocol.Topology{
			Tasks: []protocol.TaskID{"src", "map", "sink"},
			Channels: []protocol.ChannelID{
				{From: "src", To: "map"},
				{From: "map", To: "sink"},
			},
		},
		tasks:    map[protocol.TaskID]*protocol.Task{},
		channels: map[protocol.ChannelID][]protocol.ChannelEvent{},
		blobs:    map[string]bool{},
	}
	var err error
	if h.coord, err = protocol.NewCoordinator(cfg, h.topo, protocol.Durable{}, h.now); err != nil {
		panic(err)
	}
	for _, id := range h.topo.Tasks {
		if h.tasks[id], err = protocol.NewTask(cfg.TaskConfig(id, h.topo.Inputs(id), h.topo.Outputs(id))); err != nil {
			panic(err)
		}
	}
	h.sink, _ = protocol.NewTwoPhaseCommit(h.nextTxn(), 16)
	return h
}

func (h *pipelineHost) nextTxn() protocol.TransactionID {
	h.txnSeq++
	return protocol.TransactionID(fmt.Sprintf("txn-%d", h.txnSeq))
}

// coordinatorReady handles the coordinator's Readies, each in field order.
// The writes are "durable" at once, but their confirmations are passed back
// only after the whole Ready was handled: confirming in the middle and
// taking the next Ready there would act on later outputs before earlier
// ones.
func (h *pipelineHost) coordinatorReady() {
	for h.coord.HasReady() {
		rd := h.coord.Ready()
		var confirm []func()
		for _, v := range rd.CounterWrites {
			h.counter = v
			fmt.Println("  storage: counter =", v)
			confirm = append(confirm, func() { h.coord.CounterPersisted(h.now, v, nil) })
		}
		for _, cc := range rd.MetadataWrites {
			h.store = append(h.store, cc)
			fmt.Println("  storage: completed checkpoint", cc.ID)
			confirm = append(confirm, func() { h.coord.MetadataPersisted(h.now, cc.ID, nil) })
		}
		// What happened is told before the messages that announce it go
		// out: a task may act on a notification at once, and its trace
		// must not come before the completion's.
		for _, cc := range rd.Completed {
			fmt.Println("  checkpoint complete:", cc.ID)
		}
		for _, a := range rd.Aborted {
			fmt.Println("  checkpoint aborted:", a)
		}
		for _, m := range rd.Messages {
			fmt.Println("  send:", m)
			h.toTasks = append(h.toTasks, m)
		}
		// The store first, then the state: the store never names state
		// that is gone. Discarded is about the store only; the state
		// nothing holds any more is in Released.
		for _, d := range rd.Discarded {
			h.store = slices.DeleteFunc(h.store, func(cc protocol.CompletedCheckpoint) bool { return cc.ID == d.ID })
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
		}
		if rd.Failover != nil {
			// Restart every task from the plan, then JobRestarted: see
			// the crash-and-restore example.
			panic("this example has no failures")
		}
		if rd.JobFinished {
			fmt.Println("  job finished")
		}
		for _, c := range confirm {
			c()
		}
	}
}

// taskReady handles a task's Readies, each in field order.
func (h *pipelineHost) taskReady(id protocol.TaskID) {
	t := h.tasks[id]
	for t.HasReady() {
		rd := t.Ready()
		for _, req := range rd.Snapshots {
			// The synchronous part of the snapshot, before any further
			// record: copy the state, record the offsets, pre-commit.
			u := pipelineUpload{task: id, id: req.Checkpoint, sealed: !req.AwaitChannelState,
				snap: protocol.TaskSnapshot{Handle: fmt.Sprintf("%s/%d", id, req.Checkpoint)}}
			switch id {
			case "src":
				u.snap.SourceOffsets = []protocol.SourceOffset{{Split: "p0", Offset: h.sourceRead}}
			case "sink":
				if _, err := h.sink.PreCommit(req.Checkpoint, h.nextTxn()); err != nil {
					panic(err) // a real sink fails the snapshot instead
				}
			}
			fmt.Printf("  %s: snapshot %d %v\n", id, req.Checkpoint, u.snap.SourceOffsets)
			h.uploads = append(h.uploads, u)
		}
		for _, s := range rd.Sends {
			ch := h.topo.Outputs(id)[s.Output]
			fmt.Printf("  %s: %v -> %v\n", id, s.Event, ch)
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
			h.uploads = slices.DeleteFunc(h.uploads, func(u pipelineUpload) bool { return u.task == id && u.id == a.Checkpoint })
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
		}
		for _, m := range rd.Messages {
			fmt.Println("  send:", m)
			h.toCoord = append(h.toCoord, m)
		}
		for _, n := range rd.Notifications {
			fmt.Printf("  %s: listener %v\n", id, n)
			if id == "sink" {
				n.Deliver(pipelineSink{h})
			}
		}
		if rd.Exit {
			fmt.Printf("  %s: exit\n", id)
		}
	}
}

// pipelineSink is the sink's listener: it forwards notifications to the
// two-phase-commit helper and performs its actions on the external system.
type pipelineSink struct{ h *pipelineHost }

func (l pipelineSink) NotifyCheckpointComplete(id protocol.CheckpointID) {
	for _, a := range l.h.sink.NotifyCheckpointComplete(id) {
		fmt.Printf("  sink: external system: %v\n", a)
	}
}

func (l pipelineSink) NotifyCheckpointAborted(id protocol.CheckpointID) {
	l.h.sink.NotifyCheckpointAborted(id) // no action: the next completion commits it
}

// deliverAll moves everything in flight until the system is quiet: data
// channel events (held back while their input is blocked), finished uploads,
// control messages.
func (h *pipelineHost) deliverAll() {
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
			h.blobs[u.snap.Handle] = true // the upload is durable
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

// Example_pipeline steps the pipeline src -> map -> sink through one
// aligned checkpoint: the coordinator reserves the id durably, triggers the
// source, the barrier flows down the pipeline, each task snapshots and
// acks, the coordinator makes the checkpoint durable and only then notifies
// the tasks, and the sink commits its transaction.
func Example_pipeline() {
	h := newPipelineHost()
	h.sourceRead = 42 // the source read 42 records before the checkpoint

	h.now = h.coord.NextDeadline()
	fmt.Println("tick: first periodic trigger")
	h.coord.Tick(h.now)
	h.coordinatorReady()
	h.deliverAll()
	fmt.Println("restorable:", h.coord.LatestRestorable().ID)

	// Output:
	// tick: first periodic trigger
	//   storage: counter = 1
	//   send: trigger coordinator->src cp=1 checkpoint aligned t=483126149
	//   src: snapshot 1 [p0:42]
	//   src: barrier cp=1 checkpoint aligned -> src->map
	//   map: snapshot 1 []
	//   map: barrier cp=1 checkpoint aligned -> map->sink
	//   sink: snapshot 1 []
	//   send: ack src->coordinator cp=1 handle=src/1 size=0 offsets=[p0:42] taken=1
	//   send: ack map->coordinator cp=1 handle=map/1 size=0 taken=1
	//   send: ack sink->coordinator cp=1 handle=sink/1 size=0 taken=1
	//   storage: completed checkpoint 1
	//   checkpoint complete: 1
	//   send: notify-complete coordinator->src cp=1
	//   send: notify-complete coordinator->map cp=1
	//   send: notify-complete coordinator->sink cp=1
	//   src: listener notify-complete cp=1
	//   map: listener notify-complete cp=1
	//   sink: listener notify-complete cp=1
	//   sink: external system: commit txn-1@1
	// restorable: 1
}
