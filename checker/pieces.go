package checker

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// The two rules of shared pieces, judged by PropStateRelease with the rules of uploaded
// state. An incremental snapshot refers to pieces (snapshot.taken's pieces attribute):
// some it uploaded, some it reuses from its task's earlier snapshots. A piece is held while
// a snapshot that a retained checkpoint or a completed savepoint holds refers to it; it
// goes with piece.release.
const (
	rulePiecesKept     = "pieces.kept"
	rulePiecesReleased = "pieces.released"
)

// pieceLedger follows, beside stateLedger, which pieces the held snapshots refer to. A
// piece is taken to be uploaded by the first snapshot that lists it: a snapshot can reuse
// only pieces of its task's earlier ones.
type pieceLedger struct {
	refs     map[snapshotKey][]string // the pieces each snapshot refers to
	holds    map[string]int           // how many held snapshots refer to each piece
	released map[string]*trace.Event  // each piece's first release
	releases int
	uploader map[string]pieceOrigin // the snapshot that first listed each piece
	order    []string               // the pieces in the order first listed
	restarts map[string][]int       // per task, the indices of its task.crash and task.restore
	// rescaling holds a rescale's tasks until the failover that starts them, where the
	// incarnations of the tasks it did away with end.
	rescaling map[string]bool
	// releasedAt is the index of each piece's first release.
	releasedAt map[string]int
	// freed holds the pieces nothing has held since a checkpoint fell out of retention.
	freed map[string]freeing
	// completions are the indices of checkpoint.complete events.
	completions []int
	// evidence is the uploaded state's: the coordinator crashes are read there.
	evidence *releaseEvidence
	// live is the storage's own listing at the end (state.live), nil if the trace has none.
	live *trace.Event
	// everHeld holds the pieces a completed checkpoint or savepoint held at some time:
	// deleting them is the coordinator's business, not their task's.
	everHeld map[string]bool
	// outside holds the tasks restored from a checkpoint the trace does not show (an
	// external checkpoint or savepoint a job was started from), until their next snapshot;
	// foreign, the pieces that snapshot listed first: they may be that checkpoint's, which
	// its owner keeps or deletes, so nothing here owes them a release.
	outside map[string]bool
	foreign map[string]bool
}

// freeing is where a piece stopped being held: the index and seq of the completion that
// let checkpoint by fall out of retention.
type freeing struct {
	at  int
	seq uint64
	by  uint64
}

// leakBound is how many checkpoints may complete, with no coordinator crash, after a piece
// stopped being held and before it must have been released while the job runs. One is
// enough for an engine that releases at the completion, or once the store without the
// discarded checkpoint is written (the next metadata write at the latest); the second is
// margin for a release that waits for that write to land.
const leakBound = 2

// pieceOrigin is the snapshot.taken that first listed a piece, and its index in the trace.
type pieceOrigin struct {
	key snapshotKey
	at  int
	seq uint64
}

func newPieceLedger(evidence *releaseEvidence) pieceLedger {
	return pieceLedger{evidence: evidence, refs: map[snapshotKey][]string{}, holds: map[string]int{}, released: map[string]*trace.Event{},
		uploader: map[string]pieceOrigin{}, restarts: map[string][]int{}, releasedAt: map[string]int{}, freed: map[string]freeing{}, everHeld: map[string]bool{},
		outside: map[string]bool{}, foreign: map[string]bool{}}
}

// taken records the pieces of a snapshot.taken at index i, if it lists any.
func (p *pieceLedger) taken(i int, e *trace.Event) {
	list, ok := e.Attr(trace.AttrPieces)
	if !ok || list == "" {
		return
	}
	key := snapshotKey{e.Task, e.CP}
	p.refs[key] = strings.Split(list, trace.ListSeparator)
	for _, piece := range p.refs[key] {
		if _, seen := p.uploader[piece]; !seen {
			p.uploader[piece] = pieceOrigin{key: key, at: i, seq: e.Seq}
			p.order = append(p.order, piece)
			if p.outside[e.Task] {
				p.foreign[piece] = true
			}
		}
	}
	delete(p.outside, e.Task)
}

// restored records a task.restore at index i, from checkpoint cp when known: one the
// trace never showed complete (an external checkpoint) may hold pieces that the task's
// next snapshot reuses.
func (p *pieceLedger) restored(i int, task string, cp uint64, known bool) {
	p.restarted(i, task)
	p.outside[task] = cp > 0 && !known
}

// restarted records a task.crash or task.restore at index i: the task's incarnation before
// it ended there.
func (p *pieceLedger) restarted(i int, task string) { p.restarts[task] = append(p.restarts[task], i) }

// rescaled records, at index i (the failover that starts a rescaled job), the end of the
// incarnation of every task the rescale did away with, its cleanup with it.
func (p *pieceLedger) rescaled(i int, tasks map[string]bool) {
	for _, o := range p.uploader {
		if task := o.key.task; !tasks[task] && !slices.Contains(p.restarts[task], i) {
			p.restarted(i, task)
		}
	}
}

// endedAfter reports whether task's incarnation at index i ended later in the trace.
func (p *pieceLedger) endedAfter(task string, i int) bool {
	r := p.restarts[task]
	return len(r) > 0 && r[len(r)-1] > i
}

// held counts the pieces of key as held once more by checkpoint cp (kind names it), and
// returns a violation for each that was released before.
func (p *pieceLedger) held(key snapshotKey, kind string, cp uint64, e *trace.Event) []Violation {
	var vs []Violation
	for _, piece := range p.refs[key] {
		p.holds[piece]++
		p.everHeld[piece] = true
		delete(p.freed, piece)
		if r := p.released[piece]; r != nil {
			vs = append(vs, forRule(rulePiecesKept, violationAt(PropStateRelease, e,
				"%s %d completed holding piece %s of %s's snapshot for %d, deleted at seq %d", kind, cp, piece, key.task, key.cp, r.Seq)))
		}
	}
	return vs
}

// let counts the pieces of key as held once less, at index i where checkpoint by fell out
// of retention.
func (p *pieceLedger) let(key snapshotKey, i int, seq, by uint64) {
	for _, piece := range p.refs[key] {
		if p.holds[piece]--; p.holds[piece] == 0 {
			p.freed[piece] = freeing{at: i, seq: seq, by: by}
		}
	}
}

// release judges a piece.release at index i: the piece must be held by nothing.
func (p *pieceLedger) release(i int, e *trace.Event) []Violation {
	p.releases++
	piece, _ := e.Attr(trace.AttrPiece)
	if p.released[piece] == nil {
		p.released[piece] = e
		p.releasedAt[piece] = i
	}
	if p.holds[piece] == 0 {
		return nil
	}
	return []Violation{forRule(rulePiecesKept, violationAt(PropStateRelease, e,
		"piece %s of %s was deleted while a retained checkpoint or a completed savepoint still refers to it", piece, e.Task))}
}

// pieceDebt is a piece owed a release at the end of the job, and the snapshot that owes
// it: the first acked one that refers to it, or, when none was acked, the one that
// uploaded it.
type pieceDebt struct {
	piece string
	key   snapshotKey
	seq   uint64 // of the ack, or of the uploader's snapshot.taken
	acked bool
}

// unreleased returns the pieces owed a release: held by nothing, never released, and left
// by no snapshot whose state is excused. A piece an acked snapshot refers to follows the
// acks (excused says, per ack, whether its state is left by design: a piece a final or
// orphaned snapshot refers to stays with it); one that no ack refers to, a snapshot's
// upload that nobody took up, is owed by its uploader unless the uploader's incarnation
// ended (it crashed or was replaced, its cleanup with it).
func (p *pieceLedger) unreleased(acks []ackRecord, excused func(ackRecord) bool) (owed []pieceDebt, live int) {
	ackedBy := map[string][]ackRecord{}
	for _, a := range acks {
		for _, piece := range p.refs[a.key] {
			ackedBy[piece] = append(ackedBy[piece], a)
		}
	}
	for _, piece := range p.order {
		if p.holds[piece] > 0 || p.released[piece] != nil || p.foreign[piece] {
			continue
		}
		if by := ackedBy[piece]; len(by) > 0 {
			if !slices.ContainsFunc(by, excused) {
				owed = append(owed, pieceDebt{piece: piece, key: by[0].key, seq: by[0].event.Seq, acked: true})
			}
			continue
		}
		if o := p.uploader[piece]; !p.endedAfter(o.key.task, o.at) {
			owed = append(owed, pieceDebt{piece: piece, key: o.key, seq: o.seq})
		}
	}
	for _, n := range p.holds {
		if n > 0 {
			live++
		}
	}
	return owed, live
}

// leakedPieces reports each owed piece as pieces.released broken, at the end of the trace.
func leakedPieces(owed []pieceDebt, last *trace.Event) []Violation {
	var vs []Violation
	for _, d := range owed {
		how := fmt.Sprintf("which %s's snapshot for %d (acked at seq %d) refers to", d.key.task, d.key.cp, d.seq)
		if !d.acked {
			how = fmt.Sprintf("uploaded for %s's snapshot for %d (taken at seq %d), which no one acknowledged", d.key.task, d.key.cp, d.seq)
		}
		v := violationAt(PropStateRelease, last, "piece %s, %s, was never deleted, and no retained checkpoint or savepoint refers to it", d.piece, how)
		v.Task, v.CP = d.key.task, d.key.cp
		vs = append(vs, forRule(rulePiecesReleased, v))
	}
	return vs
}

// liveNote says how many pieces the retained checkpoints and savepoints hold at the end,
// and what the storage holds, if the trace lists it.
func (p *pieceLedger) liveNote(live int) string {
	note := fmt.Sprintf("%d shared pieces live at the end, held by retained checkpoints and savepoints", live)
	if len(p.foreign) > 0 {
		note += fmt.Sprintf("; %d pieces that a checkpoint the trace does not show may hold are not owed a release", len(p.foreign))
	}
	if p.live == nil {
		return note
	}
	pieces, _ := p.live.Attr(trace.AttrPieces)
	bytes, _ := p.live.Attr(trace.AttrBytes)
	return fmt.Sprintf("%s; the storage holds %d pieces and %s bytes of checkpoint state", note, len(strings.Fields(pieces)), bytes)
}

// againstStorage judges the pieces against the storage's own listing at the end
// (state.live), if the trace has one: a piece a retained checkpoint or savepoint refers to
// is stored (pieces.kept: a restore of it would fail), and a piece released is not
// (pieces.released: its delete never took effect), unless whoever released it may have
// died first (Flink leaves such deletes undone too): the coordinator crashed after the
// release, or, for a piece no checkpoint ever held (its task's to delete), the task's
// incarnation ended after it.
func (p *pieceLedger) againstStorage(last *trace.Event) []Violation {
	if p.live == nil {
		return nil
	}
	list, _ := p.live.Attr(trace.AttrPieces)
	stored := map[string]bool{}
	for _, piece := range strings.Fields(list) {
		stored[piece] = true
	}
	var vs []Violation
	for _, piece := range p.order {
		o := p.uploader[piece]
		switch at, released := p.releasedAt[piece]; {
		case p.holds[piece] > 0 && !stored[piece]:
			v := violationAt(PropStateRelease, p.live, "piece %s of %s's snapshot for %d, which a retained checkpoint or savepoint refers to, is not in the storage at the end", piece, o.key.task, o.key.cp)
			vs = append(vs, forRule(rulePiecesKept, v))
		case released && stored[piece] && !p.evidence.crashAfter(at, math.MaxInt) && (p.everHeld[piece] || !p.endedAfter(p.released[piece].Task, at)):
			v := violationAt(PropStateRelease, last, "piece %s was deleted at seq %d, but the storage still holds it at the end: the delete never took effect", piece, p.released[piece].Seq)
			v.Task, v.CP = o.key.task, o.key.cp
			vs = append(vs, forRule(rulePiecesReleased, v))
		}
	}
	return vs
}

// overdue reports, while the job runs, each piece that nothing has held since leakBound
// checkpoints completed with no coordinator crash between, and that was never released:
// storage that grows without bound. A piece whose checkpoint may still be retained (its
// fall out of retention was counted on completions that may not have landed) is not owed.
func (p *pieceLedger) overdue(mayBeRetained map[uint64]bool, last *trace.Event) []Violation {
	var vs []Violation
	for _, piece := range p.order {
		f, freed := p.freed[piece]
		if !freed || p.released[piece] != nil || p.foreign[piece] || mayBeRetained[f.by] || p.completedAfter(f.at) < leakBound {
			continue
		}
		o := p.uploader[piece]
		v := violationAt(PropStateRelease, last, "piece %s, which nothing has held since checkpoint %d fell out of retention at seq %d, was never deleted while %d checkpoints completed after",
			piece, f.by, f.seq, p.completedAfter(f.at))
		v.Task, v.CP = o.key.task, o.key.cp
		vs = append(vs, forRule(rulePiecesReleased, v))
	}
	return vs
}

// completedAfter counts the checkpoint.complete events after index i and before the first
// coordinator crash after it.
func (p *pieceLedger) completedAfter(i int) int {
	end, crashes := len(p.completions), p.evidence.crashes
	if c, _ := slices.BinarySearch(crashes, i); c < len(crashes) {
		end, _ = slices.BinarySearch(p.completions, crashes[c])
	}
	from, _ := slices.BinarySearch(p.completions, i+1)
	return max(0, end-from)
}
