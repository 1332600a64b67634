package engine

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
)

// A task of a rescaled job restores from the snapshots of the earlier job's tasks whose
// state it takes over (rescaleSources), each read as a task reads its own, and combines
// them: keyed state narrowed to the task's key groups, a source's partitions with their
// offsets from the union of all the earlier sources' (union.go), a two-phase-commit sink's
// own transactions and those of the tasks it adopts.
// Every channel of the new job is new, so its counts start at zero, and the old channels'
// state goes to the tasks that now receive it (restore_channels.go). task.restore names
// the snapshots read (rescaled-from, trace.TaskRestoreRescaled) and, for a task keyed by
// key group, the groups it owns, which is what the rule "every key group restored once"
// judges (a source's union entries and replayed channel state are judged likewise).

// startRescaled reads the earlier job's snapshots the task takes state from, then those
// it takes only channel state from, then restores.
func (t *task) startRescaled(restore *protocol.CompletedCheckpoint) {
	olds, err := t.rescaleSources(restore)
	if err != nil {
		t.breakContract(restore.ID, contractRestore, err.Error())
		return
	}
	got := make([]*snapshotData, 0, len(olds))
	read := map[string]*snapshotData{}
	var channels []string
	for _, id := range t.channelSources(restore) {
		if !slices.Contains(olds, id) {
			channels = append(channels, id)
		}
	}
	var next func(i int)
	next = func(i int) {
		switch {
		case i == len(olds)+len(channels):
			t.restoreRescaled(restore, olds, got, read)
		case i < len(olds):
			snap, _ := restore.Snapshot(protocol.TaskID(olds[i]))
			t.readOld(restore.ID, olds[i], snap, func(d *snapshotData) {
				got, read[d.task] = append(got, d), d
				next(i + 1)
			})
		default:
			snap, _ := restore.Snapshot(protocol.TaskID(channels[i-len(olds)]))
			t.readDecoded(restore.ID, channels[i-len(olds)], snap, func(d *snapshotData) {
				read[d.task] = d
				next(i + 1)
			})
		}
	}
	next(0)
}

// rescaleSources returns the earlier job's tasks whose snapshots in restore the task
// takes state from, in index order.
func (t *task) rescaleSources(restore *protocol.CompletedCheckpoint) ([]string, error) {
	op, idx := t.plan.op, t.plan.index
	from := oldParallelism(restore, op.Name)
	if from == 0 {
		return nil, fmt.Errorf("the restored checkpoint holds no snapshot of operator %s", op.Name)
	}
	var olds []int
	switch l := op.Logic.(type) {
	case Aggregate:
		groups := max(t.rt.cfg.Graph.MaxParallelism, op.Parallelism)
		olds = protocol.RescaledFrom(groups, from, op.Parallelism)[idx]
	case Source:
		if l.Enumerated {
			olds = []int{idx}
			break
		}
		for j := range from { // union state: every task is given all of it
			olds = append(olds, j)
		}
	case Sink:
		for j := idx; j < from && l.Type == TwoPhaseCommit; j += op.Parallelism {
			olds = append(olds, j)
		}
	}
	names := make([]string, len(olds))
	for i, j := range olds {
		names[i] = TaskID(op.Name, j)
	}
	return names, nil
}

// readOld reads task old's snapshot snap for checkpoint cp, its shared pieces merged into
// its keyed state, and hands it to done; a failed read fails the task.
func (t *task) readOld(cp protocol.CheckpointID, old string, snap protocol.TaskSnapshot, done func(*snapshotData)) {
	t.readDecoded(cp, old, snap, func(d *snapshotData) {
		t.readShared(snap, func(pieces [][]byte) {
			state, err := mergedPieces(d.operator, pieces)
			if err != nil {
				t.fail("restore: " + old + ": " + err.Error())
				return
			}
			d.operator = state
			done(d)
		})
	})
}

// readDecoded reads and decodes task old's snapshot snap for checkpoint cp, without its
// shared pieces, and hands it to done; a failed read fails the task.
func (t *task) readDecoded(cp protocol.CheckpointID, old string, snap protocol.TaskSnapshot, done func(*snapshotData)) {
	decoded := func(data []byte, err error) {
		var d *snapshotData
		if err == nil {
			d, err = decodeSnapshot(t.rt.plan.catalog, data)
		}
		if err == nil && (d.task != old || d.cp != uint64(cp)) {
			err = fmt.Errorf("engine: state under %s is %s's for %d, restoring %s's for %d", handleName(snap.Handle), d.task, d.cp, old, cp)
		}
		if err != nil {
			t.fail("restore: " + err.Error())
			return
		}
		done(d)
	}
	if data, ok := inlineState(snap.Handle); ok {
		decoded(data, nil)
		return
	}
	t.proc.Read(snap.Handle, decoded)
}

// mergedPieces is the keyed state of a snapshot: its own encoding, or the pieces of an
// incremental one merged.
func mergedPieces(own []byte, pieces [][]byte) ([]byte, error) {
	if len(pieces) == 0 {
		return own, nil
	}
	var state []pair
	for _, data := range pieces {
		pairs, err := decodePairs(data)
		if err != nil {
			return nil, err
		}
		state = merged(state, pairs)
	}
	return encodePairs(state), nil
}

// restoreRescaled combines the snapshots read (got, of tasks olds) into the task's state,
// takes its share of the channel state of those read (read, by task) and goes on as a
// restore of the task's own snapshot does.
func (t *task) restoreRescaled(restore *protocol.CompletedCheckpoint, olds []string, got []*snapshotData, read map[string]*snapshotData) {
	cp := restore.ID
	d := &snapshotData{task: t.plan.id, cp: uint64(cp), sent: make([]int64, len(t.outputs)),
		recv: make([]int64, len(t.inputs)), channel: make([][]rec, len(t.inputs))}
	var err error
	switch l := t.plan.op.Logic.(type) {
	case Aggregate:
		d.operator, err = t.ownKeys(got, oldParallelism(restore, t.plan.op.Name))
	case Source:
		d.offsets, err = t.ownOffsets(l, got)
	case Sink:
		t.sink.adopted = t.adoptedWriters(got)
		for _, o := range got {
			if o.task == t.plan.id {
				d.twoPhase = o.twoPhase
			}
		}
	}
	if err == nil && t.inc != nil {
		err = t.seedRuns(cp, d.operator)
	}
	if err == nil {
		err = t.apply(d)
	}
	if err != nil {
		t.fail("restore: " + err.Error())
		return
	}
	r := &rescaledRestore{from: olds}
	if t.plan.union != "" {
		r.kept = partitionEntries(t.plan.index, t.plan.op.Parallelism, d.offsets)
	}
	if t.rt.plan.overtaking {
		if r.adopted, r.replayed, err = t.adoptChannelState(restore, read); err != nil {
			t.fail("restore: " + err.Error())
			return
		}
	}
	t.rescaled = r
	if t.sink != nil {
		t.sink.recover(d, cp, func() { t.running(cp, protocol.TaskSnapshot{}, d, true) })
		return
	}
	t.running(cp, protocol.TaskSnapshot{}, d, true)
}

// seedRuns makes keyed state restored by a rescale the incremental task's one run, a
// piece of no checkpoint yet: the state is new to the snapshot store, so the task builds
// on no piece. A task without a key starts with no run, as a fresh one does (a piece of
// no pairs would read back as no state at all).
func (t *task) seedRuns(cp protocol.CheckpointID, state []byte) error {
	pairs, err := decodePairs(state)
	if err != nil || len(pairs) == 0 {
		return err
	}
	_, err = t.inc.restored(cp, true, make([]protocol.SharedPiece, 1), [][]byte{state})
	return err
}

// ownKeys merges the keyed state of got, keeping the keys of the task's key groups.
func (t *task) ownKeys(got []*snapshotData, from int) ([]byte, error) {
	if from == t.plan.op.Parallelism {
		return got[0].operator, nil // its own state: the operator was not rescaled
	}
	groups := max(t.rt.cfg.Graph.MaxParallelism, t.plan.op.Parallelism)
	own := protocol.KeyGroupRangeOf(t.plan.index, groups, t.plan.op.Parallelism)
	var state []pair
	for _, o := range got {
		pairs, err := decodePairs(o.operator)
		if err != nil {
			return nil, fmt.Errorf("engine: %s: keyed state of %s: %w", t.plan.id, o.task, err)
		}
		pairs = slices.DeleteFunc(pairs, func(p pair) bool {
			return !own.Contains(protocol.KeyGroupOf(keyHash(p.key), groups))
		})
		state = merged(state, pairs)
	}
	return encodePairs(state), nil // an aggregate's state, even without a key, says so
}

// adoptedWriters returns the earlier job's sinks, other than the task's namesake, whose
// transactions the task finishes: their pending ones committed, every other aborted.
func (t *task) adoptedWriters(got []*snapshotData) []adoptedWriter {
	var out []adoptedWriter
	for _, o := range got {
		if o.task == t.plan.id {
			continue
		}
		out = append(out, adoptedWriter{writer: o.task, state: o.twoPhase})
	}
	return out
}
