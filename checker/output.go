package checker

import (
	"github.com/ckptsim/ckptsim/trace"
)

// committedOutput is the content of the external store as the trace tells it: which records
// became visible, how often and with which value. Transactional sinks make a transaction's
// sink.write records visible at its sink.commit; idempotent sinks make a sink.upsert visible
// at once. Both output properties, liveness and sink visibility read it.
type committedOutput struct {
	counts map[string]int    // record id -> times made visible
	values map[string]string // record id -> value last made visible
	txns   map[string]*txnLog
	// lastWrite is the index of the last sink.write of each record id, for explaining losses.
	lastWrite map[string]int
	// lastUpsert is the index of the last sink.upsert of each record id.
	lastUpsert map[string]int
	// overflow is, per record id, the index of the commit or upsert that first made it visible
	// more often than expected; wrongValue the first that made a value other than the
	// expected one visible through a commit. Both need an expectation and stay empty without.
	overflow   map[string]int
	wrongValue map[string]wrongValue
	// partial lists commits whose records attribute is neither 0 nor the transaction's size.
	partial []int
	// storeWrites lists every commit and upsert with the number of records it added to the
	// store, in trace order, for sink visibility.
	storeWrites []storeWrite
}

// txnLog is what the trace says about one sink transaction.
type txnLog struct {
	writes     []int // indices of its sink.write events
	effective  int   // commits that made its records visible
	zeroCommit int   // index of a commit that made nothing visible, or -1
	abort      int   // index of its sink.abort, or -1
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

// replayOutput replays the sink events of events. expected may be nil.
func replayOutput(events []trace.Event, expected map[string]Expected) *committedOutput {
	out := &committedOutput{
		counts:     make(map[string]int),
		values:     make(map[string]string),
		txns:       make(map[string]*txnLog),
		lastWrite:  make(map[string]int),
		lastUpsert: make(map[string]int),
		overflow:   make(map[string]int),
		wrongValue: make(map[string]wrongValue),
	}
	txnOf := func(id string) *txnLog {
		txn := out.txns[id]
		if txn == nil {
			txn = &txnLog{zeroCommit: -1, abort: -1}
			out.txns[id] = txn
		}
		return txn
	}
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindSinkWrite:
			txn := txnOf(e.Txn)
			txn.writes = append(txn.writes, i)
			out.lastWrite[e.RID] = i
		case trace.KindSinkAbort:
			txnOf(e.Txn).abort = i
		case trace.KindSinkCommit:
			txn := txnOf(e.Txn)
			if !commitEffect(e, txn) {
				if txn.effective == 0 && txn.zeroCommit < 0 {
					txn.zeroCommit = i
				}
				out.storeWrites = append(out.storeWrites, storeWrite{index: i})
				continue
			}
			txn.effective++
			if records, ok := intAttr(e, trace.AttrRecords); ok && records != int64(len(txn.writes)) {
				out.partial = append(out.partial, i)
			}
			for _, w := range txn.writes {
				out.makeVisible(events[w].RID, writeValue(&events[w]), i, expected, true)
			}
			records := int64(len(txn.writes))
			if n, ok := intAttr(e, trace.AttrRecords); ok {
				records = n
			}
			out.storeWrites = append(out.storeWrites, storeWrite{index: i, records: records})
		case trace.KindSinkUpsert:
			var added int64
			if out.counts[e.RID] == 0 {
				added = 1
				out.makeVisible(e.RID, writeValue(e), i, expected, false)
			} else {
				out.values[e.RID] = writeValue(e)
			}
			out.lastUpsert[e.RID] = i
			out.storeWrites = append(out.storeWrites, storeWrite{index: i, records: added})
		}
	}
	return out
}

// makeVisible counts one more visible copy of rid, made visible by event index.
func (out *committedOutput) makeVisible(rid, value string, index int, expected map[string]Expected, checkValue bool) {
	out.counts[rid]++
	out.values[rid] = value
	if expected == nil {
		return
	}
	want, ok := expected[rid]
	if out.counts[rid] > want.Count {
		if _, seen := out.overflow[rid]; !seen {
			out.overflow[rid] = index
		}
	}
	if checkValue && ok && value != want.Value {
		if _, seen := out.wrongValue[rid]; !seen {
			out.wrongValue[rid] = wrongValue{index: index, value: value}
		}
	}
}

func writeValue(e *trace.Event) string {
	v, _ := e.Attr(trace.AttrValue)
	return v
}
