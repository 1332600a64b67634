// Package extstore is a simulated external transactional store: the system a sink writes
// its output to, in the style of Kafka transactions. It is a plain data structure that the
// caller steps with the current virtual time; the engine runs it inside its own process and
// puts network latency around it.
//
// A writer (one sink task) opens transactions, writes records into them, pre-commits
// (prepares) them and later commits or aborts them. Only committed records are visible to
// readers. Two features make it a realistic target for exactly-once sinks:
//
//   - A transaction timeout: a transaction neither committed nor aborted within the timeout
//     of its begin is aborted by the store, and its writer is fenced (its epoch is bumped),
//     so the writer's later operations fail. A sink that restores a checkpoint and tries to
//     commit a prepared transaction the store already aborted has lost that data: the classic
//     exactly-once data-loss trap when the timeout is shorter than checkpoint interval plus
//     recovery time.
//   - Transient commit failures, injected by a fault, after which the commit can be retried.
//
// Besides transactions it keeps an upsert table (records by id; rewriting an id with its
// value changes nothing a reader sees) and an append log (every append is visible at once).
// Readers see one number, the count of visible records, which must only grow.
package extstore

import (
	"errors"
	"fmt"
	"strconv"
)

// Errors returned by Store operations. They are expected outcomes, not bugs.
var (
	// ErrFenced: the writer's epoch is older than the store's (a newer incarnation has
	// initialised, or a timeout fenced it).
	ErrFenced = errors.New("extstore: writer fenced")
	// ErrAborted: the transaction was aborted (by timeout, by its writer, or by recovery).
	ErrAborted = errors.New("extstore: transaction aborted")
	// ErrUnknownTxn: no transaction has this id.
	ErrUnknownTxn = errors.New("extstore: unknown transaction")
	// ErrTxnState: the operation does not fit the transaction's state (a write into a
	// prepared transaction, a commit of an open one).
	ErrTxnState = errors.New("extstore: operation not allowed in this transaction state")
	// ErrTransient: an injected transient failure; retrying may succeed.
	ErrTransient = errors.New("extstore: transient failure")
	// ErrIncomplete: the store applied fewer of a writer's records than the writer sent:
	// some were lost on the way (the store was down).
	ErrIncomplete = errors.New("extstore: records lost on the way")
)

// TxnState is where a transaction is in its life.
type TxnState uint8

const (
	Open TxnState = iota + 1
	Prepared
	Committed
	Aborted
)

func (s TxnState) String() string {
	switch s {
	case Open:
		return "open"
	case Prepared:
		return "prepared"
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return fmt.Sprintf("TxnState(%d)", uint8(s))
}

// Row is one visible record.
type Row struct {
	RID    string
	Value  int64
	Writer string
	Txn    string // "" for upserts and appends
}

// Txn is the store's view of one transaction.
type Txn struct {
	ID          string
	Writer      string
	Epoch       uint64
	State       TxnState
	Checkpoint  uint64 // set by Prepare
	BeginNanos  int64
	AbortReason string
	// rows are the written records, one slice per write, kept as the writer passed them
	// (WriteRefs) so that writing copies nothing; records counts them.
	rows      [][]Ref
	records   int
	committed int // records made visible by the commit
}

// Records returns how many records the transaction holds (or, once committed, made
// visible).
func (t *Txn) Records() int {
	if t.State == Committed {
		return t.committed
	}
	return t.records
}

// Limits that keep a run's memory bounded.
const (
	MaxTxnRecords = 1 << 20
	MaxTxns       = 1 << 20
)

// Store is the external store. Not safe for concurrent use.
type Store struct {
	timeoutNanos int64
	txns         map[string]*Txn
	epochs       map[string]uint64 // writer -> current epoch
	// chunks hold committed transactional rows and appends, in the order they became
	// visible: a commit adds its transaction's rows, without copying them.
	chunks  []chunk
	visible int64 // rows in chunks
	// origins name the record ids of Refs (see SetOrigins); named holds the ids of records
	// written by name (Write, Append), which their Refs point into.
	origins     []string
	named       []string
	upserts     map[string]int // rid -> index in upsertRows
	upsertRows  []Row          // the upsert table in first-write order
	failCommits int
	commitHook  func(writer, txn string) bool
	writeHook   func(writer string) WriteFault
	writers     map[string]*writerSession
}

// writerSession is what the store knows of a writer's current incarnation (session).
type writerSession struct {
	session uint64
	// plain is where the last batch of the session's records written outside transactions
	// (upserts and appends) ended; lost is set once a batch did not start there, and
	// lostFrom is the first record that may be missing (see Received).
	plain    int64
	lost     bool
	lostFrom int64
}

// New returns an empty store whose transactions time out after timeoutNanos (0: never).
func New(timeoutNanos int64) *Store {
	if timeoutNanos < 0 {
		panic(fmt.Sprintf("extstore: negative timeout %d", timeoutNanos))
	}
	return &Store{
		timeoutNanos: timeoutNanos,
		txns:         make(map[string]*Txn),
		epochs:       make(map[string]uint64),
		upserts:      make(map[string]int),
		writers:      make(map[string]*writerSession),
	}
}

// SetTxnTimeout changes the timeout of transactions begun from now on (0: never).
func (s *Store) SetTxnTimeout(nanos int64) {
	if nanos < 0 {
		panic(fmt.Sprintf("extstore: negative timeout %d", nanos))
	}
	s.timeoutNanos = nanos
}

// TxnTimeout returns the timeout of new transactions in nanoseconds (0: never).
func (s *Store) TxnTimeout() int64 { return s.timeoutNanos }

// FailCommits makes the next n commit attempts fail with ErrTransient.
func (s *Store) FailCommits(n int) { s.failCommits += n }

// SetCommitHook installs fn, asked at every commit attempt of a prepared transaction: true
// fails the attempt with ErrTransient. nil removes it.
func (s *Store) SetCommitHook(fn func(writer, txn string) bool) { s.commitHook = fn }

// Visible returns how many records a reader sees now.
func (s *Store) Visible() int64 { return s.visible + int64(len(s.upsertRows)) }

// Rows returns the visible records: committed transactional rows and appends in the order
// they became visible, then the upsert table in first-write order.
func (s *Store) Rows() []Row {
	rows := make([]Row, 0, s.Visible())
	for _, c := range s.chunks {
		for _, r := range c.cells {
			rows = append(rows, Row{RID: s.rid(r), Value: r.Value, Writer: c.writer, Txn: c.txn})
		}
	}
	return append(rows, s.upsertRows...)
}

// Ref is a record written into a transaction in compact form: its id is the origin's
// prefix (SetOrigins) followed by Seq in decimal, rendered only when Rows reads it. A writer
// that holds its records this way writes them without making a string per record, and the
// store keeps them without a pointer per record for the garbage collector to follow.
type Ref struct {
	Origin uint32
	Seq    int64
	Value  int64
}

// namedOrigin marks a Ref whose id was given as a string: Seq indexes Store.named.
const namedOrigin = ^uint32(0)

// SetOrigins sets the prefixes Ref.Origin indexes. Set them before the first WriteRefs;
// the engine sets them once per job.
func (s *Store) SetOrigins(prefixes []string) {
	if len(prefixes) >= int(namedOrigin) {
		panic(fmt.Sprintf("extstore: %d origins", len(prefixes)))
	}
	s.origins = prefixes
}

// rid renders the id of r.
func (s *Store) rid(r Ref) string {
	if r.Origin == namedOrigin {
		return s.named[r.Seq]
	}
	return s.origins[r.Origin] + strconv.FormatInt(r.Seq, 10)
}

// name returns the Ref of a record written by name.
func (s *Store) name(rid string, value int64) Ref {
	s.named = append(s.named, rid)
	return Ref{Origin: namedOrigin, Seq: int64(len(s.named) - 1), Value: value}
}

// chunk is a run of visible records with one writer and transaction ("" for appends).
type chunk struct {
	writer, txn string
	cells       []Ref
}

// Txn returns the transaction called id, or nil.
func (s *Store) Txn(id string) *Txn { return s.txns[id] }
