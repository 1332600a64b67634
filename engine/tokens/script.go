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
// and started then or as soon as the coordinator can start one: fewer than MaxConcurrent in
// flight, and the job not in the middle of a failover, which it survives if it had not
// started yet. One whose trigger cannot be persisted is aborted, as a periodic one is. The
// snapshots a coordinator incarnation had asked for when it crashed are dropped with it, and
// those due while no incarnation runs are asked for by nobody (a recovering one asks for
// those due since it began once it has read the id counter back). Once the script has ended (End), the coordinator starts
// periodic snapshots, as without a script; they are what lets the job finish, which it does
// only after End and once every scripted snapshot has been taken or aborted.
type Script struct {
	// Transfers are in time order; each process makes its own in this order.
	Transfers []ScriptedTransfer
	// Snapshots are in time order.
	Snapshots []ScriptedSnapshot
	// End is when the script is over; no transfer or snapshot comes later.
	End time.Duration
}

// ScriptedTransfer moves Amount tokens from process From to process To (task indices
// joined by a link).
type ScriptedTransfer struct {
	At       time.Duration
	From, To int
	Amount   int64
}

// ScriptedSnapshot starts a snapshot at process Initiator (a task index).
type ScriptedSnapshot struct {
	At        time.Duration
	Initiator int
}

// validate checks the script against n processes and their links.
func (sc *Script) validate(n int, linked map[[2]int]bool) error {
	if sc.End < 0 {
		return fmt.Errorf("script: negative End %v", sc.End)
	}
	var last time.Duration
	for i, tr := range sc.Transfers {
		switch {
		case tr.At < last || tr.At > sc.End:
			return fmt.Errorf("script: transfer %d at %v is out of time order (after %v, until End %v)", i, tr.At, last, sc.End)
		case tr.From < 0 || tr.From >= n || tr.To < 0 || tr.To >= n:
			return fmt.Errorf("script: transfer %d from %d to %d names a task outside 0..%d", i, tr.From, tr.To, n-1)
		case !linked[[2]int{tr.From, tr.To}]:
			return fmt.Errorf("script: transfer %d: no link from %d to %d", i, tr.From, tr.To)
		case tr.Amount < 1:
			return fmt.Errorf("script: transfer %d of %d tokens, want at least 1", i, tr.Amount)
		}
		last = tr.At
	}
	last = 0
	for i, sn := range sc.Snapshots {
		switch {
		case sn.At < last || sn.At > sc.End:
			return fmt.Errorf("script: snapshot %d at %v is out of time order (after %v, until End %v)", i, sn.At, last, sc.End)
		case sn.Initiator < 0 || sn.Initiator >= n:
			return fmt.Errorf("script: snapshot %d: initiator %d outside 0..%d", i, sn.Initiator, n-1)
		}
		last = sn.At
	}
	return nil
}
