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
}

func (p *storeProcess) Receive(from string, msg any) {
	req, ok := msg.(*storeRequest)
	if !ok {
		panic(fmt.Sprintf("engine: extstore: unexpected message %T from %s", msg, from))
	}
	if d := p.rt.cfg.Store.Latency; d > 0 {
		// Every request waits the same, so requests from one sender stay in order.
		p.proc.After(d, func() { p.apply(from, req) })
		return
	}
	p.apply(from, req)
}

// Crashed implements Process. The store is external: scenarios keep its host up, and if it
// does go down, requests to it are lost like any message to a dead process.
func (p *storeProcess) Crashed() {}

func (p *storeProcess) trace(e trace.Event) {
	if p.proc.Alive() {
		p.rt.emit(e)
	}
}

func (p *storeProcess) apply(from string, req *storeRequest) {
	s := p.store
	reply := &storeReply{op: req.op, nonce: req.nonce, txn: req.txn, start: req.start}
	now := p.rt.env.Now()
	switch req.op {
	case opInit:
		epoch, aborted := s.InitWriter(req.writer)
		for _, t := range aborted {
			p.traceAbort(t)
		}
		reply.epoch = epoch
	case opBegin:
		t, err := s.Begin(req.writer, req.epoch, req.txn, now)
		reply.err = err
		if err == nil {
			if deadline, ok := s.Deadline(t); ok {
				p.proc.After(time.Duration(deadline-now), func() {
					if s.Expire(t.ID, p.rt.env.Now()) {
						p.traceAbort(t)
					}
				})
			}
		}
	case opWrite:
		reply.err = s.Write(req.writer, req.epoch, req.txn, req.rids, req.values)
	case opPrepare:
		reply.err = s.Prepare(req.writer, req.epoch, req.txn, req.cp)
		if reply.err == nil {
			p.trace(trace.Event{Kind: trace.KindSinkPrecommit, Task: req.writer, CP: req.cp, Txn: req.txn})
		}
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
		for _, o := range s.Recover(req.writer, req.commit) {
			switch {
			case o.Commit && o.Applied:
				p.traceCommit(o.T, req.start)
			case !o.Commit && o.Applied:
				p.traceAbort(o.T)
			}
			if o.Err != nil && reply.err == nil {
				reply.err = o.Err
			}
		}
	case opUpsert:
		start := strconv.FormatInt(req.start, 10)
		for i, rid := range req.rids {
			s.Upsert(req.writer, rid, req.values[i])
			p.trace(trace.Event{Kind: kindSinkUpsert, Task: req.writer, RID: rid, Attrs: []trace.Attr{
				{Key: trace.AttrStart, Value: start},
				{Key: trace.AttrValue, Value: strconv.FormatInt(req.values[i], 10)},
			}})
		}
	case opAppend:
		// An append is a transaction of its own, committed at once: its records were
		// traced by the sink as sink.write under req.txn.
		for i, rid := range req.rids {
			s.Append(req.writer, rid, req.values[i])
		}
		p.trace(trace.Event{Kind: trace.KindSinkCommit, Task: req.writer, Txn: req.txn, Attrs: []trace.Attr{
			{Key: trace.AttrRecords, Value: strconv.Itoa(len(req.rids))},
			{Key: trace.AttrStart, Value: strconv.FormatInt(req.start, 10)},
		}})
	case opRead:
		reply.visible = s.Visible()
	default:
		panic(fmt.Sprintf("engine: extstore: unknown request %d", req.op))
	}
	// Writes, begins and upserts are pipelined: only their failures are answered.
	switch req.op {
	case opWrite, opBegin, opUpsert, opAppend, opAbort:
		if reply.err == nil {
			return
		}
	}
	p.proc.Send(from, reply)
}

// kindSinkUpsert is the checker's sink.upsert kind (task rid; attrs value, start): an
// idempotent write straight into the store, visible at once. It is spelled here until
// trace/schema.go on main carries it as trace.KindSinkUpsert.
const kindSinkUpsert = "sink.upsert"

func (p *storeProcess) traceCommit(t *extstore.Txn, start int64) {
	p.trace(trace.Event{Kind: trace.KindSinkCommit, Task: t.Writer, CP: t.Checkpoint, Txn: t.ID, Attrs: []trace.Attr{
		{Key: trace.AttrRecords, Value: strconv.Itoa(t.Records())},
		{Key: trace.AttrStart, Value: strconv.FormatInt(start, 10)},
	}})
}

func (p *storeProcess) traceAbort(t *extstore.Txn) {
	p.trace(trace.Event{Kind: trace.KindSinkAbort, Task: t.Writer, Txn: t.ID, Reason: t.AbortReason})
}
