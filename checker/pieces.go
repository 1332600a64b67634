package checker

import (
	"fmt"
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

// pieceLedger follows, beside stateLedger, which pieces the held snapshots refer to.
type pieceLedger struct {
	refs     map[snapshotKey][]string // the pieces each snapshot refers to
	holds    map[string]int           // how many held snapshots refer to each piece
	released map[string]*trace.Event  // each piece's first release
	releases int
}

func newPieceLedger() pieceLedger {
	return pieceLedger{refs: map[snapshotKey][]string{}, holds: map[string]int{}, released: map[string]*trace.Event{}}
}

// taken records the pieces of a snapshot.taken, if it lists any.
func (p *pieceLedger) taken(e *trace.Event) {
	if list, ok := e.Attr(trace.AttrPieces); ok && list != "" {
		p.refs[snapshotKey{e.Task, e.CP}] = strings.Split(list, trace.ListSeparator)
	}
}

// held counts the pieces of key as held once more by checkpoint cp (kind names it), and
// returns a violation for each that was released before.
func (p *pieceLedger) held(key snapshotKey, kind string, cp uint64, e *trace.Event) []Violation {
	var vs []Violation
	for _, piece := range p.refs[key] {
		p.holds[piece]++
		if r := p.released[piece]; r != nil {
			vs = append(vs, forRule(rulePiecesKept, violationAt(PropStateRelease, e,
				"%s %d completed holding piece %s of %s's snapshot for %d, deleted at seq %d", kind, cp, piece, key.task, key.cp, r.Seq)))
		}
	}
	return vs
}

// let counts the pieces of key as held once less.
func (p *pieceLedger) let(key snapshotKey) {
	for _, piece := range p.refs[key] {
		p.holds[piece]--
	}
}

// release judges a piece.release: the piece must be held by nothing.
func (p *pieceLedger) release(e *trace.Event) []Violation {
	p.releases++
	piece, _ := e.Attr(trace.AttrPiece)
	if p.released[piece] == nil {
		p.released[piece] = e
	}
	if p.holds[piece] == 0 {
		return nil
	}
	return []Violation{forRule(rulePiecesKept, violationAt(PropStateRelease, e,
		"piece %s of %s was deleted while a retained checkpoint or a completed savepoint still refers to it", piece, e.Task))}
}

// pieceDebt is a piece owed a release at the end of the job, and the ack that owes it.
type pieceDebt struct {
	piece string
	ack   ackRecord
}

// unreleased returns the pieces owed a release: referred to by an acked snapshot, held by
// nothing, never released, and left by no snapshot whose state is excused (a piece a final
// or orphaned snapshot refers to stays with it). excused says, per ack, whether its state
// is left by design.
func (p *pieceLedger) unreleased(acks []ackRecord, excused func(ackRecord) bool) (owed []pieceDebt, live int) {
	debts := map[string]*pieceDebt{}
	spared := map[string]bool{}
	var order []string
	for _, a := range acks {
		for _, piece := range p.refs[a.key] {
			switch {
			case p.holds[piece] > 0 || p.released[piece] != nil || spared[piece]:
			case excused(a):
				spared[piece] = true
				delete(debts, piece)
			case debts[piece] == nil:
				debts[piece] = &pieceDebt{piece: piece, ack: a}
				order = append(order, piece)
			}
		}
	}
	for _, piece := range order {
		if d := debts[piece]; d != nil {
			owed = append(owed, *d)
		}
	}
	for _, n := range p.holds {
		if n > 0 {
			live++
		}
	}
	return owed, live
}

// leaked reports each owed piece as pieces.released broken, at the end of the trace.
func leakedPieces(owed []pieceDebt, last *trace.Event) []Violation {
	var vs []Violation
	for _, d := range owed {
		v := violationAt(PropStateRelease, last,
			"piece %s, which %s's snapshot for %d (acked at seq %d) refers to, was never deleted, and no retained checkpoint or savepoint refers to it",
			d.piece, d.ack.key.task, d.ack.key.cp, d.ack.event.Seq)
		v.Task, v.CP = d.ack.key.task, d.ack.key.cp
		vs = append(vs, forRule(rulePiecesReleased, v))
	}
	return vs
}

// liveNote says how many pieces the retained checkpoints and savepoints hold at the end.
func liveNote(live int) string {
	return fmt.Sprintf("%d shared pieces live at the end, held by retained checkpoints and savepoints", live)
}
