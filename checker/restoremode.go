package checker

import (
	"maps"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// The rules of a job submitted again from a retained checkpoint (job.resubmit), judged by
// PropStateRelease with the rules of uploaded state. Restore modes are Flink's: claim,
// no-claim, legacy.
const (
	ruleRestoreOwnership = "restore.ownership"
	ruleRestoreNoClaim   = "restore.no-claim-independent"
)

// resubmitted is what a job.resubmit left for later events to be judged by.
type resubmitted struct {
	from   uint64
	mode   string
	pieces map[string]bool // the pieces the restored checkpoint refers to (no-claim)
}

// resubmit takes a job.resubmit: the stopped job's retained checkpoints stay the user's,
// held for good like savepoints, and so does the restored one unless the new job claimed
// it (even one an earlier resubmission left the user's); the new job retains the restored checkpoint alone. A claim takes over every piece
// of the restored checkpoint, those the user's older checkpoints share with it included
// (Flink's claim mode: the user must not restore those any more).
func (l *stateLedger) resubmit(e *trace.Event) {
	mode, _ := e.Attr(trace.AttrMode)
	r := &resubmitted{from: e.CP, mode: mode, pieces: map[string]bool{}}
	for _, key := range l.holdersOf[e.CP] {
		for _, piece := range l.pieces.refs[key] {
			r.pieces[piece] = true
		}
	}
	for _, cp := range l.retained {
		if cp != e.CP || mode != "claim" {
			l.userOwned[cp] = true
		}
	}
	if mode == "claim" {
		// A checkpoint an earlier resubmission left the user's is the new job's once a
		// resubmission claims it: the user hands it over, and every checkpoint of the
		// user's, of this stopped job or an earlier one, gives up the pieces it claims.
		delete(l.userOwned, e.CP)
		for _, cp := range slices.Sorted(maps.Keys(l.userOwned)) {
			l.giveUp(cp, r.pieces)
		}
	}
	keep := func(cps []uint64) []uint64 {
		return slices.DeleteFunc(cps, func(cp uint64) bool { return cp != e.CP })
	}
	l.retained, l.certain = keep(l.retained), keep(l.certain)
	l.resubmitted = r
}

// giveUp lets checkpoint cp stop holding the pieces among claimed, each once.
func (l *stateLedger) giveUp(cp uint64, claimed map[string]bool) {
	for _, key := range l.holdersOf[cp] {
		for _, piece := range l.pieces.refs[key] {
			if given := (givenUp{cp, piece}); claimed[piece] && !l.givenUp[given] {
				l.givenUp[given] = true
				l.pieces.holds[piece]--
			}
		}
	}
}

// givenUp is a piece a checkpoint of the user's no longer holds, a claim having taken it.
type givenUp struct {
	cp    uint64
	piece string
}

// builtOnRestored returns a violation for each piece of the restored checkpoint that
// checkpoint cp, completing after a no-claim resubmission, holds through key.
func (l *stateLedger) builtOnRestored(cp uint64, key snapshotKey, e *trace.Event) []Violation {
	r := l.resubmitted
	if r == nil || r.mode != "no-claim" || key.cp <= r.from {
		return nil // a snapshot the new job did not take: a finished task's, carried over
	}
	var vs []Violation
	for _, piece := range l.pieces.refs[key] {
		if r.pieces[piece] {
			vs = append(vs, forRule(ruleRestoreNoClaim, violationAt(PropStateRelease, e,
				"checkpoint %d completed holding %s's snapshot for %d, which refers to piece %s of checkpoint %d, restored without claiming it",
				cp, key.task, key.cp, piece, r.from)))
		}
	}
	return vs
}

// ownedBy renames a violation of the kept rules whose holder is a checkpoint the user owns
// after a resubmission.
func (l *stateLedger) ownedBy(v Violation, holder uint64) Violation {
	if l.userOwned[holder] {
		v.Rule = ruleRestoreOwnership
		v.Message += " (the user's since the job was resubmitted)"
	}
	return v
}
