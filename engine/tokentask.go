package engine

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
	cl "github.com/ckptsim/ckptsim/protocol/chandylamport"
	"github.com/ckptsim/ckptsim/trace"
)

// tokenCommand is the coordinator's order to a token process: initiate or join a snapshot,
// or finish.
type tokenCommand struct {
	attempt int
	kind    string // "initiate", "join", "finish"
	cp      uint64
}

// tokenAnswer is a token process's answer for a snapshot: its report (state summary and
// recorded channels), or an abort.
type tokenAnswer struct {
	attempt int
	cp      uint64
	report  *cl.Report[tokenSummary, Record]
	abort   *cl.Abort
}

// tokenSummary is what the coordinator learns of a process's recorded state.
type tokenSummary struct {
	Handle  string // where the process's state is stored
	Balance int64
	Done    bool // the process had made all its transfers
}

// tokenPart is the token-process side of a task: its balance, its transfer script, and the
// Chandy-Lamport process it steps.
type tokenPart struct {
	t          *task
	spec       Tokens
	neighbours []int // task indices, in Links order
	outputOf   map[int]int
	balance    int64
	transfers  int64
	proc       *cl.Process[*snapshotData, Record]
	firstSeq   uint64
	tickArmed  bool
}

func newTokenPart(t *task, spec Tokens, firstSeq uint64) *tokenPart {
	p := &tokenPart{t: t, spec: spec, neighbours: spec.neighbours(t.plan.index), outputOf: make(map[int]int),
		balance: spec.Initial, firstSeq: firstSeq}
	for _, j := range p.neighbours {
		p.outputOf[j] = t.plan.outputByTo[TaskID(t.plan.op.Name, j)]
	}
	return p
}

// snapshotID and checkpointID convert between Chandy-Lamport ids and the numeric ids of the
// trace: cp = seq*n + origin index, unique and increasing per origin.
func snapshotID(op string, n int, cp uint64) cl.SnapshotID {
	return cl.SnapshotID{Origin: cl.ProcessID(TaskID(op, int(cp%uint64(n)))), Seq: cp / uint64(n)}
}

func (p *tokenPart) checkpointID(id cl.SnapshotID) uint64 {
	n := p.t.plan.op.Parallelism
	origin := taskIndexOf(string(id.Origin))
	return id.Seq*uint64(n) + uint64(origin)
}

// taskIndexOf parses "<op>-<index>".
func taskIndexOf(id string) int {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	n := 0
	for _, c := range id[i:] {
		n = n*10 + int(c-'0')
	}
	return n
}

// begin builds the Chandy-Lamport process once the state is restored.
func (p *tokenPart) begin() {
	cfg := cl.Config{ID: cl.ProcessID(p.t.plan.id), FirstSeq: p.firstSeq, MaxConcurrent: p.spec.maxConcurrent(),
		MaxRecordedPerChannel: p.t.rt.cfg.Checkpoint.MaxBufferedRecords}
	for _, c := range p.t.plan.inputs {
		cfg.Inputs = append(cfg.Inputs, cl.ProcessID(c.From))
	}
	for _, c := range p.t.plan.outputs {
		cfg.Outputs = append(cfg.Outputs, cl.ProcessID(c.To))
	}
	proc, err := cl.NewProcess[*snapshotData, Record](cfg)
	if err != nil {
		panic(fmt.Sprintf("engine: %s: %v", p.t.plan.id, err))
	}
	p.proc = proc
	p.armTick()
}

func (p *tokenPart) done() bool { return len(p.neighbours) == 0 || p.transfers >= p.spec.Transfers }

func (p *tokenPart) armTick() {
	if p.tickArmed || p.done() {
		return
	}
	p.tickArmed = true
	p.t.proc.After(p.spec.Interval, func() {
		p.tickArmed = false
		p.transfer()
	})
}

// transfer makes the next transfer of the script, or waits for room.
func (p *tokenPart) transfer() {
	t := p.t
	if t.phase != phaseRunning || p.done() {
		return
	}
	if !t.hasRoom() {
		t.schedulePump(p.spec.Interval) // try again; credits also pump
		p.armTick()
		return
	}
	to, amount := p.spec.transfer(t.plan.index, p.transfers, p.neighbours)
	t.emit(p.outputOf[to], Record{RID: tokenRID(t.plan.id, p.transfers), Value: amount})
	p.balance -= amount
	p.transfers++
	p.armTick()
}

// consume handles the next input item of a token process: a marker (carried as a barrier
// event) or a buffer of transfers.
func (p *tokenPart) consume() bool {
	t := p.t
	n := len(t.inputs)
	for k := 0; k < n; k++ {
		i := (t.nextInput + k) % n
		in := t.inputs[i]
		if in.empty() {
			continue
		}
		t.nextInput = (i + 1) % n
		item, credited := in.pop()
		if item.records == nil {
			if item.event.Type != protocol.EventBarrier {
				panic(fmt.Sprintf("engine: %s: unexpected event %s on a token channel", t.plan.id, item.event))
			}
			t.trace(trace.Event{Kind: trace.KindBarrierRecv, Task: t.plan.id, From: in.from, CP: uint64(item.event.Checkpoint)})
			m := cl.Marker{Snapshot: snapshotID(t.plan.op.Name, t.plan.op.Parallelism, uint64(item.event.Checkpoint)),
				Channel: cl.Channel{From: cl.ProcessID(in.from), To: cl.ProcessID(t.plan.id)}}
			if err := p.proc.HandleMarker(m); err != nil {
				t.fail("chandy-lamport: " + err.Error())
				return false
			}
			p.drain()
			return true
		}
		if credited {
			t.proc.Send(in.from, &creditMsg{credits: 1})
		}
		in.recv += int64(len(item.records))
		for _, r := range item.records {
			if err := p.proc.Receive(cl.ProcessID(in.from), r); err != nil {
				panic(fmt.Sprintf("engine: %s: %v", t.plan.id, err))
			}
			p.balance += r.Value
		}
		t.occupy(len(item.records))
		return true
	}
	return false
}

// command carries out an order of the coordinator.
func (p *tokenPart) command(c *tokenCommand) {
	t := p.t
	switch c.kind {
	case "initiate":
		id, err := p.proc.Initiate()
		if err == nil && p.checkpointID(id) != c.cp {
			panic(fmt.Sprintf("engine: %s initiated %s (checkpoint %d), the coordinator expected %d", t.plan.id, id, p.checkpointID(id), c.cp))
		}
		if err != nil {
			p.answer(&tokenAnswer{cp: c.cp, abort: &cl.Abort{Snapshot: snapshotID(t.plan.op.Name, t.plan.op.Parallelism, c.cp), Process: cl.ProcessID(t.plan.id)}})
			return
		}
	case "join":
		if err := p.proc.Join(snapshotID(t.plan.op.Name, t.plan.op.Parallelism, c.cp)); err != nil {
			t.fail("chandy-lamport: " + err.Error())
			return
		}
	case "finish":
		t.flushAll()
		t.exit()
		return
	}
	p.drain()
}

// drain carries out the Chandy-Lamport outputs in order: record the state at once, put
// markers on their channels before anything else is sent, and answer the coordinator once
// the state is stored.
func (p *tokenPart) drain() {
	t := p.t
	for guard := 0; ; guard++ {
		if guard > 1000 {
			panic(fmt.Sprintf("engine: %s: chandy-lamport keeps producing outputs", t.plan.id))
		}
		outs := p.proc.Ready()
		if len(outs) == 0 || !t.alive() {
			return
		}
		for _, o := range outs {
			switch o := o.(type) {
			case cl.RecordState:
				cp := p.checkpointID(o.Snapshot)
				d := t.capture(protocol.CheckpointID(cp))
				if err := p.proc.StateRecorded(o.Snapshot, d); err != nil {
					panic(fmt.Sprintf("engine: %s: %v", t.plan.id, err))
				}
			case cl.Marker:
				cp := p.checkpointID(o.Snapshot)
				out := t.plan.outputByTo[string(o.Channel.To)]
				t.trace(trace.Event{Kind: trace.KindBarrierSend, Task: t.plan.id, To: string(o.Channel.To), CP: cp})
				t.sendEvent(out, protocol.Barrier(protocol.CheckpointID(cp), protocol.KindCheckpoint, protocol.ModeUnaligned, t.now()))
			case cl.Report[*snapshotData, Record]:
				p.report(o)
			case cl.Abort:
				ab := o
				t.trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: t.plan.id, CP: p.checkpointID(o.Snapshot), Reason: "channel-state-overflow"})
				p.answer(&tokenAnswer{cp: p.checkpointID(o.Snapshot), abort: &ab})
			default:
				panic(fmt.Sprintf("engine: %s: unknown chandy-lamport output %T", t.plan.id, o))
			}
		}
	}
}

// report stores the process's part of a snapshot, traces it and answers the coordinator.
func (p *tokenPart) report(r cl.Report[*snapshotData, Record]) {
	t := p.t
	d := r.State
	cp := d.cp
	for _, ch := range r.Channels {
		i := t.plan.inputByFrom[string(ch.Channel.From)]
		d.channel[i] = slices.Clone(ch.Messages)
	}
	blob := d.encode()
	t.trace(trace.Event{Kind: trace.KindSnapshotTaken, Task: t.plan.id, CP: cp, Attrs: t.snapshotAttrs(d, Digest(blob))})
	key := stateKey(t.plan.id, protocol.CheckpointID(cp))
	summary := tokenSummary{Handle: key, Balance: d.tokens.balance, Done: len(p.neighbours) == 0 || d.tokens.transfers >= p.spec.Transfers}
	writeDurably(t.proc, t.rt.cfg.VerifyWrites, key, blob, func(err error) {
		if err != nil {
			t.trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: t.plan.id, CP: cp, Reason: protocol.ReasonUploadFailed.String()})
			p.answer(&tokenAnswer{cp: cp, abort: &cl.Abort{Snapshot: r.Snapshot, Process: r.Process}})
			return
		}
		t.trace(trace.Event{Kind: trace.KindSnapshotAck, Task: t.plan.id, CP: cp})
		p.answer(&tokenAnswer{cp: cp, report: &cl.Report[tokenSummary, Record]{Snapshot: r.Snapshot, Process: r.Process, State: summary, Channels: r.Channels}})
	})
}

func (p *tokenPart) answer(a *tokenAnswer) {
	a.attempt = p.t.attempt
	p.t.proc.Send(coordinatorName, a)
}
