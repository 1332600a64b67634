package engine

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/ckptsim/ckptsim/engine/extstore"
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// storeName is the process name of the external store.
const storeName = "extstore"

// sinkPart writes a task's input to the external store. A 2PC sink embeds the protocol's
// two-phase-commit helper and is its Listener; upsert and append sinks write at once.
//
// The store may go down (its host crashes), and requests sent meanwhile are lost without a
// word. So every request whose outcome matters is kept until the store answers it and sent
// again every Store.RetryInterval: registering the incarnation, pre-commits, commits,
// recovery and confirmations; the store makes each of them idempotent. Writes go without
// an answer, and a lost one is found out where it matters: a pre-commit carries the number
// of records written into its transaction, and an upsert or append sink confirms at each
// snapshot how many records it wrote. If the store applied fewer, the snapshot fails and so
// does the task: the job fails over and replays them.
type sinkPart struct {
	t     *task
	typ   SinkType
	nonce uint64
	epoch uint64 // the writer epoch the store gave this incarnation
	seq   int    // transaction or batch number within the incarnation
	tpc   *protocol.TwoPhaseCommit
	// prepares maps a transaction being pre-committed (2PC), or a confirmation (upsert,
	// append: by checkpoint id), to the snapshot waiting for it.
	prepares map[string]*pendingSnapshot
	// initDone continues the restore once the store answered opInit.
	initDone func(epoch uint64)
	// adopted are the earlier sinks whose transactions a sink of a rescaled job finishes
	// before it runs (sinkadopt.go); adoptNext takes the store's answer for the one under
	// way.
	adopted   []adoptedWriter
	adoptNext func(m *storeReply)
	// unanswered holds the requests sent again until the store answers them, in the order
	// first sent. A finished sink exits only when none is left, so that a finished job has
	// its output committed.
	unanswered []unanswered
	retryArmed bool
	retryTimer Timer
	// txnRecords counts the records written into the current transaction (2PC);
	// plainRecords those this incarnation upserted or appended.
	txnRecords   int64
	plainRecords int64
	// scratch is reused to render the lists of sink.writes.
	scratch []byte
}

func newSinkPart(t *task, typ SinkType) *sinkPart {
	return &sinkPart{t: t, typ: typ, nonce: t.rt.nextNonce(), prepares: make(map[string]*pendingSnapshot)}
}

// awaitsAnswer reports whether the store's answer to a request of kind o matters to the
// sink: it then keeps the request until the answer comes.
func (o storeOp) awaitsAnswer() bool {
	switch o {
	case opInit, opPrepare, opCommit, opRecover, opConfirm:
		return true
	}
	return false
}

// unanswered is a request waiting for the store's answer, and when it was last sent.
type unanswered struct {
	req       *storeRequest
	sentNanos int64
}

func (s *sinkPart) request(r *storeRequest) { s.requestAs(r, s.t.plan.id, s.epoch) }

// requestAs sends r on behalf of writer at epoch: the sink's own, or an adopted one's.
func (s *sinkPart) requestAs(r *storeRequest, writer string, epoch uint64) {
	r.nonce = s.nonce
	r.writer = writer
	r.epoch = epoch
	r.start = s.t.rt.env.Now()
	if r.op.awaitsAnswer() {
		s.unanswered = append(s.unanswered, unanswered{req: r, sentNanos: r.start})
		s.armRetry(s.t.rt.cfg.Store.RetryInterval)
	}
	s.t.proc.Send(storeName, r)
}

// armRetry makes sure unanswered requests are looked at again in d.
func (s *sinkPart) armRetry(d time.Duration) {
	if s.retryArmed {
		return
	}
	s.retryArmed = true
	if s.retryTimer == nil {
		s.retryTimer = s.t.proc.NewTimer(s.retry)
	}
	s.retryTimer.Reset(d)
}

// retry sends again, in the order first sent, every unanswered request last sent
// Store.RetryInterval ago or earlier, and looks again when the next one is due.
func (s *sinkPart) retry() {
	s.retryArmed = false
	if len(s.unanswered) == 0 || !s.t.alive() {
		return
	}
	now, interval := s.t.rt.env.Now(), int64(s.t.rt.cfg.Store.RetryInterval)
	next := int64(-1)
	for i := range s.unanswered {
		u := &s.unanswered[i]
		if now-u.sentNanos >= interval {
			// A copy: the one sent first may still be on its way, and messages are
			// shared.
			again := *u.req
			s.t.proc.Send(storeName, &again)
			u.sentNanos = now
		}
		if due := u.sentNanos + interval; next < 0 || due < next {
			next = due
		}
	}
	s.armRetry(time.Duration(next - now))
}

// takeAnswered removes and returns the unanswered request m answers; nil if none (a
// duplicate answer, to a request sent more than once).
func (s *sinkPart) takeAnswered(m *storeReply) *storeRequest {
	for i, u := range s.unanswered {
		if r := u.req; r.op == m.op && r.txn == m.txn && r.cp == m.cp {
			s.unanswered = slices.Delete(s.unanswered, i, i+1)
			return r
		}
	}
	return nil
}

// txnName returns a new transaction id. The epoch is unique per incarnation, so ids never
// collide with those a predecessor left in the store.
func (s *sinkPart) txnName(prefix string) string {
	s.seq++
	return s.t.plan.id + ".e" + strconv.FormatUint(s.epoch, 10) + "." + prefix + strconv.Itoa(s.seq)
}

// recover registers the incarnation with the store (which fences its predecessors and
// aborts their open transactions) and, for a 2PC sink, finishes the transactions the
// restored snapshot left: the pending ones are committed, every other is aborted. Then it
// calls done. d is nil on a fresh start.
func (s *sinkPart) recover(d *snapshotData, cp protocol.CheckpointID, done func()) {
	s.initDone = func(epoch uint64) {
		s.epoch = epoch
		if s.typ != TwoPhaseCommit {
			done()
			return
		}
		commit := s.restoreTwoPhase(d, cp)
		if s.tpc == nil {
			return // the protocol refused the snapshot: the job halted
		}
		s.request(&storeRequest{op: opRecover, commit: commit})
		s.request(&storeRequest{op: opBegin, txn: string(s.tpc.Current())})
		done()
	}
	s.adopt(0, func() { s.request(&storeRequest{op: opInit}) })
}

// restoreTwoPhase builds the sink's two-phase-commit helper, from the restored snapshot d
// if there is one, and returns the transactions to commit. Aborts need no list of their
// own: the store's recovery aborts every unfinished transaction of the writer that is not
// committed. The protocol refusing what the sink stored itself breaks the contract
// (restore): s.tpc stays nil and the job halts.
func (s *sinkPart) restoreTwoPhase(d *snapshotData, cp protocol.CheckpointID) (commit []string) {
	first := protocol.TransactionID(s.txnName("t"))
	if d == nil {
		tpc, err := protocol.NewTwoPhaseCommit(first, s.maxPending())
		if err != nil {
			s.t.breakContract(cp, contractRestore, "two-phase commit: "+err.Error())
			return nil
		}
		s.tpc = tpc
		return nil
	}
	tpc, actions, err := protocol.RestoreTwoPhaseCommit(d.twoPhase, cp, first, s.maxPending())
	if err != nil {
		s.t.breakContract(cp, contractRestore, "two-phase commit: "+err.Error())
		return nil
	}
	s.tpc = tpc
	for _, a := range actions {
		if a.Type == protocol.TransactionCommit {
			commit = append(commit, string(a.Transaction))
		}
	}
	return commit
}

// maxPending is the sink's bound on pending transactions.
func (s *sinkPart) maxPending() int { return s.t.rt.cfg.PendingTransactionsBound() }

// write sends a processed buffer to the store.
func (s *sinkPart) write(records []rec) {
	c := s.t.rt.plan.catalog
	req := s.t.rt.storeWrites.next()
	switch s.typ {
	case TwoPhaseCommit:
		req.op, req.txn = opWrite, string(s.tpc.Current())
		s.txnRecords += int64(len(records))
		req.refs = make([]extstore.Ref, len(records))
		for i, r := range records {
			req.refs[i] = extstore.Ref{Origin: r.origin, Seq: r.seq, Value: r.value}
		}
	case Upsert:
		req.op = opUpsert
	case Append:
		req.op, req.txn = opAppend, s.txnName("b")
	}
	if req.op != opWrite {
		s.plainRecords += int64(len(records))
		req.records = s.plainRecords
		req.rids, req.values = c.rids(records), make([]int64, len(records))
		for i, r := range records {
			req.values[i] = r.value
		}
	}
	// Upserts are traced by the store as sink.upsert when they become visible.
	if s.t.rt.cfg.TraceSinkWrites && req.op != opUpsert {
		if s.t.rt.cfg.BatchSinkWrites {
			s.traceWrites(req.txn, records)
		} else {
			for _, r := range records {
				s.t.trace(trace.Event{Kind: trace.KindSinkWrite, Task: s.t.plan.id, Txn: req.txn, RID: c.rid(r),
					Attrs: []trace.Attr{{Key: trace.AttrValue, Value: strconv.FormatInt(r.value, 10)}}})
			}
		}
	}
	s.request(req)
}

// maxWritesPerEvent bounds the records one sink.writes lists, so that its line stays far
// below trace.MaxLineBytes whatever the buffer size.
const maxWritesPerEvent = 1024

// traceWrites traces records written into txn as sink.writes events.
func (s *sinkPart) traceWrites(txn string, records []rec) {
	c := s.t.rt.plan.catalog
	// The values of a buffer of a few hundred records fit; a longer list spills to the heap.
	var valuesArray [4096]byte
	for len(records) > 0 {
		n := min(len(records), maxWritesPerEvent)
		// Both lists go into one string, which the two values slice. One pass writes the
		// record ids there and the values on the side, each item followed by a separator
		// that the last one drops.
		lists, values := s.scratch[:0], valuesArray[:0]
		for _, r := range records[:n] {
			lists = append(c.appendRID(lists, r), trace.ListSeparator...)
			values = append(trace.AppendInt(values, r.value), trace.ListSeparator...)
		}
		lists = lists[:len(lists)-len(trace.ListSeparator)]
		split := len(lists)
		lists = append(lists, values[:len(values)-len(trace.ListSeparator)]...)
		s.scratch = lists
		all := string(lists)
		// The attributes come from a block (an event never changes once emitted).
		attrs := s.t.rt.writeAttrs.next()
		*attrs = [2]trace.Attr{{Key: trace.AttrRIDs, Value: all[:split]}, {Key: trace.AttrValues, Value: all[split:]}}
		// The lists are plain: record ids are made of validated names and digits, values of
		// digits, and they are joined by spaces.
		s.t.trace(trace.Event{Kind: trace.KindSinkWrites, Task: s.t.plan.id, Txn: txn, Attrs: attrs[:], PlainValues: true})
		records = records[n:]
	}
}

// preCommit is the sink's part of a snapshot's synchronous cut: a 2PC sink ties its
// current transaction to the checkpoint, starts the next one and asks the store to
// prepare the old one and begin the new one; an upsert or append sink asks the store to
// confirm that it applied every record written so far. Either way the snapshot is
// acknowledged only once the store answered.
func (s *sinkPart) preCommit(ps *pendingSnapshot) error {
	if s.typ != TwoPhaseCommit {
		key := confirmKey(ps.req.Checkpoint)
		ps.awaitPrepare = true
		s.prepares[key] = ps
		s.request(&storeRequest{op: opConfirm, cp: uint64(ps.req.Checkpoint), records: s.plainRecords})
		return nil
	}
	prepared := string(s.tpc.Current())
	next := protocol.TransactionID(s.txnName("t"))
	st, err := s.tpc.PreCommit(ps.req.Checkpoint, next)
	if err != nil {
		return err
	}
	ps.data.twoPhase = st
	ps.awaitPrepare = true
	s.prepares[prepared] = ps
	s.request(&storeRequest{op: opPrepare, txn: prepared, next: string(next), cp: uint64(ps.req.Checkpoint), records: s.txnRecords})
	s.txnRecords = 0
	return nil
}

// confirmKey is the key in prepares of the confirmation an upsert or append sink asks for
// at checkpoint cp; it cannot collide with a transaction id, which starts with the task's.
func confirmKey(cp protocol.CheckpointID) string { return "confirm/" + cp.String() }

// NotifyCheckpointComplete implements protocol.Listener: commit what the checkpoint covers.
func (s *sinkPart) NotifyCheckpointComplete(id protocol.CheckpointID) {
	if s.tpc != nil {
		s.perform(s.tpc.NotifyCheckpointComplete(id))
	}
}

// NotifyCheckpointAborted implements protocol.Listener.
func (s *sinkPart) NotifyCheckpointAborted(id protocol.CheckpointID) {
	switch {
	case s.tpc == nil:
	default:
		s.perform(s.tpc.NotifyCheckpointAborted(id))
	}
}

func (s *sinkPart) perform(actions []protocol.TransactionAction) {
	for _, a := range actions {
		switch a.Type {
		case protocol.TransactionCommit:
			s.request(&storeRequest{op: opCommit, txn: string(a.Transaction), cp: uint64(a.Checkpoint)})
		case protocol.TransactionAbort:
			s.request(&storeRequest{op: opAbort, txn: string(a.Transaction)})
		}
	}
}

// onReply handles the store's answer to a request of this incarnation.
func (s *sinkPart) onReply(m *storeReply) {
	if m.nonce != s.nonce {
		return // meant for a predecessor
	}
	if m.op.awaitsAnswer() {
		if s.takeAnswered(m) == nil {
			return // the answer to a request sent again, heard already
		}
		defer s.t.maybeExit()
	}
	if s.adoptReply(m) {
		return
	}
	switch m.op {
	case opInit:
		if m.err != nil {
			s.failOn(m)
			return
		}
		if s.initDone != nil {
			done := s.initDone
			s.initDone = nil
			done(m.epoch)
		}
	case opPrepare, opConfirm:
		key := m.txn
		if m.op == opConfirm {
			key = confirmKey(protocol.CheckpointID(m.cp))
		}
		ps := s.prepares[key]
		delete(s.prepares, key)
		if m.err != nil {
			s.failOn(m)
			return
		}
		if ps != nil && s.t.snapshots[ps.req.Checkpoint] == ps {
			ps.awaitPrepare = false
			s.t.maybeComplete(ps)
		}
	case opCommit, opRecover:
		// A transaction the store aborted (timed out) cannot be committed any more: its
		// records are lost. That is the store's verdict, traced as sink.abort when it
		// happened; failing the task would not bring them back.
		if m.err != nil && !errors.Is(m.err, extstore.ErrAborted) {
			s.failOn(m)
		}
	default:
		if m.err != nil {
			s.failOn(m)
		}
	}
}

// failOn fails the task for the store's refusal m.
func (s *sinkPart) failOn(m *storeReply) { s.t.fail("sink " + m.op.String() + ": " + m.err.Error()) }
