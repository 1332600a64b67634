package engine

import (
	"fmt"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// snapshotData is everything one task's snapshot holds. Its encoding is the uploaded state,
// and the digest of its encoding is the `state` attribute of snapshot.taken and
// task.restore.
type snapshotData struct {
	task     string
	cp       uint64
	operator []byte  // the operator's own encoding (keyed state); empty if stateless
	offsets  []int64 // a source's next offset per assigned partition
	sent     []int64 // records sent per output channel, in plan order
	recv     []int64 // records consumed per input channel, in plan order
	channel  [][]rec
	// output is, per output channel, the records an unaligned barrier overtook in the
	// sender's queue: not counted in sent, and emitted again first on restore.
	output [][]rec
	// overtaken counts, per output channel, the records an unaligned barrier overtook,
	// whether or not output holds them. It is not part of the state: snapshot.taken adds it
	// to sent (the records were sent before the snapshot) and shows output's length beside
	// it, so that a checker can see records that ought to be in output and are not.
	overtaken []int64
	// twoPhase is the two-phase-commit helper's state of a 2PC sink.
	twoPhase protocol.TwoPhaseCommitState
	kind     *KindState // a JobKind task's own state
}

const snapshotFormat = "ckptsim.engine.snapshot.v1"

// encode renders the snapshot; records are written in full (ids and keys as strings, from
// catalog c), so the encoding and its digest do not depend on the catalog's numbering.
func (d *snapshotData) encode(c *catalog) []byte {
	var w stateWriter
	d.encodeInto(&w, c)
	return w.bytes()
}

// encodeInto appends the encoding of the snapshot to what w holds.
func (d *snapshotData) encodeInto(w *stateWriter, c *catalog) {
	w.grow(64 + len(d.task) + len(d.operator) + 10*(len(d.offsets)+len(d.sent)+len(d.recv)) + len(d.twoPhase.Current) +
		24*len(d.twoPhase.Pending))
	w.tag(snapshotFormat)
	w.string(d.task)
	w.uint(d.cp)
	w.byteString(d.operator)
	w.uint(uint64(len(d.offsets)))
	for _, o := range d.offsets {
		w.int(o)
	}
	w.uint(uint64(len(d.sent)))
	for _, n := range d.sent {
		w.int(n)
	}
	w.uint(uint64(len(d.recv)))
	for _, n := range d.recv {
		w.int(n)
	}
	w.uint(uint64(len(d.channel)))
	for _, recs := range d.channel {
		w.uint(uint64(len(recs)))
		for _, r := range recs {
			w.compactRecord(c, r)
		}
	}
	w.uint(uint64(len(d.output)))
	for _, recs := range d.output {
		w.uint(uint64(len(recs)))
		for _, r := range recs {
			w.compactRecord(c, r)
		}
	}
	w.uint(uint64(len(d.twoPhase.Pending)))
	for _, p := range d.twoPhase.Pending {
		w.uint(uint64(p.Checkpoint))
		w.string(string(p.Transaction))
	}
	w.string(string(d.twoPhase.Current))
	if d.kind == nil {
		w.uint(0)
	} else {
		w.uint(1)
		d.kind.encode(w)
	}
}

func decodeSnapshot(c *catalog, data []byte) (*snapshotData, error) {
	r := &stateReader{buf: data}
	r.expect(snapshotFormat)
	d := &snapshotData{task: r.string(), cp: r.uint()}
	d.operator = []byte(r.string())
	if len(d.operator) == 0 {
		d.operator = nil
	}
	d.offsets = make([]int64, r.count())
	for i := range d.offsets {
		d.offsets[i] = r.int()
	}
	d.sent = make([]int64, r.count())
	for i := range d.sent {
		d.sent[i] = r.int()
	}
	d.recv = make([]int64, r.count())
	for i := range d.recv {
		d.recv[i] = r.int()
	}
	d.channel = make([][]rec, r.count())
	for i := range d.channel {
		d.channel[i] = r.compactRecords(c)
	}
	if n := r.count(); n > 0 {
		d.output = make([][]rec, n)
		for i := range d.output {
			d.output[i] = r.compactRecords(c)
		}
	}
	if n := r.count(); n > 0 {
		d.twoPhase.Pending = make([]protocol.PendingTransaction, n)
		for i := range d.twoPhase.Pending {
			d.twoPhase.Pending[i] = protocol.PendingTransaction{
				Checkpoint:  protocol.CheckpointID(r.uint()),
				Transaction: protocol.TransactionID(r.string()),
			}
		}
	}
	d.twoPhase.Current = protocol.TransactionID(r.string())
	if r.uint() == 1 {
		d.kind = decodeKindState(r)
	}
	if err := r.done(); err != nil {
		return nil, fmt.Errorf("engine: decoding snapshot: %w", err)
	}
	return d, nil
}

// stateKey is the storage key of a task's snapshot for checkpoint cp.
func stateKey(task string, cp protocol.CheckpointID) string {
	var key [64]byte
	return string(appendStateKey(key[:0], task, cp))
}

// appendStateKey appends stateKey(task, cp) to dst.
func appendStateKey(dst []byte, task string, cp protocol.CheckpointID) []byte {
	dst = append(dst, StatePrefix...)
	dst = trace.AppendUint(dst, uint64(cp))
	dst = append(dst, '/')
	return append(dst, task...)
}
