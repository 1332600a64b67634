package protocol_test

import (
	"fmt"
	"sync"
	"time"

	"github.com/ckptsim/ckptsim/protocol"
)

// liveHost runs src -> map -> sink live: the coordinator and each task on a
// goroutine of its own, Go channels for the data channels (records and
// channel events in one FIFO) and for control messages, the wall clock for
// time. Each goroutine owns its protocol value and is the only one to call
// it, so calls to one value are serialised as the protocol requires.
//
// The trace is the shared log every goroutine appends to under one lock,
// and an event's place in it is where it was appended: so a goroutine
// appends an event before it sends what the event causes (the package
// documentation, "Tracing"). The example prints the events whose order
// causality fixes (a checkpoint's trigger, its snapshots down the pipeline,
// its completion, the commit it causes); the acks and the other tasks'
// notifications race with them, and a real host would record those too.
type liveHost struct {
	start time.Time
	cfg   protocol.Config
	topo  protocol.Topology

	input   chan int                                  // the source's bounded input, closed at its end
	data    map[protocol.ChannelID]chan liveItem      // data channels
	control map[protocol.TaskID]chan protocol.Message // coordinator -> task
	toCoord chan protocol.Message                     // task -> coordinator
	trigger chan struct{}                             // ask for a checkpoint
	commits chan protocol.CheckpointID                // the sink committed
	done    chan struct{}                             // closed at JobFinished
	stop    chan struct{}                             // stops the coordinator
	blobs   struct {                                  // durable storage of uploads
		sync.Mutex
		m map[string]bool
	}
	traceMu sync.Mutex
}

// liveItem is what a data channel carries: a record or a channel event.
type liveItem struct {
	record int
	event  *protocol.ChannelEvent
}

func (h *liveHost) now() protocol.Time { return protocol.Time(time.Since(h.start)) }

// after fires at the protocol deadline d (never for NoDeadline).
func (h *liveHost) after(d protocol.Time) <-chan time.Time {
	if d == protocol.NoDeadline {
		return nil
	}
	return time.After(time.Until(h.start.Add(time.Duration(d))))
}

func (h *liveHost) trace(format string, args ...any) {
	h.traceMu.Lock()
	defer h.traceMu.Unlock()
	fmt.Printf(format+"\n", args...)
}

// runCoordinator steps the coordinator until stop: deadlines, acks, and
// the example's requests for a checkpoint.
func (h *liveHost) runCoordinator() {
	c, err := protocol.NewCoordinator(h.cfg, h.topo, protocol.Durable{}, h.now())
	if err != nil {
		panic(err)
	}
	for {
		h.coordinatorReady(c)
		select {
		case <-h.after(c.NextDeadline()):
			c.Tick(h.now())
		case m := <-h.toCoord:
			c.Step(h.now(), m) // late and duplicate acks are expected
		case <-h.trigger:
			if err := c.TriggerCheckpoint(h.now()); err != nil {
				panic(err)
			}
		case <-h.stop:
			return
		}
	}
}

// coordinatorReady handles the coordinator's Readies in field order; the
// example's storage is memory, so a write is durable at once and confirmed
// once the Ready is handled.
func (h *liveHost) coordinatorReady(c *protocol.Coordinator) {
	for c.HasReady() {
		rd := c.Ready()
		var confirm []func()
		for _, v := range rd.CounterWrites {
			confirm = append(confirm, func() { c.CounterPersisted(h.now(), v, nil) })
		}
		for _, cc := range rd.MetadataWrites {
			confirm = append(confirm, func() { c.MetadataPersisted(h.now(), cc.ID, nil) })
		}
		for _, tr := range rd.Triggered {
			h.trace("checkpoint.trigger %v", tr.ID)
		}
		for _, cc := range rd.Completed {
			h.trace("checkpoint.complete %v", cc.ID)
		}
		for _, a := range rd.Aborted {
			h.trace("checkpoint.abort %v", a)
		}
		for _, m := range rd.Messages { // after the trace of what they announce
			h.control[m.Task] <- m
		}
		h.blobs.Lock()
		for _, r := range rd.Released { // Discarded: the example keeps no store
			delete(h.blobs.m, r.Snapshot.Handle)
		}
		h.blobs.Unlock()
		if rd.Failover != nil {
			panic("this example has no failures (see the crash-and-restore example)")
		}
		if rd.JobFinished {
			close(h.done)
		}
		for _, f := range confirm {
			f()
		}
	}
}

// liveTask is one task's goroutine state: its protocol value, its
// channels and its operator.
type liveTask struct {
	h       *liveHost
	id      protocol.TaskID
	t       *protocol.Task
	source  chan int      // the source's input (nil for other tasks)
	in      chan liveItem // nil for the source
	out     chan liveItem // nil for the sink
	offset  int           // the source's offset
	sink    *protocol.TwoPhaseCommit
	txnSeq  int
	records map[protocol.TransactionID]int // the sink's external system: records per open transaction
	total   int                            // committed records
	exited  bool
}

// run steps the task until it exits. An input blocked by an alignment is
// not read (its channel is nil in the select), so what follows its barrier
// waits in the channel.
func (lt *liveTask) run(wg *sync.WaitGroup) {
	defer wg.Done()
	h := lt.h
	for !lt.exited {
		in := lt.in
		if in != nil && lt.t.Blocked(0) {
			in = nil
		}
		select {
		case <-h.after(lt.t.NextDeadline()):
			lt.t.Tick(h.now())
		case m := <-h.control[lt.id]:
			if err := lt.t.Step(h.now(), m); err != nil {
				panic(err)
			}
		case r, ok := <-lt.source:
			if !ok {
				lt.source = nil // exhausted: the source finishes
				if err := lt.t.Finish(h.now()); err != nil {
					panic(err)
				}
				break
			}
			lt.offset++
			lt.out <- liveItem{record: r}
		case item := <-in:
			lt.receive(item)
		}
		lt.handleReady()
	}
}

// receive processes a record (Admit first) or passes an event to the task.
func (lt *liveTask) receive(item liveItem) {
	if item.event != nil {
		if err := lt.t.Receive(lt.h.now(), 0, *item.event); err != nil {
			panic(err)
		}
		if item.event.Type == protocol.EventEndOfData {
			lt.handleReady()
			if err := lt.t.Finish(lt.h.now()); err != nil { // one input: drained, and nothing to flush
				panic(err)
			}
		}
		return
	}
	if a := lt.t.Admit(0); a.Action == protocol.AdmitRecord {
		panic("aligned mode records no channel state")
	}
	if lt.out != nil {
		lt.out <- liveItem{record: 2 * item.record} // map doubles
		return
	}
	lt.records[lt.sink.Current()]++
}

// handleReady handles the task's Readies in field order. Uploads are
// synchronous here (memory), so each is completed after its Ready.
func (lt *liveTask) handleReady() {
	h := lt.h
	for lt.t.HasReady() {
		rd := lt.t.Ready()
		var uploaded []protocol.CheckpointID
		for _, req := range rd.Snapshots {
			if lt.id == "src" {
				h.trace("snapshot.taken %s %v offset=%d", lt.id, req.Checkpoint, lt.offset)
			} else {
				h.trace("snapshot.taken %s %v", lt.id, req.Checkpoint)
			}
			if lt.sink != nil {
				lt.txnSeq++
				if _, err := lt.sink.PreCommit(req.Checkpoint, protocol.TransactionID(fmt.Sprintf("txn-%d", lt.txnSeq))); err != nil {
					panic(err)
				}
			}
			uploaded = append(uploaded, req.Checkpoint)
		}
		for _, s := range rd.Sends { // one output: s.Output is 0
			lt.out <- liveItem{event: &s.Event}
		}
		// Sealed: aligned snapshots record no channel state. Aborted:
		// nothing is in flight for long enough to cancel.
		h.blobs.Lock()
		for _, r := range rd.Released {
			delete(h.blobs.m, r.Snapshot.Handle)
		}
		h.blobs.Unlock()
		for _, m := range rd.Messages {
			h.toCoord <- m
		}
		for _, n := range rd.Notifications {
			if lt.sink != nil {
				n.Deliver(lt)
			}
		}
		lt.exited = lt.exited || rd.Exit
		for _, id := range uploaded {
			handle := fmt.Sprintf("%s/%d", lt.id, id)
			h.blobs.Lock()
			h.blobs.m[handle] = true
			h.blobs.Unlock()
			if err := lt.t.SnapshotCompleted(h.now(), id, protocol.TaskSnapshot{Handle: handle}); err != nil {
				panic(err)
			}
		}
	}
}

// NotifyCheckpointComplete makes the sink's transactions up to id visible.
func (lt *liveTask) NotifyCheckpointComplete(id protocol.CheckpointID) {
	for _, a := range lt.sink.NotifyCheckpointComplete(id) {
		lt.h.trace("sink.commit %v records=%d", a, lt.records[a.Transaction])
		lt.total += lt.records[a.Transaction]
		delete(lt.records, a.Transaction)
	}
	lt.h.commits <- id
}

func (lt *liveTask) NotifyCheckpointAborted(id protocol.CheckpointID) {
	lt.sink.NotifyCheckpointAborted(id) // the next completion commits its work
}

// Example_live runs the pipeline on goroutines: 100 records in two
// halves, a checkpoint after each (the example waits for its commit, so
// the printed order is fixed), and then the end of the input, after which
// the coordinator takes the final checkpoint on its own and the job
// finishes.
func Example_live() {
	cfg := protocol.DefaultConfig()
	cfg.Interval = 0 // no periodic checkpoints: the example asks for each
	h := &liveHost{
		start: time.Now(),
		cfg:   cfg,
		topo: protocol.Topology{
			Tasks:    []protocol.TaskID{"src", "map", "sink"},
			Channels: []protocol.ChannelID{{From: "src", To: "map"}, {From: "map", To: "sink"}},
		},
		input:   make(chan int),
		data:    map[protocol.ChannelID]chan liveItem{},
		control: map[protocol.TaskID]chan protocol.Message{},
		toCoord: make(chan protocol.Message, 64),
		trigger: make(chan struct{}),
		commits: make(chan protocol.CheckpointID, 8),
		done:    make(chan struct{}),
		stop:    make(chan struct{}),
	}
	h.blobs.m = map[string]bool{}
	for _, ch := range h.topo.Channels {
		h.data[ch] = make(chan liveItem, 16)
	}
	var tasks []*liveTask
	for _, id := range h.topo.Tasks {
		h.control[id] = make(chan protocol.Message, 64)
		t, err := protocol.NewTask(cfg.TaskConfig(id, h.topo.Inputs(id), h.topo.Outputs(id)))
		if err != nil {
			panic(err)
		}
		lt := &liveTask{h: h, id: id, t: t}
		if id == "src" {
			lt.source = h.input
		}
		if in := h.topo.Inputs(id); len(in) > 0 {
			lt.in = h.data[in[0]]
		}
		if out := h.topo.Outputs(id); len(out) > 0 {
			lt.out = h.data[out[0]]
		}
		if id == "sink" {
			lt.sink, _ = protocol.NewTwoPhaseCommit("txn-0", 16)
			lt.records = map[protocol.TransactionID]int{}
		}
		tasks = append(tasks, lt)
	}

	var coordinator, running sync.WaitGroup
	coordinator.Go(h.runCoordinator)
	for _, lt := range tasks {
		running.Add(1)
		go lt.run(&running)
	}
	for half := range 2 {
		for r := 1; r <= 50; r++ {
			h.input <- 50*half + r // received by the source when the send returns
		}
		h.trigger <- struct{}{}
		for id := range h.commits {
			if id == protocol.CheckpointID(half+1) {
				break
			}
		}
	}
	close(h.input)
	running.Wait()
	<-h.done
	close(h.stop)
	coordinator.Wait()
	fmt.Println("job finished:", tasks[2].total, "records committed")

	// Output:
	// checkpoint.trigger 1
	// snapshot.taken src 1 offset=50
	// snapshot.taken map 1
	// snapshot.taken sink 1
	// checkpoint.complete 1
	// sink.commit commit txn-0@1 records=50
	// checkpoint.trigger 2
	// snapshot.taken src 2 offset=100
	// snapshot.taken map 2
	// snapshot.taken sink 2
	// checkpoint.complete 2
	// sink.commit commit txn-1@2 records=50
	// checkpoint.trigger 3
	// snapshot.taken src 3 offset=100
	// snapshot.taken map 3
	// snapshot.taken sink 3
	// checkpoint.complete 3
	// sink.commit commit txn-2@3 records=0
	// job finished: 100 records committed
}
