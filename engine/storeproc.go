package engine

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/engine/extstore"
	"github.com/ckptsim/ckptsim/trace"
)

// storeProcess runs the external store as a process of its own: requests arrive over the
// network, take Store.Latency to apply, and the outcome goes back to the requester. The
// store, not the sink, traces sink.precommit, sink.commit and sink.abort, at the instant it
// applies them: that is when the output becomes visible (or is lost), whatever happens to
// the sink afterwards, so a commit is traced exactly once even if the sink dies before it
// hears about it.
type storeProcess struct {
	rt    *Runtime
	proc  Proc
	store *extstore.Store
	// idle holds the delays of requests that have been applied, to be used again: every
	// request waits Store.Latency on a timer of its own, and reusing them spares a timer
	// and two closures per request.
	idle []*storeDelay
}

// storeDelay is a request waiting out the store's latency.
type storeDelay struct {
	timer Timer
	from  string
	req   *storeRequest
}

func (p *storeProcess) Receive(from string, msg any) {
	req, ok := msg.(*storeRequest)
	if !ok {
		panic(invariantf("engine: extstore: unexpected message %T from %s", msg, from))
	}
	d := p.rt.cfg.Store.Latency
	if d <= 0 {
		p.apply(from, req)
		return
	}
	// Every request waits the same, so requests from one sender stay in order.
	var w *storeDelay
	if n := len(p.idle); n > 0 {
		w, p.idle = p.idle[n-1], p.idle[:n-1]
	} else {
		w = &storeDelay{}
		w.timer = p.proc.NewTimer(func() {
			from, req := w.from, w.req
			w.from, w.req = "", nil
			p.idle = append(p.idle, w)
			p.apply(from, req)
		})
	}
	w.from, w.req = from, req
	w.timer.Reset(d)
}

// Crashed implements Process. The store is an external system: its data survives, but
// requests to it while it is down, or waiting out its latency when it went down, are lost
// like any message to a dead process. Sinks send what they wait for again and find out
// about lost writes (sinkPart); the next process arms the transactions' timeouts again.
func (p *storeProcess) Crashed() {}

func (p *storeProcess) trace(e trace.Event) {
	if p.proc.Alive() {
		p.rt.emit(e)
	}
}

func (p *storeProcess) apply(from string, req *storeRequest) {
	s := p.store
	// The reply is built on the stack and sent only if it must be: most requests are
	// pipelined writes whose success is not answered.
	reply := storeReply{op: req.op, nonce: req.nonce, txn: req.txn, cp: req.cp, start: req.start}
	if p.writeFaulted(from, req, reply) {
		return
	}
	switch req.op {
	case opInit:
		epoch, aborted := s.InitWriter(req.writer, req.nonce)
		for _, t := range aborted {
			p.traceAbort(t)
		}
		reply.epoch = epoch
	case opBegin:
		reply.err = p.begin(req, req.txn)
	case opWrite:
		reply.err = s.WriteRefs(req.writer, req.epoch, req.txn, req.refs)
	case opPrepare:
		reply.err = p.prepare(req)
	case opCommit:
		applied, t, err := s.Commit(req.writer, req.txn)
		reply.err = err
		if applied {
			p.traceCommit(t, req.start)
		}
	case opAbort:
		if applied, err := s.Abort(req.writer, req.txn, "aborted"); applied {
			p.traceAbort(s.Txn(req.txn))
		} else {
			reply.err = err
		}
	case opRecover:
		reply.err = p.recover(req)
	case opUpsert:
		p.upsert(req)
	case opAppend:
		// An append is a transaction of its own, committed at once: its records were
		// traced by the sink as sink.write under req.txn.
		s.Received(req.writer, req.nonce, req.records-int64(len(req.rids)), len(req.rids))
		for i, rid := range req.rids {
			s.Append(req.writer, rid, req.values[i])
		}
		p.trace(trace.Event{Kind: trace.KindSinkCommit, Task: req.writer, Txn: req.txn, Attrs: []trace.Attr{
			{Key: trace.AttrRecords, Value: strconv.Itoa(len(req.rids))},
			{Key: trace.AttrStart, Value: strconv.FormatInt(req.start, 10)},
		}})
	case opConfirm:
		reply.err = s.Confirm(req.writer, req.nonce, req.records)
	case opRead:
		reply.visible = s.Visible()
	default:
		panic(invariantf("engine: extstore: unknown request %d", req.op))
	}
	// Writes, begins and upserts are pipelined: only their failures are answered.
	switch req.op {
	case opWrite, opBegin, opUpsert, opAppend, opAbort:
		if reply.err == nil {
			return
		}
	}
	p.answer(from, reply)
}

// answer sends reply to the requester.
func (p *storeProcess) answer(to string, reply storeReply) {
	sent := p.rt.storeReplies.next()
	*sent = reply
	p.proc.Send(to, sent)
}

// writeFaulted carries out an injected fault on a sink's write (extstore.WriteFault), and
// reports whether there was one: a lost write is not applied and not answered, a refused
// one is not applied and answered with its failure.
func (p *storeProcess) writeFaulted(from string, req *storeRequest, reply storeReply) bool {
	if req.op != opWrite && req.op != opUpsert && req.op != opAppend {
		return false
	}
	switch p.store.WriteFaultFor(req.writer) {
	case extstore.WriteLost:
		return true // as if lost on the way: the sink's counts find it out
	case extstore.WriteRefused:
		reply.err = fmt.Errorf("%w: write refused", extstore.ErrTransient)
		p.answer(from, reply)
		return true
	}
	return false
}

// upsert applies an upsert sink's batch, traced record by record as it becomes visible.
func (p *storeProcess) upsert(req *storeRequest) {
	s := p.store
	start := strconv.FormatInt(req.start, 10)
	s.Received(req.writer, req.nonce, req.records-int64(len(req.rids)), len(req.rids))
	for i, rid := range req.rids {
		s.Upsert(req.writer, rid, req.values[i])
		// The attributes come from a block (an event never changes once emitted).
		attrs := p.rt.writeAttrs.next()
		*attrs = [2]trace.Attr{{Key: trace.AttrStart, Value: start}, {Key: trace.AttrValue, Value: strconv.FormatInt(req.values[i], 10)}}
		p.trace(trace.Event{Kind: trace.KindSinkUpsert, Task: req.writer, RID: rid, Attrs: attrs[:]})
	}
}

// prepare pre-commits req's transaction and begins the next one, and returns the outcome.
func (p *storeProcess) prepare(req *storeRequest) error {
	s := p.store
	applied, err := s.Prepare(req.writer, req.epoch, req.txn, req.cp, int(req.records))
	switch {
	case applied && err == nil:
		p.trace(trace.Event{Kind: trace.KindSinkPrecommit, Task: req.writer, CP: req.cp, Txn: req.txn})
	case applied:
		p.traceAbort(s.Txn(req.txn)) // incomplete: writes were lost on the way
	}
	// A prepare sent again (its answer was lost) finds the next transaction begun.
	if req.next != "" && s.Txn(req.next) == nil {
		if berr := p.begin(req, req.next); err == nil {
			err = berr
		}
	}
	return err
}

// recover commits or aborts a restored writer's pending transactions, and returns the
// first failure.
func (p *storeProcess) recover(req *storeRequest) error {
	outcomes, err := p.store.Recover(req.writer, req.epoch, req.commit)
	for _, o := range outcomes {
		switch {
		case o.Commit && o.Applied:
			p.traceCommit(o.T, req.start)
		case !o.Commit && o.Applied:
			p.traceAbort(o.T)
		}
		if o.Err != nil && err == nil {
			err = o.Err
		}
	}
	return err
}

// begin opens transaction id for the writer of req and arms its timeout.
func (p *storeProcess) begin(req *storeRequest, id string) error {
	t, err := p.store.Begin(req.writer, req.epoch, id, p.rt.env.Now())
	if err == nil {
		p.armExpiry(t)
	}
	return err
}

// armExpiry aborts t when it times out, unless it finished by then.
func (p *storeProcess) armExpiry(t *extstore.Txn) {
	deadline, ok := p.store.Deadline(t)
	if !ok {
		return
	}
	p.proc.After(time.Duration(max(deadline-p.rt.env.Now(), 0)), func() {
		if p.store.Expire(t.ID, p.rt.env.Now()) {
			p.traceAbort(t)
		}
	})
}

// resume arms the timeouts of the transactions left unfinished when the store's process
// last went down: the store keeps its data across a crash, and its timeouts with it.
func (p *storeProcess) resume() {
	for _, t := range p.store.Unfinished() {
		p.armExpiry(t)
	}
}

func (p *storeProcess) traceCommit(t *extstore.Txn, start int64) {
	p.trace(trace.Event{Kind: trace.KindSinkCommit, Task: t.Writer, CP: t.Checkpoint, Txn: t.ID, Attrs: []trace.Attr{
		{Key: trace.AttrRecords, Value: strconv.Itoa(t.Records())},
		{Key: trace.AttrStart, Value: strconv.FormatInt(start, 10)},
	}})
}

func (p *storeProcess) traceAbort(t *extstore.Txn) {
	p.trace(trace.Event{Kind: trace.KindSinkAbort, Task: t.Writer, Txn: t.ID, Reason: t.AbortReason})
}
