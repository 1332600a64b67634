package engine

import (
	"fmt"
	"slices"
	"time"

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
	report  *cl.Report[tokenSummary, rec]
	abort   *cl.Abort
}

// tokenSummary is what the coordinator learns of a process's recorded state.
type tokenSummary struct {
	Handle  string // where the process's state is stored
	Balance int64
	Done    bool // the process had made all its transfers
}

// tokenPart is the token-process side of a task: its balance, its transfer plan, and the
// Chandy-Lamport process it steps.
type tokenPart struct {
	t         *task
	plan      tokenPlan
	outputOf  map[int]int // task index of a neighbour -> output channel
	balance   int64
	transfers int64 // transfers made: the index of the next one in the plan
	proc      *cl.Process[*snapshotData, rec]
	tickArmed bool
	// waiting: the next transfer is due but the process holds too few tokens for it; the
	// next tokens to arrive try it again.
	waiting bool
	origin  uint32 // the catalog's origin of the process's transfers, "<task>:"
}

func newTokenPart(t *task, spec Tokens) *tokenPart {
	p := &tokenPart{t: t, plan: spec.plan(t.plan.index), outputOf: make(map[int]int),
		balance: spec.Initial, origin: t.rt.plan.catalog.origin(tokenPrefix(t.plan.id))}
	for _, j := range p.plan.neighbours {
		p.outputOf[j] = t.plan.outputByTo[TaskID(t.plan.op.Name, j)]
	}
	return p
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
func snapshotID(op string, n int, cp uint64) cl.SnapshotID {
	return cl.SnapshotID{Origin: snapshotOrigin(TaskID(op, int(cp%uint64(n)))), Seq: cp / uint64(n)}
}

func snapshotOrigin(initiator string) cl.ProcessID {
	return cl.ProcessID(coordinatorName + "/" + initiator)
}

// snapshotID is the Chandy-Lamport id of checkpoint cp of this process's job.
func (p *tokenPart) snapshotID(cp uint64) cl.SnapshotID {
	return snapshotID(p.t.plan.op.Name, p.t.plan.op.Parallelism, cp)
}

func (p *tokenPart) checkpointID(id cl.SnapshotID) uint64 {
	n := p.t.plan.op.Parallelism
	initiator := taskIndexOf(string(id.Origin))
	return id.Seq*uint64(n) + uint64(initiator)
}

// taskIndexOf parses the index that ends "<op>-<index>" (or a snapshot origin).
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
	cfg := cl.Config{ID: cl.ProcessID(p.t.plan.id), MaxConcurrent: p.plan.spec.maxConcurrent(),
		MaxRecordedPerChannel: p.t.rt.cfg.Checkpoint.MaxBufferedRecords}
	for _, c := range p.t.plan.inputs {
		cfg.Inputs = append(cfg.Inputs, cl.ProcessID(c.From))
	}
	for _, c := range p.t.plan.outputs {
		cfg.Outputs = append(cfg.Outputs, cl.ProcessID(c.To))
	}
	proc, err := cl.NewProcess[*snapshotData, rec](cfg)
	if err != nil {
		panic(fmt.Sprintf("engine: %s: %v", p.t.plan.id, err))
	}
	p.proc = proc
	if p.plan.timed() {
		p.transfer()
		return
	}
	p.armTick(p.plan.spec.Interval)
}

func (p *tokenPart) done() bool { return p.transfers >= p.plan.len() }

// armTick tries the next transfer after d.
func (p *tokenPart) armTick(d time.Duration) {
	if p.tickArmed || p.done() {
		return
	}
	p.tickArmed = true
	p.t.proc.After(d, func() {
		p.tickArmed = false
		p.transfer()
	})
}

// transfer makes the transfers of the plan that are due, as long as the output has room
// and the process holds their tokens; otherwise it waits for whichever is missing. A random
// transfer is due an Interval after the one before it, a scripted one at its time.
func (p *tokenPart) transfer() {
	t := p.t
	for t.phase == phaseRunning && !p.done() {
		if p.plan.timed() {
			if wait := p.plan.due(p.transfers) - time.Duration(t.rt.env.Now()); wait > 0 {
				p.armTick(wait)
				return
			}
		}
		if !t.hasRoom() {
			t.schedulePump(p.plan.spec.Interval) // try again; credits also pump
			p.armTick(p.plan.spec.Interval)
			return
		}
		to, amount := p.plan.transfer(p.transfers)
		if p.balance < amount {
			p.waiting = true
			return
		}
		p.waiting = false
		t.emit(p.outputOf[to], rec{origin: p.origin, seq: p.transfers, value: amount})
		p.balance -= amount
		p.transfers++
		if !p.plan.timed() {
			p.armTick(p.plan.spec.Interval)
			return
		}
	}
}

// consume handles the next input item of a token process: a marker (carried as a barrier
// event) or a buffer of transfers.
func (p *tokenPart) consume() bool {
	t := p.t
	n := len(t.inputs)
	for k, i := 0, t.nextInput; k < n; k, i = k+1, nextInRound(i, n) {
		in := t.inputs[i]
		if in.empty() {
			continue
		}
		t.nextInput = nextInRound(i, n)
		item, credited := in.pop()
		if item.records == nil {
			if item.event.Type != protocol.EventBarrier {
				panic(fmt.Sprintf("engine: %s: unexpected event %s on a token channel", t.plan.id, item.event))
			}
			t.trace(trace.Event{Kind: trace.KindBarrierRecv, Task: t.plan.id, From: in.from, CP: uint64(item.event.Checkpoint)})
			m := cl.Marker{Snapshot: p.snapshotID(uint64(item.event.Checkpoint)),
				Channel: cl.Channel{From: cl.ProcessID(in.from), To: cl.ProcessID(t.plan.id)}}
			if err := p.proc.HandleMarker(m); err != nil {
				t.fail("chandy-lamport: " + err.Error())
				return false
			}
			p.drain()
			return true
		}
		if credited {
			t.returnCredit(in)
		}
		in.recv += int64(len(item.records))
		for _, r := range item.records {
			if err := p.proc.Receive(cl.ProcessID(in.from), r); err != nil {
				panic(fmt.Sprintf("engine: %s: %v", t.plan.id, err))
			}
			p.balance += r.value
		}
		if p.balance < 0 {
			panic(fmt.Sprintf("engine: %s holds %d tokens", t.plan.id, p.balance))
		}
		t.occupy(len(item.records))
		if p.waiting {
			p.transfer()
		}
		return true
	}
	return false
}

// command carries out an order of the coordinator.
func (p *tokenPart) command(c *tokenCommand) {
	t := p.t
	switch c.kind {
	case "record":
		// Join fails only when the coordinator let more snapshots be in flight than the
		// process may track, or repeated one: the process cannot follow the algorithm, so
		// it fails, and the job fails over.
		if err := p.proc.Join(p.snapshotID(c.cp)); err != nil {
			t.fail("chandy-lamport: " + err.Error())
			return
		}
	case "finish":
		t.flushAll()
		t.exit()
		return
	default:
		panic(fmt.Sprintf("engine: %s: unknown token command %q", t.plan.id, c.kind))
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
			case cl.Report[*snapshotData, rec]:
				p.report(o)
			case cl.Abort:
				cp := p.checkpointID(o.Snapshot)
				t.trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: t.plan.id, CP: cp, Reason: protocol.ReasonChannelStateOverflow.String()})
				p.answer(&tokenAnswer{cp: cp, abort: &o})
			default:
				panic(fmt.Sprintf("engine: %s: unknown chandy-lamport output %T", t.plan.id, o))
			}
		}
	}
}

// report stores the process's part of a snapshot, traces it and answers the coordinator.
func (p *tokenPart) report(r cl.Report[*snapshotData, rec]) {
	t := p.t
	d := r.State
	cp := d.cp
	for _, ch := range r.Channels {
		i := t.plan.inputByFrom[string(ch.Channel.From)]
		d.channel[i] = slices.Clone(ch.Messages)
	}
	blob := d.encode(t.rt.plan.catalog)
	t.trace(trace.Event{Kind: trace.KindSnapshotTaken, Task: t.plan.id, CP: cp, Attrs: t.snapshotAttrs(d, Digest(blob))})
	key := stateKey(t.plan.id, protocol.CheckpointID(cp))
	summary := tokenSummary{Handle: key, Balance: d.tokens.balance, Done: d.tokens.transfers >= p.plan.len()}
	writeDurably(t.proc, t.rt.cfg.VerifyWrites, key, blob, func(err error) {
		if err != nil {
			t.trace(trace.Event{Kind: trace.KindSnapshotDecline, Task: t.plan.id, CP: cp, Reason: protocol.ReasonUploadFailed.String()})
			p.answer(&tokenAnswer{cp: cp, abort: &cl.Abort{Snapshot: r.Snapshot, Process: r.Process}})
			return
		}
		t.trace(trace.Event{Kind: trace.KindSnapshotAck, Task: t.plan.id, CP: cp})
		p.answer(&tokenAnswer{cp: cp, report: &cl.Report[tokenSummary, rec]{Snapshot: r.Snapshot, Process: r.Process, State: summary, Channels: r.Channels}})
	})
}

func (p *tokenPart) answer(a *tokenAnswer) {
	a.attempt = p.t.attempt
	p.t.proc.Send(coordinatorName, a)
}
