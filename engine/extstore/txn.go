package extstore

import (
	"fmt"
	"slices"
	"strings"
)

// InitWriter starts a new incarnation of writer, its session: its epoch is bumped, which
// fences every older incarnation, and its open (not prepared) transactions are aborted,
// since their writer is gone. Prepared transactions survive: a recovering writer commits or
// aborts them by id (Recover). A repeated InitWriter of the current session (a retry whose
// first answer was lost) changes nothing and returns the same epoch.
func (s *Store) InitWriter(writer string, session uint64) (epoch uint64, aborted []*Txn) {
	if w := s.writers[writer]; w != nil && w.session == session {
		return s.epochs[writer], nil
	}
	s.writers[writer] = &writerSession{session: session}
	s.epochs[writer]++
	for _, t := range s.writerTxns(writer) {
		if t.State == Open {
			s.abort(t, "fenced")
			aborted = append(aborted, t)
		}
	}
	return s.epochs[writer], aborted
}

// writerTxns returns writer's transactions in id order, so callers act in a fixed order.
func (s *Store) writerTxns(writer string) []*Txn {
	return s.txnsWhere(func(t *Txn) bool { return t.Writer == writer })
}

// txnsWhere returns the transactions keep accepts, in id order: the map's order must not
// reach what the store does.
func (s *Store) txnsWhere(keep func(*Txn) bool) []*Txn {
	var ts []*Txn
	for _, t := range s.txns {
		if keep(t) {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(a, b *Txn) int { return strings.Compare(a.ID, b.ID) })
	return ts
}

func (s *Store) checkEpoch(writer string, epoch uint64) error {
	if cur := s.epochs[writer]; epoch != cur {
		return fmt.Errorf("%w: %s epoch %d, store has %d", ErrFenced, writer, epoch, cur)
	}
	return nil
}

// Begin opens transaction id for writer at epoch.
func (s *Store) Begin(writer string, epoch uint64, id string, nowNanos int64) (*Txn, error) {
	if err := s.checkEpoch(writer, epoch); err != nil {
		return nil, err
	}
	if _, ok := s.txns[id]; ok {
		panic(fmt.Sprintf("extstore: transaction id %q reused by %s", id, writer))
	}
	if len(s.txns) >= MaxTxns {
		panic(fmt.Sprintf("extstore: more than %d transactions", MaxTxns))
	}
	t := &Txn{ID: id, Writer: writer, Epoch: epoch, State: Open, BeginNanos: nowNanos}
	s.txns[id] = t
	return t, nil
}

// Deadline returns when t times out, and false if transactions never time out.
func (s *Store) Deadline(t *Txn) (int64, bool) {
	if s.timeoutNanos == 0 {
		return 0, false
	}
	return t.BeginNanos + s.timeoutNanos, true
}

func (s *Store) lookup(writer string, epoch uint64, id string) (*Txn, error) {
	t, ok := s.txns[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTxn, id)
	}
	if t.Writer != writer {
		panic(fmt.Sprintf("extstore: %s used transaction %s of %s", writer, id, t.Writer))
	}
	if t.State == Aborted {
		return nil, fmt.Errorf("%w: %s (%s)", ErrAborted, id, t.AbortReason)
	}
	if err := s.checkEpoch(writer, epoch); err != nil {
		return nil, err
	}
	return t, nil
}

// Write adds records to open transaction id.
func (s *Store) Write(writer string, epoch uint64, id string, rids []string, values []int64) error {
	if len(rids) != len(values) {
		panic(fmt.Sprintf("extstore: write of %d ids and %d values", len(rids), len(values)))
	}
	return s.write(writer, epoch, id, len(rids), func() []Ref {
		refs := make([]Ref, len(rids))
		for i, rid := range rids {
			refs[i] = s.name(rid, values[i])
		}
		return refs
	})
}

// WriteRefs adds records in compact form to open transaction id. The store keeps refs as
// they are: the caller must not change them afterwards.
func (s *Store) WriteRefs(writer string, epoch uint64, id string, refs []Ref) error {
	for _, r := range refs {
		if int(r.Origin) >= len(s.origins) {
			panic(fmt.Sprintf("extstore: write of a record of origin %d, with %d origins set", r.Origin, len(s.origins)))
		}
	}
	return s.write(writer, epoch, id, len(refs), func() []Ref { return refs })
}

// write adds the n records refs returns to open transaction id; refs is called only when
// the write is accepted.
func (s *Store) write(writer string, epoch uint64, id string, n int, refs func() []Ref) error {
	t, err := s.lookup(writer, epoch, id)
	if err != nil {
		return err
	}
	if t.State != Open {
		return fmt.Errorf("%w: write into %s transaction %s", ErrTxnState, t.State, id)
	}
	if t.records+n > MaxTxnRecords {
		panic(fmt.Sprintf("extstore: transaction %s over %d records", id, MaxTxnRecords))
	}
	if n > 0 {
		t.rows = append(t.rows, refs())
		t.records += n
	}
	return nil
}

// Prepare pre-commits open transaction id for checkpoint cp: its records are durable and it
// can be committed later, by this writer or by a recovering one, until it times out. records
// is how many records the writer wrote into it: if the store holds fewer, writes were lost
// on the way (the store was down), and the transaction is aborted (ErrIncomplete) rather
// than committed short. Preparing a prepared transaction again for the same checkpoint (a
// retry) succeeds without effect: applied is false.
func (s *Store) Prepare(writer string, epoch uint64, id string, cp uint64, records int) (applied bool, err error) {
	t, err := s.lookup(writer, epoch, id)
	if err != nil {
		return false, err
	}
	switch {
	case t.State == Prepared && t.Checkpoint == cp:
		return false, nil
	case t.State != Open:
		return false, fmt.Errorf("%w: prepare %s transaction %s", ErrTxnState, t.State, id)
	case t.records != records:
		held := t.records
		s.abort(t, "incomplete")
		return true, fmt.Errorf("%w: transaction %s holds %d of the %d records written", ErrIncomplete, id, held, records)
	}
	t.State = Prepared
	t.Checkpoint = cp
	return true, nil
}

// Commit makes prepared transaction id visible. It is idempotent: committing a committed
// transaction succeeds and changes nothing (applied is false). Committing by id is allowed
// to any incarnation of the writer, the way a recovering sink resumes a prepared
// transaction.
func (s *Store) Commit(writer string, id string) (applied bool, t *Txn, err error) {
	t, ok := s.txns[id]
	if !ok {
		return false, nil, fmt.Errorf("%w: %s", ErrUnknownTxn, id)
	}
	if t.Writer != writer {
		panic(fmt.Sprintf("extstore: %s committed transaction %s of %s", writer, id, t.Writer))
	}
	switch t.State {
	case Committed:
		return false, t, nil
	case Aborted:
		return false, t, fmt.Errorf("%w: %s (%s)", ErrAborted, id, t.AbortReason)
	case Open:
		return false, t, fmt.Errorf("%w: commit of open transaction %s", ErrTxnState, id)
	}
	if s.failCommits > 0 || (s.commitHook != nil && s.commitHook(writer, id)) {
		if s.failCommits > 0 {
			s.failCommits--
		}
		return false, t, fmt.Errorf("%w: commit of %s", ErrTransient, id)
	}
	t.State = Committed
	for _, rows := range t.rows {
		s.chunks = append(s.chunks, chunk{writer: t.Writer, txn: t.ID, cells: rows})
	}
	s.visible += int64(t.records)
	t.committed = t.records
	t.rows, t.records = nil, 0 // the rows live on in the store's visible table
	return true, t, nil
}

// Abort aborts transaction id unless it is committed; aborting twice is harmless.
func (s *Store) Abort(writer string, id string, reason string) (applied bool, err error) {
	t, ok := s.txns[id]
	if !ok {
		return false, fmt.Errorf("%w: %s", ErrUnknownTxn, id)
	}
	if t.State == Committed {
		return false, fmt.Errorf("%w: abort of committed transaction %s", ErrTxnState, id)
	}
	if t.State == Aborted {
		return false, nil
	}
	s.abort(t, reason)
	return true, nil
}

func (s *Store) abort(t *Txn, reason string) {
	t.State = Aborted
	t.AbortReason = reason
	t.rows, t.records = nil, 0
}

// Expire aborts transaction id if it has timed out by nowNanos and is not finished, and
// fences its writer so that the incarnation that opened it cannot go on as if nothing
// happened. It reports whether it aborted the transaction.
func (s *Store) Expire(id string, nowNanos int64) bool {
	t, ok := s.txns[id]
	if !ok || t.State == Committed || t.State == Aborted {
		return false
	}
	deadline, ok := s.Deadline(t)
	if !ok || nowNanos < deadline {
		return false
	}
	s.abort(t, "timeout")
	if s.epochs[t.Writer] == t.Epoch {
		s.epochs[t.Writer]++
	}
	return true
}

// Recover finishes the transactions earlier incarnations of writer left behind when the
// incarnation at epoch restored a checkpoint: the prepared transactions in commit are
// committed (in the given order), and every other unfinished transaction of an older
// epoch is aborted. It returns what happened to each, in a fixed order: the commits as
// given, then the aborts by id. The incarnation's own transactions are left alone, so a
// retried Recover (its first answer lost) changes nothing more; a fenced incarnation's
// Recover does nothing.
func (s *Store) Recover(writer string, epoch uint64, commit []string) ([]Outcome, error) {
	if err := s.checkEpoch(writer, epoch); err != nil {
		return nil, err
	}
	var out []Outcome
	keep := make(map[string]bool, len(commit))
	for _, id := range commit {
		keep[id] = true
		applied, t, err := s.Commit(writer, id)
		out = append(out, Outcome{Txn: id, Commit: true, Applied: applied, T: t, Err: err})
	}
	for _, t := range s.writerTxns(writer) {
		if keep[t.ID] || t.Epoch >= epoch || t.State == Committed || t.State == Aborted {
			continue
		}
		s.abort(t, "recovery")
		out = append(out, Outcome{Txn: t.ID, Applied: true, T: t})
	}
	return out, nil
}

// Unfinished returns the transactions neither committed nor aborted, in id order: a store
// process that restarts arms their timeouts again.
func (s *Store) Unfinished() []*Txn {
	return s.txnsWhere(func(t *Txn) bool { return t.State == Open || t.State == Prepared })
}

// Outcome is what Recover did to one transaction.
type Outcome struct {
	Txn     string
	Commit  bool // a commit (else an abort)
	Applied bool // the state changed
	T       *Txn // nil if the id is unknown
	Err     error
}
