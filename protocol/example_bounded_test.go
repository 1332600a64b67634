package protocol_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// boundedHost runs src -> map -> sink on one goroutine, like the pipeline
// example's host, over bounded input: the source ends, and each task calls
// Finish once its input is exhausted (the source) or every input delivered
// end of data and the operator flushed. A finished task stays until the
// checkpoint that holds its final snapshot is notified, then exits.
type boundedHost struct {
	now   protocol.Time
	topo  protocol.Topology
	coord *protocol.Coordinator
	tasks map[protocol.TaskID]*protocol.Task

	channels map[protocol.ChannelID][]protocol.ChannelEvent
	toTasks  []protocol.Message
	toCoord  []protocol.Message

	// Durable storage.
	store   []protocol.CompletedCheckpoint
	blobs   map[string]bool
	uploads []boundedUpload

	sourceRead, sourceEnd int64 // the source finishes at sourceEnd (0: never)
	sink                  *protocol.TwoPhaseCommit
	txnSeq                int
	endOfData             map[protocol.ChannelID]bool // delivered to the receiver
	finished              map[protocol.TaskID]bool    // Finish called
	exited                map[protocol.TaskID]bool
	quiet                 bool
}

type boundedUpload struct {
	task   protocol.TaskID
	id     protocol.CheckpointID
	sealed bool
	snap   protocol.TaskSnapshot
}

func newBoundedHost() *boundedHost {
	cfg := protocol.DefaultConfig()
	cfg.Interval = time.Second
	h := &boundedHost{
		topo: protocol.Topology{
			Tasks:    []protocol.TaskID{"src", "map", "sink"},
			Channels: []protocol.ChannelID{{From: "src", To: "map"}, {From: "map", To: "sink"}},
		},
		tasks:     map[protocol.TaskID]*protocol.Task{},
		channels:  map[protocol.ChannelID][]protocol.ChannelEvent{},
		blobs:     map[string]bool{},
		endOfData: map[protocol.ChannelID]bool{},
		finished:  map[protocol.TaskID]bool{},
		exited:    map[protocol.TaskID]bool{},
	}
	var err error
	if h.coord, err = protocol.NewCoordinator(cfg, h.topo, protocol.Durable{}, h.now); err != nil {
		panic(err)
	}
	for _, id := range h.topo.Tasks {
		// TaskConfig sets WaitForFinalCheckpoint: a finished task waits
		// for the checkpoint that covers its last records.
		if h.tasks[id], err = protocol.NewTask(cfg.TaskConfig(id, h.topo.Inputs(id), h.topo.Outputs(id))); err != nil {
			panic(err)
		}
	}
	h.sink, _ = protocol.NewTwoPhaseCommit(h.nextTxn(), 16)
	return h
}

func (h *boundedHost) nextTxn() protocol.TransactionID {
	h.txnSeq++
	return protocol.TransactionID(fmt.Sprintf("txn-%d", h.txnSeq))
}

func (h *boundedHost) say(format string, args ...any) {
	if !h.quiet {
		fmt.Printf(format+"\n", args...)
	}
}

// coordinatorReady handles the coordinator's Readies, each in field order,
// confirming the writes after the whole Ready was handled.
func (h *boundedHost) coordinatorReady() {
	for h.coord.HasReady() {
		rd := h.coord.Ready()
		var confirm []func()
		for _, v := range rd.CounterWrites {
			h.say("  storage: counter = %v", v)
			confirm = append(confirm, func() { h.coord.CounterPersisted(h.now, v, nil) })
		}
		for _, cc := range rd.MetadataWrites {
			h.store = append(h.store, cc)
			h.say("  storage: completed checkpoint %v", cc.ID)
			confirm = append(confirm, func() { h.coord.MetadataPersisted(h.now, cc.ID, nil) })
		}
		for _, cc := range rd.Completed {
			h.say("  checkpoint complete: %v", cc.ID)
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
			panic("this example has no failures (see the crash-and-restore example)")
		}
		if rd.JobFinished {
			h.say("  job finished") // the coordinator may stop once every task exited
		}
		for _, c := range confirm {
			c()
		}
	}
}

// taskReady handles a task's Readies, each in field order.
func (h *boundedHost) taskReady(id protocol.TaskID) {
	t := h.tasks[id]
	for t.HasReady() {
		rd := t.Ready()
		for _, req := range rd.Snapshots {
			// Every snapshot of a finished task is Final.
			u := boundedUpload{task: id, id: req.Checkpoint, sealed: !req.AwaitChannelState,
				snap: protocol.TaskSnapshot{Handle: fmt.Sprintf("%s/%d", id, req.Checkpoint), Final: req.Final}}
			switch id {
			case "src":
				u.snap.SourceOffsets = []protocol.SourceOffset{{Split: "p0", Offset: h.sourceRead}}
			case "sink":
				if _, err := h.sink.PreCommit(req.Checkpoint, h.nextTxn()); err != nil {
					panic(err)
				}
			}
			h.say("  %s: snapshot %d %v", id, req.Checkpoint, u.snap.SourceOffsets)
			h.uploads = append(h.uploads, u)
		}
		for _, s := range rd.Sends {
			ch := h.topo.Outputs(id)[s.Output]
			h.say("  %s: %v -> %v", id, s.Event, ch)
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
			h.say("  %s: cancel upload %d (%v)", id, a.Checkpoint, a.Reason)
			h.uploads = slices.DeleteFunc(h.uploads, func(u boundedUpload) bool { return u.task == id && u.id == a.Checkpoint })
		}
		for _, r := range rd.Released {
			delete(h.blobs, r.Snapshot.Handle)
		}
		for _, m := range rd.Messages {
			h.say("  send: %v", m)
			h.toCoord = append(h.toCoord, m)
		}
		for _, n := range rd.Notifications {
			h.say("  %s: listener %v", id, n)
			if id == "sink" {
				n.Deliver(boundedSink{h})
			}
		}
		if rd.Exit {
			h.say("  %s: exit", id)
			h.exited[id] = true
		}
	}
}

// boundedSink is the sink's listener.
type boundedSink struct{ h *boundedHost }

func (l boundedSink) NotifyCheckpointComplete(id protocol.CheckpointID) {
	for _, a := range l.h.sink.NotifyCheckpointComplete(id) {
		l.h.say("  sink: external system: %v", a)
	}
}

func (l boundedSink) NotifyCheckpointAborted(id protocol.CheckpointID) {
	l.h.sink.NotifyCheckpointAborted(id)
}

// finish calls Finish on task once and handles its Ready.
func (h *boundedHost) finish(task protocol.TaskID) {
	if h.finished[task] {
		return
	}
	h.finished[task] = true
	if err := h.tasks[task].Finish(h.now); err != nil {
		panic(err)
	}
	h.taskReady(task)
}

// deliverAll moves everything in flight until the system is quiet. The
// source finishes once it has read everything; another task once every
// input delivered end of data (the example's operators hold nothing back,
// so they have flushed by then).
func (h *boundedHost) deliverAll() {
	for progress := true; progress; {
		progress = false
		if h.sourceEnd > 0 && h.sourceRead >= h.sourceEnd && !h.finished["src"] {
			h.finish("src")
			progress = true
		}
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
				if ev.Type == protocol.EventEndOfData || ev.Type == protocol.EventEndOfPartition {
					h.endOfData[ch] = true
					if h.drained(ch.To) {
						h.finish(ch.To)
					}
				}
			}
		}
		for len(h.uploads) > 0 && h.uploads[0].sealed {
			u := h.uploads[0]
			h.uploads = h.uploads[1:]
			h.blobs[u.snap.Handle] = true
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

// drained reports whether every input of task delivered end of data.
func (h *boundedHost) drained(task protocol.TaskID) bool {
	for _, ch := range h.topo.Inputs(task) {
		if !h.endOfData[ch] {
			return false
		}
	}
	return true
}

// Example_boundedInput runs a job whose source ends: it finishes, end of
// data flows down, every task finishes in turn and the coordinator
// triggers the final checkpoint at once. Its notification commits the
// sink's last transaction and lets every task exit, closing its outputs;
// the job is finished.
func Example_boundedInput() {
	h := newBoundedHost()
	h.sourceRead = 42
	h.now = h.coord.NextDeadline()
	h.quiet = true // checkpoint 1, as in the pipeline example
	h.coord.Tick(h.now)
	h.coordinatorReady()
	h.deliverAll()
	h.quiet = false

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
	//   send: ack src->coordinator cp=2 handle=src/2 size=0 offsets=[p0:60] taken=2 final
	//   send: ack map->coordinator cp=2 handle=map/2 size=0 taken=2 final
	//   send: ack sink->coordinator cp=2 handle=sink/2 size=0 taken=2 final
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
