package tokens

import (
	"fmt"
	"time"
)

// Script is a hand-written Chandy-Lamport exercise for a Workload operator: which
// transfers the processes make and when, and when which process starts a snapshot. Times are
// the Env's clock (virtual time since the run began, for a job started at time zero).
//
// A scripted transfer is made at its time, or later if the sender must first wait for the
// tokens (it never overdraws) or for room on its output. A restored process makes again the
// transfers its snapshot had not reached, at once if their time has passed: the script is the
// processes' input, and failover replays it exactly once, as a source replays its log.
//
// A scripted snapshot is asked for at its time (traced as checkpoint.request, with its id),
// and started (checkpoint.trigger) in that same instant if the coordinator can start one:
// fewer than MaxConcurrent in flight, and the job not in the middle of a failover, which it
// survives if it had not started yet; otherwise as soon as it can. Its id needs no write of
// its own: the coordinator reserves ids ahead in blocks, one durable write of the counter
// each (coordinator.go, reserveAhead), so snapshots asked for together are in progress
// together, and a send and a snapshot of the same instant race as they would in the
// algorithm. The snapshots a coordinator incarnation had asked for when it crashed are
// dropped with it, and those due while no incarnation runs are asked for by nobody (a
// recovering one asks for those due since it began once it has read the id counter back);
// its ids start above the whole block the counter holds. Once the script has ended (End),
// the coordinator starts periodic snapshots, as without a script; they are what lets the job
// finish, which it does only after End and once every scripted snapshot has been taken or
// aborted.
type Script struct {
	// Transfers are in time order; each process makes its own in this order.
	Transfers []ScriptedTransfer
	// Snapshots are in time order.
	Snapshots []ScriptedSnapshot
	// End is when the script is over; no transfer or snapshot comes later.
	End time.Duration
	// Waits are the script's waits for snapshots, at their script times, in order. Times
	// in a script with waits are the script's clock, which stops while it waits: wait k
	// ends once every snapshot asked for before it has completed or aborted (or been
	// dropped with a crashed coordinator incarnation), and the transfers and snapshots of
	// wave k+1 (their Wave) then come as long after that as their At is after Waits[k].
	// The coordinator ends the waits and records when in Gates, which a script with Waits
	// must have.
	Waits []time.Duration
	Gates *Gates
}

// Gates records when a script's waits ended, for one run: it belongs to the script's driver,
// outside the job (a test harness that waits for the snapshots before it goes on), and
// outlives the coordinator's incarnations and the processes' attempts, which read it. Make
// one per run (NewGates).
type Gates struct {
	ended []time.Duration
	// OnEnd, if set, is told when wait k ends, at time at (the glue times the crashes and
	// restarts of the next wave by it).
	OnEnd func(k int, at time.Duration)
}

// NewGates returns the record of a run whose waits have not ended yet.
func NewGates() *Gates { return &Gates{} }

// Ended returns how many waits have ended.
func (g *Gates) Ended() int {
	if g == nil {
		return 0
	}
	return len(g.ended)
}

// EndedAt returns when wait k ended (k < Ended()).
func (g *Gates) EndedAt(k int) time.Duration { return g.ended[k] }

func (g *Gates) end(at time.Duration) {
	g.ended = append(g.ended, at)
	if g.OnEnd != nil {
		g.OnEnd(len(g.ended)-1, at)
	}
}

// When returns when script time at of wave w comes in the run, and false while the wait
// before wave w has not ended.
func (sc *Script) When(w int, at time.Duration) (time.Duration, bool) {
	if w == 0 {
		return at, true
	}
	if sc.Gates.Ended() < w {
		return 0, false
	}
	return sc.Gates.EndedAt(w-1) + at - sc.Waits[w-1], true
}

// ScriptedTransfer moves Amount tokens from process From to process To (task indices
// joined by a link).
type ScriptedTransfer struct {
	At       time.Duration
	From, To int
	Amount   int64
	Wave     int // how many of the script's Waits come before it
}

// ScriptedSnapshot starts a snapshot at process Initiator (a task index).
type ScriptedSnapshot struct {
	At        time.Duration
	Initiator int
	Wave      int // how many of the script's Waits come before it
}

// validate checks the script against n processes and their links.
func (sc *Script) validate(n int, linked map[[2]int]bool) error {
	if sc.End < 0 {
		return fmt.Errorf("script: negative End %v", sc.End)
	}
	if len(sc.Waits) > 0 && sc.Gates == nil {
		return fmt.Errorf("script: %d waits and no Gates", len(sc.Waits))
	}
	var last time.Duration
	for i, w := range sc.Waits {
		if w < last || w > sc.End {
			return fmt.Errorf("script: wait %d at %v is out of time order (after %v, until End %v)", i, w, last, sc.End)
		}
		last = w
	}
	// inWave reports whether script time at may be in wave w: after the wait before it,
	// and not after the wait that ends it.
	inWave := func(w int, at time.Duration) bool {
		return w >= 0 && w <= len(sc.Waits) && (w == 0 || at >= sc.Waits[w-1]) && (w == len(sc.Waits) || at <= sc.Waits[w])
	}
	last = 0
	lastWave := 0
	for i, tr := range sc.Transfers {
		switch {
		case tr.Wave < lastWave || !inWave(tr.Wave, tr.At):
			return fmt.Errorf("script: transfer %d at %v is out of its wave %d", i, tr.At, tr.Wave)
		case tr.At < last || tr.At > sc.End:
			return fmt.Errorf("script: transfer %d at %v is out of time order (after %v, until End %v)", i, tr.At, last, sc.End)
		case tr.From < 0 || tr.From >= n || tr.To < 0 || tr.To >= n:
			return fmt.Errorf("script: transfer %d from %d to %d names a task outside 0..%d", i, tr.From, tr.To, n-1)
		case !linked[[2]int{tr.From, tr.To}]:
			return fmt.Errorf("script: transfer %d: no link from %d to %d", i, tr.From, tr.To)
		case tr.Amount < 1:
			return fmt.Errorf("script: transfer %d of %d tokens, want at least 1", i, tr.Amount)
		}
		last, lastWave = tr.At, tr.Wave
	}
	last, lastWave = 0, 0
	for i, sn := range sc.Snapshots {
		switch {
		case sn.Wave < lastWave || !inWave(sn.Wave, sn.At):
			return fmt.Errorf("script: snapshot %d at %v is out of its wave %d", i, sn.At, sn.Wave)
		case sn.At < last || sn.At > sc.End:
			return fmt.Errorf("script: snapshot %d at %v is out of time order (after %v, until End %v)", i, sn.At, last, sc.End)
		case sn.Initiator < 0 || sn.Initiator >= n:
			return fmt.Errorf("script: snapshot %d: initiator %d outside 0..%d", i, sn.Initiator, n-1)
		}
		last, lastWave = sn.At, sn.Wave
	}
	return nil
}
