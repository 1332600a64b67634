package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// Incremental snapshots (Config.Incremental) keep a task's keyed state as runs, the way an
// LSM tree keeps sorted files: each snapshot adds a run of the keys whose values changed
// since the one before, and once there are more than Config.CompactAfter runs the task
// merges them into one. A run is immutable and is uploaded as one shared piece
// (protocol.SharedPiece); a later snapshot refers to that piece again instead of
// uploading the run anew, but only when the run's piece belongs to the newest checkpoint
// the task heard completed. A pending checkpoint's pieces may go with its abort, and
// a savepoint reuses nothing: it belongs to the user. Restoring reads the runs in order,
// later values over earlier ones.
//
// Keyed state never loses a key (a key's value changes, the key stays), so a run needs no
// tombstones.
//
// The storage faults of shared state do little harm here by design: a piece's key is
// unique to its upload and an upload is never retried under it, so an upload that lands
// twice writes the same bytes twice; nothing lists the storage (the pieces to keep and to
// delete come from the checkpoints and the protocol's releases), so a slow listing slows
// nothing; a delete that fails or is lost is issued again until it took effect
// (deleteDurably).

// pair is one key's value, what a run holds.
type pair struct {
	key   string
	value int64
}

// stateRun is one run of a task's keyed state.
type stateRun struct {
	data []byte // the run in keyed state's encoding
	// piece is the run's piece in the newest checkpoint the task heard completed, or the
	// zero piece when that checkpoint does not hold the run: the next snapshot uploads it.
	piece protocol.SharedPiece
}

// incremental is a task's local state for incremental snapshots.
type incremental struct {
	compactAfter int
	runs         []*stateRun
	last         []pair                // the keyed state at the previous snapshot
	heard        protocol.CheckpointID // the newest checkpoint heard completed
	// taken keeps, per snapshot of a checkpoint whose outcome is unknown, its runs and
	// their pieces (in the same order), so that a completion can make them the base.
	taken map[protocol.CheckpointID]takenRuns
}

type takenRuns struct {
	runs   []*stateRun
	pieces []protocol.SharedPiece
}

// pieceUpload is a piece a snapshot uploads: its handle and bytes.
type pieceUpload struct {
	piece protocol.SharedPiece
	data  []byte
}

func newIncremental(compactAfter int) *incremental {
	return &incremental{compactAfter: compactAfter, taken: map[protocol.CheckpointID]takenRuns{}}
}

// take adds the snapshot of checkpoint cp whose keyed state is encoded in operator (keyed
// state's encoding, or empty): it returns the pieces the snapshot refers to, in restore
// order, and those among them to upload.
func (inc *incremental) take(task string, cp protocol.CheckpointID, savepoint bool, operator []byte) ([]protocol.SharedPiece, []pieceUpload, error) {
	pairs, err := decodePairs(operator)
	if err != nil {
		return nil, nil, err
	}
	if delta := changed(inc.last, pairs); len(delta) > 0 {
		inc.runs = append(inc.runs, &stateRun{data: encodePairs(delta)})
	}
	if len(inc.runs) > inc.compactAfter {
		inc.runs = []*stateRun{{data: encodePairs(pairs)}}
	}
	inc.last = pairs
	pieces := make([]protocol.SharedPiece, len(inc.runs))
	var uploads []pieceUpload
	for i, r := range inc.runs {
		if r.piece.Handle != "" && !savepoint {
			pieces[i] = r.piece
			continue
		}
		pieces[i] = protocol.SharedPiece{Handle: pieceHandle(task, cp, i), Bytes: int64(len(r.data)), UploadedFor: cp}
		uploads = append(uploads, pieceUpload{piece: pieces[i], data: r.data})
	}
	if !savepoint {
		inc.taken[cp] = takenRuns{runs: append([]*stateRun(nil), inc.runs...), pieces: pieces}
	}
	return pieces, uploads, nil
}

// StatePrefix starts the storage key of all checkpoint state: snapshots and pieces.
const StatePrefix = "state/"

// PiecePrefix starts the storage key of every shared piece. Pieces live among the
// checkpoint state, so that storage faults on the state store hit them too.
const PiecePrefix = StatePrefix + "piece/"

// pieceHandle names the i-th piece task uploads for checkpoint cp: unique per upload, as
// a checkpoint's snapshot is taken once per task.
func pieceHandle(task string, cp protocol.CheckpointID, i int) string {
	return PiecePrefix + task + "/" + strconv.FormatUint(uint64(cp), 10) + "/" + strconv.Itoa(i)
}

// completed makes checkpoint cp's pieces the base of later snapshots, if it is newer than
// the base. A checkpoint this incarnation took no snapshot for leaves no base at all.
func (inc *incremental) completed(cp protocol.CheckpointID) {
	if cp <= inc.heard {
		return
	}
	inc.heard = cp
	for _, r := range inc.runs {
		r.piece = protocol.SharedPiece{}
	}
	if t, ok := inc.taken[cp]; ok {
		for i, r := range t.runs {
			r.piece = t.pieces[i]
		}
	}
	for id := range inc.taken {
		if id <= cp {
			delete(inc.taken, id)
		}
	}
}

// aborted forgets checkpoint cp's snapshot. If it reused pieces, the base it built on may
// have been released (the coordinator aborts such a checkpoint; the task is not told
// why): the next snapshot uploads every run afresh.
func (inc *incremental) aborted(cp protocol.CheckpointID) {
	t, ok := inc.taken[cp]
	delete(inc.taken, cp)
	if !ok {
		return
	}
	for _, p := range t.pieces {
		if p.UploadedFor != cp {
			for _, r := range inc.runs {
				r.piece = protocol.SharedPiece{}
			}
			return
		}
	}
}

// restored makes the runs read from the pieces of checkpoint cp the task's, with the
// pieces as their base unless they are not the job's to build on (notOwn: a savepoint's,
// or a checkpoint restored without claiming it), and returns the keyed state they add up
// to, in keyed state's encoding.
func (inc *incremental) restored(cp protocol.CheckpointID, notOwn bool, pieces []protocol.SharedPiece, data [][]byte) ([]byte, error) {
	inc.runs = inc.runs[:0]
	var state []pair
	for i, d := range data {
		pairs, err := decodePairs(d)
		if err != nil {
			return nil, fmt.Errorf("engine: piece %s: %w", pieces[i].Handle, err)
		}
		state = merged(state, pairs)
		r := &stateRun{data: d}
		if !notOwn {
			r.piece = pieces[i]
		}
		inc.runs = append(inc.runs, r)
	}
	inc.last, inc.heard = state, cp
	if len(state) == 0 {
		return nil, nil
	}
	return encodePairs(state), nil
}

// changed returns the pairs of now whose key is new or whose value differs in before;
// both are sorted by key.
func changed(before, now []pair) []pair {
	var delta []pair
	i := 0
	for _, p := range now {
		for i < len(before) && before[i].key < p.key {
			i++
		}
		if i < len(before) && before[i] == p {
			continue
		}
		delta = append(delta, p)
	}
	return delta
}

// merged returns base with the pairs of run over it, sorted by key.
func merged(base, run []pair) []pair {
	out := make([]pair, 0, len(base)+len(run))
	i, j := 0, 0
	for i < len(base) || j < len(run) {
		switch {
		case j == len(run) || i < len(base) && base[i].key < run[j].key:
			out = append(out, base[i])
			i++
		case i == len(base) || run[j].key < base[i].key:
			out = append(out, run[j])
			j++
		default:
			out = append(out, run[j])
			i++
			j++
		}
	}
	return out
}

// encodePairs writes pairs in keyed state's encoding (keyedState.snapshot).
func encodePairs(pairs []pair) []byte {
	var w stateWriter
	w.tag("keyed")
	w.uint(uint64(len(pairs)))
	for _, p := range pairs {
		w.string(p.key)
		w.int(p.value)
	}
	return w.bytes()
}

// decodePairs reads keyed state's encoding; empty data is no state.
func decodePairs(data []byte) ([]pair, error) {
	if len(data) == 0 {
		return nil, nil
	}
	r := &stateReader{buf: data}
	r.expect("keyed")
	pairs := make([]pair, r.count())
	for i := range pairs {
		pairs[i] = pair{key: r.string(), value: r.int()}
		if r.err == nil && i > 0 && pairs[i].key <= pairs[i-1].key {
			return nil, fmt.Errorf("engine: keyed state keys out of order: %q after %q", pairs[i].key, pairs[i-1].key)
		}
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return pairs, nil
}

// takeIncremental splits an incremental snapshot's keyed state off its data: it records the
// snapshot's runs, keeps the pieces to upload in ps.pieces, and re-encodes the rest of the
// data into the runtime's scratch buffer behind the inline prefix. It returns the pieces
// the snapshot refers to (none without Config.Incremental, or while the state is empty:
// then the data keeps the operator's encoding of its empty state, and nothing is split).
func (t *task) takeIncremental(ps *pendingSnapshot) []protocol.SharedPiece {
	if t.inc == nil {
		return nil
	}
	cp := ps.req.Checkpoint
	shared, uploads, err := t.inc.take(t.plan.id, cp, ps.req.Kind.IsSavepoint(), ps.data.operator)
	if err != nil {
		panic(invariantf("engine: %s: keyed state of snapshot %d: %v", t.plan.id, cp, err))
	}
	ps.pieces = uploads
	if len(shared) == 0 {
		return nil // no keyed state yet: the snapshot's data keeps its empty encoding
	}
	operator := ps.data.operator
	ps.data.operator = nil
	scratch := &t.rt.snapshotScratch
	scratch.buf = append(scratch.buf[:0], inlinePrefix...)
	ps.data.encodeInto(scratch, t.rt.plan.catalog)
	ps.data.operator = operator
	return shared
}

// deletePiece deletes a shared piece the task uploaded and no checkpoint took up.
func (t *task) deletePiece(p protocol.SharedPiece) {
	t.deleteKey(p.Handle)
	t.trace(trace.PieceRelease(t.plan.id, uint64(p.UploadedFor), p.Handle))
}

// withPieces adds the pieces attribute of snapshot.taken to attrs, in key order.
func withPieces(attrs []trace.Attr, pieces []protocol.SharedPiece) []trace.Attr {
	if len(pieces) == 0 {
		return attrs
	}
	handles := make([]string, len(pieces))
	for i, p := range pieces {
		handles[i] = p.Handle
	}
	return withAttr(attrs, trace.AttrPieces, strings.Join(handles, trace.ListSeparator))
}

// withAttr adds an attribute to attrs, which stay in key order.
func withAttr(attrs []trace.Attr, key, value string) []trace.Attr {
	attrs = append(attrs, trace.Attr{Key: key, Value: value})
	slices.SortFunc(attrs, func(a, b trace.Attr) int { return strings.Compare(a.Key, b.Key) })
	return attrs
}

func uploadedBytes(uploads []pieceUpload) int64 {
	var n int64
	for _, u := range uploads {
		n += u.piece.Bytes
	}
	return n
}
