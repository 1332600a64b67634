package checker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/trace"
)

// incrementalCheckpoint appends checkpoint cp of task, whose snapshot refers to pieces, and
// its completion.
func (b *tb) incrementalCheckpoint(cp uint64, task, pieces string) uint64 {
	b.trigger(cp)
	b.snap(task, cp, "pieces="+pieces)
	b.stateAck(task, cp)
	return b.complete(cp)
}

func (b *tb) pieceRelease(task string, cp uint64, piece string) uint64 {
	return b.add(trace.PieceRelease(task, cp, piece))
}

// TestPiecesKeptFlagsDeletingAPieceStillReferred: checkpoint 2 reuses checkpoint 1's piece
// p1; discarding checkpoint 1 may delete its own state but not p1, which checkpoint 2,
// retained, still refers to. Once checkpoint 3 (compacted) completes, p1 may go.
func TestPiecesKeptFlagsDeletingAPieceStillReferred(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p1")
	b.incrementalCheckpoint(2, "sum-0", "p1 p2")
	b.stateRelease("sum-0", 1)
	bad := b.pieceRelease("sum-0", 1, "p1")
	v := wantFirst(t, StateRelease(b.events, retaining(1)), bad, "piece p1 of sum-0 was deleted while a retained checkpoint or a completed savepoint still refers to it")
	wantRule(t, v, rulePiecesKept)

	good := newTB()
	good.restore("sum-0", 0)
	good.incrementalCheckpoint(1, "sum-0", "p1")
	good.incrementalCheckpoint(2, "sum-0", "p1 p2")
	good.stateRelease("sum-0", 1)
	good.incrementalCheckpoint(3, "sum-0", "p3")
	good.stateRelease("sum-0", 2)
	good.pieceRelease("sum-0", 1, "p1")
	good.pieceRelease("sum-0", 2, "p2")
	wantPass(t, StateRelease(good.events, retaining(1)))
}

// TestPiecesKeptFlagsCompletingOnADeletedPiece: a checkpoint whose snapshot reuses a piece
// deleted before it completed holds state that is gone: a restore from it would fail.
func TestPiecesKeptFlagsCompletingOnADeletedPiece(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p1")
	b.trigger(2)
	b.snap("sum-0", 2, "pieces=p1 p2")
	b.stateAck("sum-0", 2)
	b.incrementalCheckpoint(3, "sum-0", "p3")
	b.stateRelease("sum-0", 1)
	b.pieceRelease("sum-0", 1, "p1")
	bad := b.complete(2)
	v := wantFirst(t, StateRelease(b.events, retaining(1)), bad, "checkpoint 2 completed holding piece p1 of sum-0's snapshot for 2, deleted at seq")
	wantRule(t, v, rulePiecesKept)
}

// TestPiecesReleasedFlagsALeak: once the job has finished, a piece nothing refers to must
// be gone; one a retained checkpoint refers to stays, and is counted as live.
func TestPiecesReleasedFlagsALeak(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p0 p1")
	b.incrementalCheckpoint(2, "sum-0", "p2")
	b.stateRelease("sum-0", 1)
	b.pieceRelease("sum-0", 1, "p0")
	b.finish("sum-0")
	res := StateRelease(b.events, retaining(1))
	v := wantFirst(t, res, b.events[len(b.events)-1].Seq, "piece p1, which sum-0's snapshot for 1 (acked at seq")
	wantRule(t, v, rulePiecesReleased)

	b.events = b.events[:len(b.events)-1]
	b.pieceRelease("sum-0", 1, "p1")
	b.finish("sum-0")
	res = StateRelease(b.events, retaining(1))
	wantPass(t, res)
	if res.Note != "1 shared pieces live at the end, held by retained checkpoints and savepoints" {
		t.Errorf("note %q, want the one live piece counted", res.Note)
	}
}

// TestPiecesReleasedIsUnknownWithoutPieceReleases: an engine that traces the pieces its
// snapshots refer to but not their deletion leaves the verdict open.
func TestPiecesReleasedIsUnknownWithoutPieceReleases(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p1")
	b.incrementalCheckpoint(2, "sum-0", "p2")
	b.stateRelease("sum-0", 1)
	b.finish("sum-0")
	if res := StateRelease(b.events, retaining(1)); res.Verdict != VerdictUnknown {
		t.Fatalf("want unknown, got:\n%s", res)
	}
}

// TestPiecesReleasedOwesUploadsNobodyTookUp: a snapshot whose upload no one acknowledged
// (its upload failed, or its checkpoint was given up) leaves its own pieces to its task to
// delete, unless the task crashed or was replaced meanwhile.
func TestPiecesReleasedOwesUploadsNobodyTookUp(t *testing.T) {
	for _, crash := range []bool{false, true} {
		b := newTB()
		b.restore("sum-0", 0)
		b.incrementalCheckpoint(1, "sum-0", "p0")
		b.trigger(2)
		b.snap("sum-0", 2, "pieces=p0 p2")
		b.abortFor(2, "upload-failed")
		b.incrementalCheckpoint(3, "sum-0", "p3")
		b.stateRelease("sum-0", 1)
		b.pieceRelease("sum-0", 1, "p0")
		if crash {
			b.crash("sum-0")
			b.restore("sum-0", 1)
		}
		b.finish("sum-0")
		res := StateRelease(b.events, retaining(1))
		if crash {
			wantPass(t, res)
			continue
		}
		v := wantFirst(t, res, b.events[len(b.events)-1].Seq, "piece p2, uploaded for sum-0's snapshot for 2 (taken at seq")
		wantRule(t, v, rulePiecesReleased)
	}
}

func (b *tb) resubmit(cp uint64, mode string) uint64 {
	return b.add(trace.JobResubmit(cp, mode))
}

// TestRestoreOwnershipKeepsTheStoppedJobsCheckpoints: after a resubmission from checkpoint
// 2, the stopped job's checkpoint 1 is the user's for good, and so is 2 unless claimed; a
// claimed 2 goes like any checkpoint once the new job's checkpoints subsume it.
func TestRestoreOwnershipKeepsTheStoppedJobsCheckpoints(t *testing.T) {
	for _, mode := range []string{"claim", "no-claim", "legacy"} {
		b := newTB()
		b.restore("sum-0", 0)
		b.incrementalCheckpoint(1, "sum-0", "p1")
		b.incrementalCheckpoint(2, "sum-0", "p1 p2")
		b.resubmit(2, mode)
		b.incrementalCheckpoint(3, "sum-0", "p3")
		b.incrementalCheckpoint(4, "sum-0", "p4")
		bad := b.stateRelease("sum-0", 2)
		b.pieceRelease("sum-0", 2, "p2")
		b.pieceRelease("sum-0", 1, "p1")
		res := StateRelease(b.events, retaining(2))
		if mode == "claim" {
			wantPass(t, res)
			continue
		}
		v := wantFirst(t, res, bad, "the state of sum-0's snapshot for 2 was released while checkpoint (one of the 2 retained) 2 holds it (the user's since the job was resubmitted)")
		wantRule(t, v, ruleRestoreOwnership)
	}
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p1")
	b.incrementalCheckpoint(2, "sum-0", "p2")
	b.resubmit(2, "claim")
	b.incrementalCheckpoint(3, "sum-0", "p3")
	b.incrementalCheckpoint(4, "sum-0", "p4")
	b.stateRelease("sum-0", 2)
	bad := b.pieceRelease("sum-0", 1, "p1")
	v := wantFirst(t, StateRelease(b.events, retaining(2)), bad, "piece p1 of sum-0 was deleted while a retained checkpoint or a completed savepoint still refers to it (the user's")
	wantRule(t, v, ruleRestoreOwnership)
}

// TestRestoreOwnershipHandsOverOnAClaim: a checkpoint a legacy resubmission left the
// user's is the job's once a later resubmission (a rescale, say) claims it.
func TestRestoreOwnershipHandsOverOnAClaim(t *testing.T) {
	for _, second := range []string{"claim", "legacy"} {
		b := newTB()
		b.restore("sum-0", 0)
		b.incrementalCheckpoint(1, "sum-0", "p1")
		b.incrementalCheckpoint(2, "sum-0", "p2")
		b.resubmit(2, "legacy")
		b.resubmit(2, second)
		b.incrementalCheckpoint(3, "sum-0", "p3")
		b.incrementalCheckpoint(4, "sum-0", "p4")
		released := b.stateRelease("sum-0", 2)
		b.pieceRelease("sum-0", 2, "p2")
		res := StateRelease(b.events, retaining(2))
		if second == "claim" {
			wantPass(t, res)
			continue
		}
		wantFirst(t, res, released, "the user's since the job was resubmitted")
	}
}

// TestRestoreOwnershipClaimTakesTheUsersSharedPieces: after a legacy resubmission from 2,
// the new job's checkpoints build on 2's piece p2; a later resubmission (a rescale, say)
// claiming 4 takes p2 over from the user's 2 as well, though 2 left the retained list, and
// may delete it with 4.
func TestRestoreOwnershipClaimTakesTheUsersSharedPieces(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p1")
	b.incrementalCheckpoint(2, "sum-0", "p1 p2")
	b.resubmit(2, "legacy")
	b.incrementalCheckpoint(3, "sum-0", "p2 p3")
	b.incrementalCheckpoint(4, "sum-0", "p2 p4") // 2 leaves the new job's retention
	b.resubmit(4, "claim")
	b.incrementalCheckpoint(5, "sum-0", "p5")
	b.incrementalCheckpoint(6, "sum-0", "p6")
	b.stateRelease("sum-0", 4)
	b.pieceRelease("sum-0", 4, "p4")
	b.pieceRelease("sum-0", 2, "p2")
	wantPass(t, StateRelease(b.events, retaining(2)))
}

// TestRestoreNoClaimRefusesBuildingOnTheRestored: after a no-claim resubmission from
// checkpoint 2, a checkpoint of the new job that refers to 2's piece breaks the rule; under
// legacy it may.
func TestRestoreNoClaimRefusesBuildingOnTheRestored(t *testing.T) {
	for _, mode := range []string{"no-claim", "legacy"} {
		b := newTB()
		b.restore("sum-0", 0)
		b.incrementalCheckpoint(2, "sum-0", "p2")
		b.resubmit(2, mode)
		bad := b.incrementalCheckpoint(3, "sum-0", "p2 p3")
		res := StateRelease(b.events, retaining(2))
		if mode == "legacy" {
			if res.Verdict == VerdictFail {
				t.Fatalf("legacy: %s", res)
			}
			continue
		}
		v := wantFirst(t, res, bad, "checkpoint 3 completed holding sum-0's snapshot for 3, which refers to piece p2 of checkpoint 2, restored without claiming it")
		wantRule(t, v, ruleRestoreNoClaim)
	}
}

// TestPiecesKeptForgetsAWriteThatDidNotLand: checkpoint 2's metadata write was in flight when
// the coordinator crashed, and the recovery read back 1: 2 never completed, and the pieces
// 1 and 2 share may go once 3 subsumes 1. A later recovery, reading 3 back, does not take
// 2 for completed (generated seed 155930).
func TestPiecesKeptForgetsAWriteThatDidNotLand(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 0)
	b.incrementalCheckpoint(1, "sum-0", "p1")
	b.trigger(2)
	b.snap("sum-0", 2, "pieces=p1 p2")
	b.stateAck("sum-0", 2)
	b.persist(2)
	b.coordCrash()
	b.recover(1)
	b.incrementalCheckpoint(3, "sum-0", "p3")
	b.stateRelease("sum-0", 1)
	b.pieceRelease("sum-0", 1, "p1")
	b.coordCrash()
	b.recover(3)
	if res := StateRelease(b.events, retaining(1)); res.Verdict == VerdictFail {
		t.Fatalf("want no violation, got:\n%s", res)
	}
}

// stateLive appends the storage's listing of the pieces it holds (state.live).
func (b *tb) stateLive(pieces ...string) uint64 { return b.add(trace.StateLive(pieces, 100)) }

// TestPiecesAgainstTheStorage: the storage's listing at the end (state.live) shows a delete
// that never took effect (a leak), and a piece a retained checkpoint needs that is gone; a
// coordinator crash after the delete leaves it undone by design.
func TestPiecesAgainstTheStorage(t *testing.T) {
	run := func(crash bool, stored ...string) Result {
		b := newTB()
		b.restore("sum-0", 0)
		b.incrementalCheckpoint(1, "sum-0", "p1")
		b.incrementalCheckpoint(2, "sum-0", "p2")
		b.stateRelease("sum-0", 1)
		deleted := b.pieceRelease("sum-0", 1, "p1")
		if crash {
			b.coordCrash()
		}
		listed := b.stateLive(stored...)
		res := StateRelease(b.events, retaining(1))
		if !crash && len(stored) == 2 {
			wantFirst(t, res, listed, fmt.Sprintf("piece p1 was deleted at seq %d, but the storage still holds it at the end: the delete never took effect", deleted))
		}
		return res
	}
	wantRule(t, run(false, "p1", "p2").Violations[0], rulePiecesReleased)
	v := wantFirst(t, run(false), 11, "piece p2 of sum-0's snapshot for 2, which a retained checkpoint or savepoint refers to, is not in the storage at the end")
	wantRule(t, v, rulePiecesKept)
	res := run(true, "p1", "p2")
	wantPass(t, res)
	if want := "1 shared pieces live at the end, held by retained checkpoints and savepoints; the storage holds 2 pieces and 100 bytes of checkpoint state"; !strings.Contains(res.Note, want) {
		t.Errorf("note %q, want it to say %q", res.Note, want)
	}
}

// TestPiecesReleasedFlagsALeakWhileRunning: a piece that nothing has held for two
// completions is overdue although the job has not finished; one completion is not enough,
// and a coordinator crash in between stops the count.
func TestPiecesReleasedFlagsALeakWhileRunning(t *testing.T) {
	run := func(completions int, crash bool) Result {
		b := newTB()
		b.restore("sum-0", 0)
		b.incrementalCheckpoint(1, "sum-0", "p0 p1")
		b.incrementalCheckpoint(2, "sum-0", "p2") // p0 and p1 are held by nothing from here
		b.stateRelease("sum-0", 1)
		b.pieceRelease("sum-0", 1, "p0")
		if crash {
			b.coordCrash()
		}
		for cp := uint64(3); cp < uint64(3+completions); cp++ {
			b.incrementalCheckpoint(cp, "sum-0", "p2")
			b.stateRelease("sum-0", cp-1)
		}
		return StateRelease(b.events, retaining(1))
	}
	v := wantFirst(t, run(2, false), 20, "piece p1, which nothing has held since checkpoint 1 fell out of retention at seq 8, was never deleted while 2 checkpoints completed after")
	wantRule(t, v, rulePiecesReleased)
	for _, res := range []Result{run(1, false), run(2, true)} {
		if res.Verdict == VerdictFail {
			t.Errorf("want no violation, got:\n%s", res)
		}
	}
}

// TestPiecesOfACheckpointTheTraceDoesNotShow: a job started from an external checkpoint
// (task.restore of a checkpoint that never completed in the trace) reuses its pieces in
// its first snapshot. Whether they are ever deleted is their owner's business (under
// no-claim, never): they are not owed a release, nor is anything else that snapshot lists
// first (the trace does not say which of its pieces it uploaded). Pieces uploaded later are.
func TestPiecesOfACheckpointTheTraceDoesNotShow(t *testing.T) {
	b := newTB()
	b.restore("sum-0", 7)
	b.incrementalCheckpoint(8, "sum-0", "x1 p8")
	b.incrementalCheckpoint(9, "sum-0", "p9")
	b.stateRelease("sum-0", 8)
	b.pieceRelease("sum-0", 8, "p8")
	b.incrementalCheckpoint(10, "sum-0", "p10")
	b.stateRelease("sum-0", 9)
	b.finish("sum-0")
	res := StateRelease(b.events, retaining(1))
	v := wantFirst(t, res, b.events[len(b.events)-1].Seq, "piece p9, which sum-0's snapshot for 9")
	wantRule(t, v, rulePiecesReleased)
	if len(res.Violations) != 1 || !strings.Contains(res.Note, "2 pieces that a checkpoint the trace does not show may hold are not owed a release") {
		t.Errorf("want only p9 owed, x1 left to its owner, got:\n%s", res)
	}
}
