package checker

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// The two rules of uploaded state, judged by PropStateRelease. State is what a task uploads
// for a snapshot and acknowledges (snapshot.ack); it goes when the engine releases it
// (state.release, task and the checkpoint the snapshot was taken for). The names are those
// of the specification's table.
const (
	ruleStateKept     = "state.kept"
	ruleStateReleased = "state.released"
)

// StateRelease checks what becomes of uploaded state, as Flink's checkpoint coordinator and
// completed-checkpoint store decide it. A snapshot is held by a completed checkpoint whose
// cut names it (the task's own snapshot for the checkpoint, or the final snapshot a
// snapshot.carried names), and by a completed savepoint the same way.
//
//   - state.kept: no state.release names a snapshot that a retained checkpoint (one of the
//     Reference.Policy.RetainedCheckpoints latest completed checkpoints, by id) or a
//     completed savepoint holds, and no checkpoint or savepoint completes holding state
//     released before. Coordinator crashes change nothing: a recovered coordinator reads
//     the same store, and savepoints belong to the user. Nor is a task's snapshot of a
//     pending checkpoint or savepoint released before the task gave it up, or, for a
//     checkpoint, heard of a newer completion (releasedWhilePending).
//   - state.released: once the job has finished (every job task's last lifecycle event is
//     task.finish), every acked snapshot that no retained checkpoint or completed savepoint
//     holds has been released: the snapshots of aborted checkpoints, of checkpoints that
//     fell out of retention, and late and duplicate acks alike.
//
// What is left by design is not owed (releaseEvidence.excuse): a final snapshot, state a
// coordinator crash orphaned, and an ack the coordinator may not have heard of. Without the
// retained count the verdict is unknown; with acks owed a release but no state.release at
// all, unknown too (the trace does not say what the engine deleted); with no release and
// none owed, unexercised.
func StateRelease(events []trace.Event, ref Reference) Result {
	return stateRelease(newTraceIndex(events), ref)
}

// stateReleaseKinds are the kinds stateLedger.observe reacts to (lifecycleKinds among them).
var stateReleaseKinds = lifecycleKinds | kindsOf(trace.KindCheckpointComplete, trace.KindCoordinatorRecover, trace.KindJobFailover,
	trace.KindCoordinatorCrash, trace.KindCheckpointAbort, trace.KindSnapshotTaken, trace.KindSnapshotCarried,
	trace.KindSnapshotAck, trace.KindStateRelease, trace.KindPieceRelease, trace.KindFault, trace.KindCheckpointPersist,
	trace.KindJobResubmit, trace.KindStateLive)

func stateRelease(ix *traceIndex, ref Reference) Result {
	if ref.Policy.RetainedCheckpoints <= 0 {
		return unknownResult(PropStateRelease, "the reference gives no retained-checkpoint count (policy.retained_checkpoints)")
	}
	l := newStateLedger(ref.Policy.RetainedCheckpoints)
	l.evidence.flight = ref.Liveness.ReactionMaxNanos
	if l.evidence.flight == 0 {
		l.evidence.flight = math.MaxInt64
	}
	jobs := newJobLifecycle(ix)
	for i := range ix.only(stateReleaseKinds) {
		e := &ix.events[i]
		jobs.observe(e)
		l.observe(i, e)
	}
	owed, excused := l.unreleased(ix)
	pieces, live := l.pieces.unreleased(l.acks, l.excused(ix))
	last := &ix.events[len(ix.events)-1]
	l.violations = append(l.violations, l.pieces.againstStorage(last)...)
	switch {
	case l.releases == 0 && len(owed) > 0:
		first := owed[0].event
		return unknownResult(PropStateRelease, fmt.Sprintf("%s's snapshot for %d was acked at seq %d and nothing holds it, but the trace has no state.release at all: it does not say what the engine deleted",
			first.Task, first.CP, first.Seq))
	case l.pieces.releases == 0 && len(pieces) > 0:
		return unknownResult(PropStateRelease, fmt.Sprintf("piece %s of %s's snapshot for %d is held by nothing, but the trace has no piece.release at all: it does not say what the engine deleted",
			pieces[0].piece, pieces[0].key.task, pieces[0].key.cp))
	case l.releases == 0 && l.pieces.releases == 0 && len(l.violations) == 0:
		return unexercisedResult(PropStateRelease, cmpOrNote(excused, "no state released, and none owed a release"))
	}
	note := excused
	if jobs.allFinished() {
		l.leaked(owed, last)
		l.violations = append(l.violations, leakedPieces(pieces, last)...)
	} else {
		l.violations = append(l.violations, l.pieces.overdue(l.evidence.mayBeRetained, last)...)
		if len(owed)+len(pieces) > 0 {
			note = fmt.Sprintf("the job did not finish: %d acked snapshots and %d pieces nothing holds are not released yet; a piece is owed a release only %d completions after nothing held it", len(owed), len(pieces), leakBound)
		}
	}
	res := newResult(PropStateRelease, append(l.violations, releasedWhilePending(ix)...))
	res.Note = note
	if live > 0 || l.pieces.live != nil || len(l.pieces.foreign) > 0 {
		res.Note = joinNote(note, l.pieces.liveNote(live))
	}
	return res
}

// excused returns whether an ack's state is left by design (releaseEvidence.excuse).
func (l *stateLedger) excused(ix *traceIndex) func(ackRecord) bool {
	lossy, delaying := windowsOf(ix, lossyFaults), windowsOf(ix, delayingFaults)
	return func(a ackRecord) bool {
		completed := l.completed[a.key.cp] && !l.mayHave[a.key.cp]
		return l.evidence.excuse(a, completed, lossy, delaying) != ""
	}
}

// snapshotKey names one uploaded snapshot: its task and the checkpoint it was taken for.
type snapshotKey struct {
	task string
	cp   uint64
}

// cutEntry is what a checkpoint holds of one task: the checkpoint its snapshot was taken
// for, and whether a snapshot.carried said so (which no ack or snapshot overrides).
type cutEntry struct {
	taken   uint64
	carried bool
}

// ackRecord is one snapshot's first acknowledgement.
type ackRecord struct {
	key   snapshotKey
	at    int // its index in the trace
	event *trace.Event
	final bool
}

// stateLedger follows which snapshots checkpoints and savepoints hold, and what was acked
// and released; evidence keeps what the excuses read.
type stateLedger struct {
	retain     int
	savepoints map[uint64]bool
	// stops are the savepoints that stop the job: retained like checkpoints.
	stops      map[uint64]bool
	cuts       map[uint64]map[string]cutEntry // per checkpoint, per task, until it completes
	retained   []uint64                       // the retained checkpoints, ascending
	completed  map[uint64]bool                // every completed checkpoint and savepoint
	persisting map[uint64]bool                // metadata writes begun, not yet completed or aborted
	mayHave    map[uint64]bool                // taken as completed at a recovery: its write may have landed
	certain    []uint64                       // the completed checkpoints not in mayHave, in order
	holdersOf  map[uint64][]snapshotKey       // what each retained checkpoint and savepoint holds
	holds      map[snapshotKey]int            // how many of them hold a snapshot
	released   map[snapshotKey]*trace.Event   // each snapshot's first release
	releases   int
	acks       []ackRecord
	ackedAt    map[snapshotKey]int // index of each snapshot's first ack
	evidence   *releaseEvidence
	pieces     pieceLedger
	// userOwned are the checkpoints a resubmission left to the user: held for good.
	userOwned   map[uint64]bool
	givenUp     map[givenUp]bool // pieces user-owned checkpoints gave up to a claim
	resubmitted *resubmitted     // the latest job.resubmit, nil if none
	violations  []Violation
}

func newStateLedger(retain int) *stateLedger {
	evidence := newReleaseEvidence()
	return &stateLedger{
		retain: retain, savepoints: map[uint64]bool{}, stops: map[uint64]bool{}, cuts: map[uint64]map[string]cutEntry{},
		completed: map[uint64]bool{}, persisting: map[uint64]bool{}, mayHave: map[uint64]bool{}, holdersOf: map[uint64][]snapshotKey{}, holds: map[snapshotKey]int{},
		released: map[snapshotKey]*trace.Event{}, ackedAt: map[snapshotKey]int{}, evidence: evidence,
		pieces: newPieceLedger(evidence), userOwned: map[uint64]bool{}, givenUp: map[givenUp]bool{},
	}
}

// observe takes the event at index i.
func (l *stateLedger) observe(i int, e *trace.Event) {
	l.evidence.observe(i, e)
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		if isSavepointTrigger(e) {
			l.savepoints[e.CP] = true
			l.stops[e.CP] = isStopTrigger(e)
		}
	case trace.KindSnapshotTaken:
		l.cut(e.CP, e.Task, cutEntry{taken: e.CP}, false)
		l.pieces.taken(i, e)
	case trace.KindSnapshotAck:
		l.cut(e.CP, e.Task, cutEntry{taken: e.CP}, false)
		key := snapshotKey{e.Task, e.CP}
		if _, seen := l.ackedAt[key]; !seen {
			l.ackedAt[key] = i
			final, _ := e.Attr(trace.AttrFinal)
			l.acks = append(l.acks, ackRecord{key: key, at: i, event: e, final: final == "true"})
		}
	case trace.KindSnapshotCarried:
		if taken, ok := intAttr(e, trace.AttrTaken); ok {
			l.cut(e.CP, e.Task, cutEntry{taken: uint64(taken), carried: true}, true)
		}
	case trace.KindCheckpointPersist:
		l.persisting[e.CP] = true
	case trace.KindCheckpointComplete:
		l.pieces.completions = append(l.pieces.completions, i)
		l.complete(i, e)
	case trace.KindStateLive:
		l.pieces.live = e
	case trace.KindCoordinatorRecover:
		l.recover(i, e)
	case trace.KindCheckpointAbort:
		delete(l.cuts, e.CP) // it will hold nothing
		delete(l.persisting, e.CP)
	case trace.KindStateRelease:
		l.release(e)
	case trace.KindPieceRelease:
		for _, v := range l.pieces.release(i, e) {
			piece, _ := e.Attr(trace.AttrPiece)
			l.violations = append(l.violations, l.ownedBy(v, l.pieceHolder(piece)))
		}
	case trace.KindJobResubmit:
		l.resubmit(e)
		if tasks, ok := rescaleTasks(e); ok {
			l.pieces.rescaling = tasks // the gone tasks' incarnations end at the failover
		}
	case trace.KindJobFailover:
		if l.pieces.rescaling != nil {
			l.pieces.rescaled(i, l.pieces.rescaling)
			l.pieces.rescaling = nil
		}
	case trace.KindTaskCrash:
		l.pieces.restarted(i, e.Task)
	case trace.KindTaskRestore:
		l.pieces.restored(i, e.Task, e.CP, l.completed[e.CP])
	}
}

// cut records what checkpoint cp holds of task; a carried snapshot replaces the task's own.
func (l *stateLedger) cut(cp uint64, task string, entry cutEntry, replace bool) {
	if l.completed[cp] {
		return // a late ack: the checkpoint holds what it held when it completed
	}
	c := l.cuts[cp]
	if c == nil {
		c = map[string]cutEntry{}
		l.cuts[cp] = c
	}
	if _, set := c[task]; !set || replace {
		c[task] = entry
	}
}

// complete makes checkpoint (or savepoint) e.CP hold its cut, and a checkpoint beyond the
// retained count let go of the oldest.
func (l *stateLedger) complete(i int, e *trace.Event) {
	cp := e.CP
	if l.completed[cp] {
		return
	}
	l.completed[cp] = true
	delete(l.persisting, cp)
	var keys []snapshotKey
	for _, task := range sortedKeys(l.cuts[cp]) {
		entry := l.cuts[cp][task]
		key := snapshotKey{task, entry.taken}
		keys = append(keys, key)
		if acked, ok := l.ackedAt[key]; ok && !entry.carried {
			l.evidence.heard(task, acked, i)
		}
	}
	delete(l.cuts, cp)
	for _, key := range keys {
		if r := l.released[key]; r != nil {
			l.violations = append(l.violations, forRule(ruleStateKept, violationAt(PropStateRelease, e,
				"%s %d completed holding %s's snapshot for %d, whose state was released at seq %d", l.kindOf(cp), cp, key.task, key.cp, r.Seq)))
		}
		l.holds[key]++
		l.violations = append(l.violations, l.pieces.held(key, l.kindOf(cp), cp, e)...)
		l.violations = append(l.violations, l.builtOnRestored(cp, key, e)...)
	}
	l.holdersOf[cp] = keys
	if l.savepoints[cp] && !l.stops[cp] {
		return // savepoints belong to the user: held for good
	}
	at, _ := slices.BinarySearch(l.retained, cp)
	l.retained = slices.Insert(l.retained, at, cp)
	if !l.mayHave[cp] {
		at, _ = slices.BinarySearch(l.certain, cp)
		l.certain = slices.Insert(l.certain, at, cp)
	}
	if len(l.retained) > l.retain {
		out := l.retained[0]
		l.discard(i, e.Seq, out)
		l.evidence.discardedAt[out] = i
		l.retained = l.retained[1:]
		l.evidence.mayBeRetained[out] = true // until certain completions show otherwise, below
	}
	for out := range l.evidence.mayBeRetained {
		at, _ := slices.BinarySearch(l.certain, out+1)
		if len(l.certain)-at >= l.retain {
			delete(l.evidence.mayBeRetained, out)
		}
	}
}

// recover takes a coordinator.recover. The checkpoint it read back completed, whether or
// not traced so. So may every older one whose metadata write was still in flight when the
// coordinator crashed: the trace cannot say whether it landed, and if it did, the recovered
// coordinator retains it and lets older ones go. Taken as completed, it never makes a
// release of an older checkpoint's state a false alarm; the price is that such a release
// is not judged where the write was in fact lost.
func (l *stateLedger) recover(i int, e *trace.Event) {
	// A write in flight at the crash landed before the recovery read the store, or it never
	// lands (the store refuses a crashed writer's late writes): none is pending after it,
	// and one of a checkpoint above the one read back did not land.
	defer clear(l.persisting)
	if e.CP == 0 {
		return
	}
	var maybe []uint64
	for cp := range l.persisting {
		if cp < e.CP {
			maybe = append(maybe, cp)
		}
	}
	slices.Sort(maybe)
	for _, cp := range maybe {
		l.mayHave[cp] = true
		l.complete(i, &trace.Event{Kind: trace.KindCheckpointComplete, CP: cp, Seq: e.Seq, T: e.T})
	}
	l.complete(i, e)
}

// discard lets go of what checkpoint cp held, once it fell out of retention at the event
// of index i and seq.
func (l *stateLedger) discard(i int, seq, cp uint64) {
	if l.userOwned[cp] || l.savepoints[cp] {
		// The user's (a stop-with-savepoint is retained like a checkpoint, not released
		// like one): it holds what it holds for good.
		return
	}
	for _, key := range l.holdersOf[cp] {
		l.holds[key]--
		l.pieces.let(key, i, seq, cp)
	}
	delete(l.holdersOf, cp)
}

// release judges a state.release against what holds the snapshot.
func (l *stateLedger) release(e *trace.Event) {
	l.releases++
	key := snapshotKey{e.Task, e.CP}
	if l.holds[key] > 0 {
		holder := l.holder(key)
		l.violations = append(l.violations, l.ownedBy(forRule(ruleStateKept, violationAt(PropStateRelease, e,
			"the state of %s's snapshot for %d was released while %s %d holds it", e.Task, e.CP, l.heldAs(holder), holder)), holder))
	}
	if l.released[key] == nil {
		l.released[key] = e
	}
}

// pieceHolder returns the lowest retained checkpoint or savepoint that holds a snapshot
// referring to piece, 0 if none.
func (l *stateLedger) pieceHolder(piece string) uint64 {
	var found uint64
	for cp, keys := range l.holdersOf {
		if (found == 0 || cp < found) && slices.ContainsFunc(keys, func(k snapshotKey) bool { return slices.Contains(l.pieces.refs[k], piece) }) {
			found = cp
		}
	}
	return found
}

// holder returns the lowest retained checkpoint or savepoint that holds key.
func (l *stateLedger) holder(key snapshotKey) uint64 {
	var found uint64
	for cp, keys := range l.holdersOf {
		if slices.Contains(keys, key) && (found == 0 || cp < found) {
			found = cp
		}
	}
	return found
}

func (l *stateLedger) kindOf(cp uint64) string {
	if l.savepoints[cp] {
		return "savepoint"
	}
	return "checkpoint"
}

// heldAs names a holder: a savepoint, or a checkpoint among the retained ones.
func (l *stateLedger) heldAs(cp uint64) string {
	if l.savepoints[cp] {
		return "completed savepoint"
	}
	return fmt.Sprintf("checkpoint (one of the %d retained)", l.retain)
}

// forRule names the rule a violation breaks.
func forRule(rule string, v Violation) Violation {
	v.Rule = rule
	return v
}

// sortedKeys returns m's keys in order, so that what reaches a report never follows map
// order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// unreleased returns the acks owed a release that the trace does not show, in trace order,
// and a note that counts those a correct engine leaves (releaseEvidence.excuse), if any.
func (l *stateLedger) unreleased(ix *traceIndex) (owed []ackRecord, note string) {
	lossy, delaying := windowsOf(ix, lossyFaults), windowsOf(ix, delayingFaults)
	excused := map[string]int{}
	for _, a := range l.acks {
		if l.holds[a.key] > 0 || l.released[a.key] != nil {
			continue
		}
		// A write that may not have landed leaves its state orphaned by the crash, as before.
		completed := l.completed[a.key.cp] && !l.mayHave[a.key.cp]
		if why := l.evidence.excuse(a, completed, lossy, delaying); why != "" {
			excused[why]++
			continue
		}
		owed = append(owed, a)
	}
	if len(excused) == 0 {
		return owed, ""
	}
	var parts []string
	for _, why := range sortedKeys(excused) {
		parts = append(parts, fmt.Sprintf("%d %s", excused[why], why))
	}
	return owed, "not owed a release: " + strings.Join(parts, ", ")
}

// leaked reports each owed ack as state.released broken, pinned to the last event: the end
// of the finished job's trace is where the leak became final.
func (l *stateLedger) leaked(owed []ackRecord, last *trace.Event) {
	for _, a := range owed {
		v := violationAt(PropStateRelease, last,
			"%s's snapshot for %d, acked at seq %d, was never released, and no retained checkpoint or savepoint holds it", a.key.task, a.key.cp, a.event.Seq)
		v.Task, v.CP = a.key.task, a.key.cp
		l.violations = append(l.violations, forRule(ruleStateReleased, v))
	}
}
