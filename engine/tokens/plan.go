package tokens

import "time"

// tokenPlan is the transfers of one process in the order it makes them: the random ones a
// hash picks, paced by Interval, or the script's, each due at its time. A restored process
// resumes its plan at the transfer its snapshot had reached, so the plan is the process's
// replayable input, as a source's log is a source's.
type tokenPlan struct {
	spec       *Workload
	process    int
	neighbours []int
	scripted   []ScriptedTransfer // the process's transfers, when the workload is scripted
}

func (s *Workload) plan(p int) tokenPlan {
	pl := tokenPlan{spec: s, process: p, neighbours: s.neighbours(p)}
	if s.Script != nil {
		for _, tr := range s.Script.Transfers {
			if tr.From == p {
				pl.scripted = append(pl.scripted, tr)
			}
		}
	}
	return pl
}

// len is how many transfers the process makes.
func (pl tokenPlan) len() int64 {
	switch {
	case pl.spec.Script != nil:
		return int64(len(pl.scripted))
	case len(pl.neighbours) == 0:
		return 0
	}
	return pl.spec.Transfers
}

// transfer returns the destination (a task index) and amount of transfer n.
func (pl tokenPlan) transfer(n int64) (to int, amount int64) {
	if pl.spec.Script != nil {
		tr := pl.scripted[n]
		return tr.To, tr.Amount
	}
	return pl.spec.transfer(pl.process, n, pl.neighbours)
}

// timed reports whether the transfers are due at times of their own (a script's), rather
// than an Interval after the one before (random ones).
func (pl tokenPlan) timed() bool { return pl.spec.Script != nil }

// due returns the time scripted transfer n may be made from. While the wait before it has
// not ended, that time is unknown: due then tells the process, which it is now, to look
// again after gatePoll.
func (pl tokenPlan) due(n int64, now time.Duration) time.Duration {
	tr := pl.scripted[n]
	if at, ok := pl.spec.Script.When(tr.Wave, tr.At); ok {
		return at
	}
	return now + gatePoll
}

// gatePoll is how often a process whose next transfer waits for the script's wait to end
// looks whether it has: a transfer right after a wait is made at most this late.
const gatePoll = 100 * time.Microsecond
