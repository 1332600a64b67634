package scenarios

import (
	"fmt"
	"strings"
)

// UnfiredFaults describes the entries of FaultsUnfired, one a line in schedule order, as
// "faults[1] crash.task task=map1-0 when nth=500 on=snapshot.ack task=map1-0": the index
// into Faults (the scenario's faults, or what its swarm drew) and the entry's text.
func (r *Result) UnfiredFaults() []string {
	lines := make([]string, 0, len(r.FaultsUnfired))
	for _, i := range r.FaultsUnfired {
		if i < 0 || i >= len(r.Faults) {
			lines = append(lines, fmt.Sprintf("faults[%d] (not in the schedule of %d)", i, len(r.Faults)))
			continue
		}
		lines = append(lines, fmt.Sprintf("faults[%d] %s", i, r.Faults[i]))
	}
	return lines
}

// judgeUnfired makes a judged run (pass or fail) unexpected when its scenario requires every
// fault to fire and one never did: its verdict would otherwise claim a survival, or catch a
// violation, without the fault it was written for. A run that hit a limit or stayed
// undecided is unexpected already, and its faults may not have had the time to fire.
func (r *Result) judgeUnfired(e Expect) {
	if !e.EveryFaultFires || len(r.FaultsUnfired) == 0 {
		return
	}
	if r.Verdict != VerdictPass && r.Verdict != VerdictFail {
		return
	}
	what := "never fired (expect.every_fault_fires): " + strings.Join(r.UnfiredFaults(), "; ")
	if r.Unexpected {
		r.Why += "; and " + what
		return
	}
	r.Unexpected, r.Why = true, what
}
