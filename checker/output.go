package checker

import (
	"strings"
	"sync"

	"github.com/ckptsim/ckptsim/trace"
)

// committedOutput is the content of the external store as the trace tells it: which records
// became visible, how often and with which value. Transactional sinks make a transaction's
// sink.write records (and the records listed by its sink.writes) visible at its sink.commit;
// idempotent sinks make a sink.upsert visible at once. Both output properties, liveness and sink visibility read it.
//
// Record ids are interned to dense indices on first sight, so the per-record work of a commit
// is slice arithmetic rather than map lookups: a trace of a million events replays in one
// pass with one map lookup per write. An expected record is interned when the trace first
// names it (its expectation looked up then), not all of them before the pass: records then
// lie in trace order, so the commits that follow touch them in order, and a trace that names
// every expected record (every passing one) never iterates the expectations at all.
type committedOutput struct {
	ids      recordIndex // record id -> index into records
	expected map[string]Expected
	unseen   int // expected records not interned yet
	records  []recordLog
	txns     map[string]*txnLog
	writes   []txnWrite // every record written (sink.write, sink.writes), chained per transaction
	// overflow is, per record index, the index of the commit or upsert that first made it
	// visible more often than expected; wrongValue the first commit that made a value other
	// than the expected one visible. Both are rare, so they are maps, made on first use.
	overflow   map[int]int
	wrongValue map[int]wrongValue
	judged     bool // there is an expectation to judge against
	// partial lists commits whose records attribute is neither 0 nor the transaction's size.
	partial []int
	// storeWrites lists every commit and upsert with the number of records it added to the
	// store, in trace order, for sink visibility.
	storeWrites []storeWrite
	// unfinished says why the job had not finished when the trace ends ("" if it had), so
	// that a record still missing then may yet come (unfinishedJob).
	unfinished string
}

// recordLog is what the trace says about one record id.
type recordLog struct {
	id         string
	want       Expected
	expected   bool   // the reference names it
	count      int    // times made visible
	value      string // value last made visible
	lastWrite  int    // index of its last sink.write or sink.writes, or -1
	lastUpsert int    // index of its last sink.upsert, or -1
}

// txnLog is what the trace says about one sink transaction. Its writes are chained through
// committedOutput.writes rather than kept in a slice of their own, which saves an allocation
// per transaction and the copying of growing slices.
type txnLog struct {
	size        int // records written into it (a sink.writes counts each record it lists)
	first, last int // its first and last write in committedOutput.writes, or -1
	effective   int // commits that made its records visible
	zeroCommit  int // index of a commit that made nothing visible, or -1
	abort       int // index of its sink.abort, or -1
}

type txnWrite struct {
	record int    // index into committedOutput.records
	value  string // the value written
	next   int    // the transaction's next write, or -1
}

// wrongValue is the first commit that made an unexpected value of a record visible.
type wrongValue struct {
	index int
	value string
}

type storeWrite struct {
	index   int   // the sink.commit or sink.upsert
	records int64 // records it made visible
}

// commitEffect decides whether a sink.commit made its transaction's records visible. A
// commit that reports records > 0 did (a repeated commit that reports records again adds them
// again: that is what a non-idempotent commit looks like); one that reports records = 0 did
// not (a repeated idempotent commit, or a store that had dropped the transaction, as when it
// times out). A commit without the attribute is assumed idempotent: only the first counts.
func commitEffect(e *trace.Event, txn *txnLog) bool {
	if records, ok := intAttr(e, trace.AttrRecords); ok {
		return records > 0
	}
	return txn.effective == 0
}

// sinkKinds are the kinds the replay reacts to; writeKinds those that write records.
var (
	writeKinds = kindsOf(trace.KindSinkWrite, trace.KindSinkWrites)
	sinkKinds  = writeKinds | kindsOf(trace.KindSinkAbort, trace.KindSinkCommit, trace.KindSinkUpsert)
)

// replay memoizes the replay of one trace's sinks, so that Check replays them once for all
// the properties that need it. The properties may run concurrently, so the replay is made
// under a sync.Once.
type replay struct {
	output func() *committedOutput
}

func newReplay(ix *traceIndex, ref Reference) *replay {
	return &replay{output: sync.OnceValue(func() *committedOutput {
		out := replayOutput(ix, ref.Output, true)
		out.unfinished = unfinishedJob(ix)
		return out
	})}
}

// replayOutput replays the sink events of events. expected may be nil. Without perRecord,
// writes are only counted per transaction (enough for the store's record count, which is all
// sink visibility needs) and records, overflow and wrongValue stay empty except for upserts.
func replayOutput(ix *traceIndex, expected map[string]Expected, perRecord bool) *committedOutput {
	events := ix.events
	out := &committedOutput{
		ids:      newRecordIndex(len(expected)),
		expected: expected,
		unseen:   len(expected),
		records:  make([]recordLog, 0, len(expected)),
		txns:     make(map[string]*txnLog),
		judged:   expected != nil,
	}
	if perRecord {
		out.writes = make([]txnWrite, 0, countWrites(ix))
	}
	// Writes of one transaction come in runs, so the last transaction looked up is cached.
	var lastTxnID string
	var lastTxn *txnLog
	txnOf := func(id string) *txnLog {
		if lastTxn != nil && id == lastTxnID {
			return lastTxn
		}
		txn := out.txns[id]
		if txn == nil {
			txn = &txnLog{first: -1, last: -1, zeroCommit: -1, abort: -1}
			out.txns[id] = txn
		}
		lastTxnID, lastTxn = id, txn
		return txn
	}
	for i := range ix.only(sinkKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindSinkWrite:
			txn := txnOf(e.Txn)
			txn.size++
			if perRecord {
				out.write(txn, i, e.RID, writeValue(e))
			}
		case trace.KindSinkWrites:
			// The records listed, in order, as if each had its own sink.write.
			txn := txnOf(e.Txn)
			rids, _ := e.Attr(trace.AttrRIDs)
			values, _ := e.Attr(trace.AttrValues)
			for rids != "" {
				var rid, value string
				rid, rids = cutItem(rids)
				value, values = cutItem(values)
				txn.size++
				if perRecord {
					out.write(txn, i, rid, value)
				}
			}
		case trace.KindSinkAbort:
			txnOf(e.Txn).abort = i
		case trace.KindSinkCommit:
			out.commit(events, i, txnOf(e.Txn))
		case trace.KindSinkUpsert:
			out.upsert(i, e)
		}
	}
	if out.unseen > 0 {
		// Expected records the trace never names: lost, and judged as such.
		for id := range expected {
			out.intern(id)
		}
	}
	return out
}

// upsert replays the sink.upsert e at index i: its record is visible from its first
// upsert on, and a later one changes only its value.
func (out *committedOutput) upsert(i int, e *trace.Event) {
	k := out.intern(e.RID)
	r := &out.records[k]
	var added int64
	if r.count == 0 {
		added = 1
		out.makeVisible(k, writeValue(e), i, false)
	} else {
		r.value = writeValue(e)
	}
	r.lastUpsert = i
	out.storeWrites = append(out.storeWrites, storeWrite{index: i, records: added})
}

// cutItem returns the first item of a list attribute and the rest of the list after its
// separator, as strings.Cut(list, trace.ListSeparator) does. The replay cuts every record
// of a sink.writes out of two lists, and a search for the separator's one byte is a third
// of the instructions of strings.Cut's search for a string.
func cutItem(list string) (item, rest string) {
	if i := strings.IndexByte(list, listSeparator); i >= 0 {
		return list[:i], list[i+1:]
	}
	return list, ""
}

// listSeparator is trace.ListSeparator, which is one byte (a test checks it).
const listSeparator = ' '

// countWrites returns how many records the sinks of events write, so that the replay sizes
// its log of writes once instead of growing (and copying) it step by step.
func countWrites(ix *traceIndex) int {
	n := 0
	for i := range ix.only(writeKinds) {
		switch e := &ix.events[i]; e.Kind {
		case trace.KindSinkWrite:
			n++
		case trace.KindSinkWrites:
			if rids, _ := e.Attr(trace.AttrRIDs); rids != "" {
				n += 1 + strings.Count(rids, trace.ListSeparator)
			}
		}
	}
	return n
}

// write chains a write of record rid with value, by event index, into txn.
func (out *committedOutput) write(txn *txnLog, index int, rid, value string) {
	k := out.intern(rid)
	out.records[k].lastWrite = index
	w := len(out.writes)
	out.writes = append(out.writes, txnWrite{record: k, value: value, next: -1})
	if txn.last >= 0 {
		out.writes[txn.last].next = w
	} else {
		txn.first = w
	}
	txn.last = w
}

// intern returns the index of record id, adding it on first sight.
func (out *committedOutput) intern(id string) int {
	k, free, tag := out.ids.find(out.records, id)
	if k >= 0 {
		return k
	}
	k = len(out.records)
	r := recordLog{id: id, lastWrite: -1, lastUpsert: -1}
	if want, ok := out.expected[id]; ok {
		r.want, r.expected = want, true
		out.unseen--
	}
	out.records = append(out.records, r)
	out.ids.add(out.records, free, tag, k)
	return k
}

func (out *committedOutput) commit(events []trace.Event, i int, txn *txnLog) {
	e := &events[i]
	if !commitEffect(e, txn) {
		if txn.effective == 0 && txn.zeroCommit < 0 {
			txn.zeroCommit = i
		}
		out.storeWrites = append(out.storeWrites, storeWrite{index: i})
		return
	}
	txn.effective++
	records := int64(txn.size)
	if n, ok := intAttr(e, trace.AttrRecords); ok {
		if n != records {
			out.partial = append(out.partial, i)
		}
		records = n
	}
	for w := txn.first; w >= 0; w = out.writes[w].next {
		write := &out.writes[w]
		out.makeVisible(write.record, write.value, i, true)
	}
	out.storeWrites = append(out.storeWrites, storeWrite{index: i, records: records})
}

// makeVisible counts one more visible copy of record k, made visible by event index.
func (out *committedOutput) makeVisible(k int, value string, index int, checkValue bool) {
	r := &out.records[k]
	r.count++
	r.value = value
	if !out.judged {
		return
	}
	if r.count > r.want.Count {
		if _, seen := out.overflow[k]; !seen {
			if out.overflow == nil {
				out.overflow = make(map[int]int)
			}
			out.overflow[k] = index
		}
	}
	if checkValue && r.expected && value != r.want.Value {
		if _, seen := out.wrongValue[k]; !seen {
			if out.wrongValue == nil {
				out.wrongValue = make(map[int]wrongValue)
			}
			out.wrongValue[k] = wrongValue{index: index, value: value}
		}
	}
}

func writeValue(e *trace.Event) string {
	v, _ := e.Attr(trace.AttrValue)
	return v
}
