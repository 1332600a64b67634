package tokens

import (
	"errors"
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/engine"
	"github.com/ckptsim/ckptsim/protocol"
	cl "github.com/ckptsim/ckptsim/protocol/chandylamport"
	"github.com/ckptsim/ckptsim/trace"
)

// tokenCommand is the coordinator's order to a token process: record a snapshot, or finish.
type tokenCommand struct {
	attempt int
	kind    string // "record", "finish"
	cp      uint64
}

// tokenAnswer is a token process's answer for a snapshot: its report (state summary and
// recorded channels), or an abort.
type tokenAnswer struct {
	attempt int
	cp      uint64
	report  *cl.Report[tokenSummary, engine.CompactRecord]
	abort   *cl.Abort
}

// MessageClass implements engine.MessageClasser.
func (*tokenCommand) MessageClass() engine.MessageClass { return engine.ClassTokens }

// MessageClass implements engine.MessageClasser.
func (*tokenAnswer) MessageClass() engine.MessageClass { return engine.ClassTokens }

// tokenSummary is what the coordinator learns of a process's recorded state.
type tokenSummary struct {
	Handle  string // where the process's state is stored
	Balance int64
	Done    bool // the process had made all its transfers
}

// process is the logic of one token process, a task of the job (engine.KindTask): its
// balance, its transfer plan, and the Chandy-Lamport process it steps.
type process struct {
	h         *engine.TaskHost
	plan      tokenPlan
	outputOf  map[int]int // task index of a neighbour -> output channel
	balance   int64
	transfers int64 // transfers made: the index of the next one in the plan
	proc      *cl.Process[*engine.Snapshot, engine.CompactRecord]
	tickArmed bool
	// waiting: the next transfer is due but the process holds too few tokens for it; the
	// next tokens to arrive try it again.
	waiting bool
	origin  uint32 // the catalog's origin of the process's transfers, "<task>:"
	// origins maps a snapshot origin to its initiator's task index (initiatorIndex).
	origins map[cl.ProcessID]int
}

func newProcess(h *engine.TaskHost, spec Workload) *process {
	p := &process{h: h, plan: spec.plan(h.Index()), outputOf: make(map[int]int),
		balance: spec.initial(h.Index()), origin: h.Origin(tokenPrefix(h.ID()))}
	for _, j := range p.plan.neighbours {
		p.outputOf[j] = h.OutputTo(h.Operator().TaskID(j))
	}
	return p
}

// Restore implements engine.KindTask: the balance and the transfers made.
func (p *process) Restore(s engine.KindState) { p.balance, p.transfers = s.Held, s.Position }

// State implements engine.KindTask.
func (p *process) State() engine.KindState {
	return engine.KindState{Held: p.balance, Position: p.transfers}
}

// Receive implements engine.KindTask: the coordinator's orders of this attempt.
func (p *process) Receive(from string, msg any) {
	c, ok := msg.(*tokenCommand)
	if !ok {
		panic(fmt.Sprintf("tokens: %s: unexpected message %T from %s", p.h.ID(), msg, from))
	}
	if c.attempt != p.h.Attempt() {
		return
	}
	p.command(c)
}

// Snapshot ids. The coordinator names every snapshot, and the processes record it with
// Join, the initiator included: it persists the id before any process hears of it, and a
// process counting ids of its own (Initiate) falls out of step with it as soon as an order
// to initiate is lost on the way. The origin of the snapshots started at process p is
// "coordinator/<p>", a name of no process, so that p may Join them; their sequence numbers
// increase per initiator, which keeps the protocol's duplicate detection sound (markers of
// one origin are first recorded in Seq order everywhere, since FIFO channels and the
// coordinator's orders keep them in that order).
//
// snapshotID and checkpointID convert between Chandy-Lamport ids and the numeric ids of the
// trace: cp = seq*n + initiator index, unique and increasing per initiator.
func snapshotID(op *engine.Operator, cp uint64) cl.SnapshotID {
	n := uint64(op.Parallelism)
	return cl.SnapshotID{Origin: snapshotOrigin(op.TaskID(int(cp % n))), Seq: cp / n}
}

func snapshotOrigin(initiator string) cl.ProcessID {
	return cl.ProcessID(engine.CoordinatorName + "/" + initiator)
}

// snapshotID is the Chandy-Lamport id of checkpoint cp of this process's job.
func (p *process) snapshotID(cp uint64) cl.SnapshotID { return snapshotID(p.h.Operator(), cp) }

func (p *process) checkpointID(id cl.SnapshotID) uint64 {
	n := p.h.Operator().Parallelism
	return id.Seq*uint64(n) + uint64(p.initiatorIndex(id.Origin))
}

// initiatorIndex returns the task index of the process that initiated snapshots of origin
// (snapshotOrigin): tasks may have names of their own (engine.Operator.TaskNames), so the
// index is looked up rather than parsed.
func (p *process) initiatorIndex(origin cl.ProcessID) int {
	if p.origins == nil {
		op := p.h.Operator()
		p.origins = make(map[cl.ProcessID]int, op.Parallelism)
		for i := 0; i < op.Parallelism; i++ {
			p.origins[snapshotOrigin(op.TaskID(i))] = i
		}
	}
	i, ok := p.origins[origin]
	if !ok {
		panic(fmt.Sprintf("tokens: %s: snapshot origin %q is no process of the job", p.h.ID(), origin))
	}
	return i
}

// Begin implements engine.KindTask: it builds the Chandy-Lamport process once the state is
// restored.
func (p *process) Begin() {
	cfg := cl.Config{ID: cl.ProcessID(p.h.ID()), MaxConcurrent: p.plan.spec.maxConcurrent(),
		MaxRecordedPerChannel: p.h.Config().Checkpoint.MaxBufferedRecords}
	for _, from := range p.h.Inputs() {
		cfg.Inputs = append(cfg.Inputs, cl.ProcessID(from))
	}
	for _, to := range p.h.Outputs() {
		cfg.Outputs = append(cfg.Outputs, cl.ProcessID(to))
	}
	proc, err := cl.NewProcess[*engine.Snapshot, engine.CompactRecord](cfg)
	if err != nil {
		panic(fmt.Sprintf("tokens: %s: %v", p.h.ID(), err))
	}
	p.proc = proc
	if p.plan.timed() {
		p.transfer()
		return
	}
	p.armTick(p.plan.spec.Interval)
}

func (p *process) done() bool { return p.transfers >= p.plan.len() }

// armTick tries the next transfer after d.
func (p *process) armTick(d time.Duration) {
	if p.tickArmed || p.done() {
		return
	}
	p.tickArmed = true
	p.h.Proc().After(d, func() {
		p.tickArmed = false
		p.transfer()
	})
}

// transfer makes the transfers of the plan that are due, as long as the output has room
// and the process holds their tokens; otherwise it waits for whichever is missing. A random
// transfer is due an Interval after the one before it, a scripted one at its time.
func (p *process) transfer() {
	h := p.h
	for h.Running() && !p.done() {
		if p.plan.timed() {
			if wait := p.plan.due(p.transfers, time.Duration(h.Now())) - time.Duration(h.Now()); wait > 0 {
				p.armTick(wait)
				return
			}
		}
		if !h.HasRoom() {
			h.SchedulePump(p.plan.spec.Interval) // try again; credits also pump
			p.armTick(p.plan.spec.Interval)
			return
		}
		to, amount := p.plan.transfer(p.transfers)
		if p.balance < amount {
			p.waiting = true
			return
		}
		p.waiting = false
		h.Emit(p.outputOf[to], engine.NewCompactRecord(p.origin, p.transfers, amount))
		p.balance -= amount
		p.transfers++
		if !p.plan.timed() {
			p.armTick(p.plan.spec.Interval)
			return
		}
	}
}

// Consume implements engine.KindTask: it handles the next input item of a token process, a
// marker (carried as a barrier event) or a buffer of transfers.
func (p *process) Consume() bool {
	h := p.h
	from, records, event, ok := h.NextInput()
	if !ok {
		return false
	}
	if records == nil {
		if event.Type != protocol.EventBarrier {
			panic(fmt.Sprintf("tokens: %s: unexpected event %s on a token channel", h.ID(), event))
		}
		h.Trace(trace.Event{Kind: trace.KindBarrierRecv, Task: h.ID(), From: from, CP: uint64(event.Checkpoint)})
		m := cl.Marker{Snapshot: p.snapshotID(uint64(event.Checkpoint)),
			Channel: cl.Channel{From: cl.ProcessID(from), To: cl.ProcessID(h.ID())}}
		switch err := p.proc.HandleMarker(m); {
		case errors.Is(err, cl.ErrStaleMarker):
			// The marker of an older snapshot of its origin, after a newer one: the older
			// one's marker was lost on another channel, so it never completes here and times
			// out. Nothing to record.
		case err != nil:
			h.Fail("chandy-lamport: " + err.Error())
			return false
		}
		p.drain()
		return true
	}
	for _, r := range records {
		if err := p.proc.Receive(cl.ProcessID(from), r); err != nil {
			panic(fmt.Sprintf("tokens: %s: %v", h.ID(), err))
		}
		p.balance += r.Value()
	}
	if p.balance < 0 {
		panic(fmt.Sprintf("tokens: %s holds %d tokens", h.ID(), p.balance))
	}
	h.Occupy(len(records))
	if p.waiting {
		p.transfer()
	}
	return true
}

// command carries out an order of the coordinator.
func (p *process) command(c *tokenCommand) {
	h := p.h
	switch c.kind {
	case "record":
		// Join fails only when the coordinator let more snapshots be in flight than the
		// process may track, or repeated one: the process cannot follow the algorithm, so
		// it fails, and the job fails over.
		if err := p.proc.Join(p.snapshotID(c.cp)); err != nil {
			h.Fail("chandy-lamport: " + err.Error())
			return
		}
	case "finish":
		h.FlushAll()
		h.Exit()
		return
	default:
		panic(fmt.Sprintf("tokens: %s: unknown token command %q", h.ID(), c.kind))
	}
	p.drain()
}

// drain carries out the Chandy-Lamport outputs in order: record the state at once, put
// markers on their channels before anything else is sent, and answer the coordinator once
// the state is stored.
func (p *process) drain() {
	h := p.h
	for guard := 0; ; guard++ {
		if guard > 1000 {
			panic(fmt.Sprintf("tokens: %s: chandy-lamport keeps producing outputs", h.ID()))
		}
		outs := p.proc.Ready()
		if len(outs) == 0 || !h.Alive() {
			return
		}
		for _, o := range outs {
			switch o := o.(type) {
			case cl.RecordState:
				cp := p.checkpointID(o.Snapshot)
				d := h.Capture(cp)
				if err := p.proc.StateRecorded(o.Snapshot, d); err != nil {
					panic(fmt.Sprintf("tokens: %s: %v", h.ID(), err))
				}
			case cl.Marker:
				cp := p.checkpointID(o.Snapshot)
				out := h.OutputTo(string(o.Channel.To))
				h.Trace(trace.Event{Kind: trace.KindBarrierSend, Task: h.ID(), To: string(o.Channel.To), CP: cp})
				h.SendEvent(out, protocol.Barrier(protocol.CheckpointID(cp), protocol.KindCheckpoint, protocol.ModeUnaligned, protocol.Time(h.Now())))
			case cl.Report[*engine.Snapshot, engine.CompactRecord]:
				p.report(o)
			case cl.Abort:
				cp := p.checkpointID(o.Snapshot)
				h.Trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: h.ID(), CP: cp, Reason: protocol.ReasonChannelStateOverflow.String()})
				p.answer(&tokenAnswer{cp: cp, abort: &o})
			default:
				panic(fmt.Sprintf("tokens: %s: unknown chandy-lamport output %T", h.ID(), o))
			}
		}
	}
}

// report stores the process's part of a snapshot, traces it and answers the coordinator.
func (p *process) report(r cl.Report[*engine.Snapshot, engine.CompactRecord]) {
	h := p.h
	d := r.State
	cp := d.Checkpoint()
	for _, ch := range r.Channels {
		h.SetChannelState(d, string(ch.Channel.From), ch.Messages)
	}
	state := d.KindState()
	summary := tokenSummary{Balance: state.Held, Done: state.Position >= p.plan.len()}
	h.SaveSnapshot(d, func(key string, err error) {
		if err != nil {
			h.Trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: h.ID(), CP: cp, Reason: protocol.ReasonUploadFailed.String()})
			p.answer(&tokenAnswer{cp: cp, abort: &cl.Abort{Snapshot: r.Snapshot, Process: r.Process}})
			return
		}
		h.Trace(trace.Event{Kind: trace.KindSnapshotAck, Task: h.ID(), CP: cp})
		summary.Handle = key
		p.answer(&tokenAnswer{cp: cp, report: &cl.Report[tokenSummary, engine.CompactRecord]{Snapshot: r.Snapshot, Process: r.Process, State: summary, Channels: r.Channels}})
	})
}

func (p *process) answer(a *tokenAnswer) {
	a.attempt = p.h.Attempt()
	p.h.Proc().Send(engine.CoordinatorName, a)
}
