package chandylamport

import (
	"fmt"
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// checkSnapshots returns every way a completed snapshot breaks conservation or the cut
// condition, and every disagreement with the reference.
func (w *tokenWorld) checkSnapshots() (conservation, consistency, reference []string) {
	for _, g := range w.completed {
		sum := 0
		for _, s := range g.States {
			sum += s.State
		}
		for _, c := range g.Channels {
			for _, t := range c.Messages {
				sum += t.Amount
			}
		}
		if sum != w.total {
			conservation = append(conservation, fmt.Sprintf("%s holds %d tokens, the system %d:\n%s", g.ID, sum, w.total, g))
		}
		cut := w.cuts[g.ID]
		for _, c := range g.Channels {
			sentAt, recvAt := cut.sentAt[c.Channel], cut.recvAt[c.Channel]
			if recvAt > sentAt {
				consistency = append(consistency, fmt.Sprintf("%s: %s consumed %d messages on %s before recording, but %s had sent only %d", g.ID, c.Channel.To, recvAt, c.Channel, c.Channel.From, sentAt))
				continue
			}
			if want := w.sent[c.Channel][recvAt:sentAt]; !cmp.Equal(want, c.Messages, cmpopts.EquateEmpty()) {
				consistency = append(consistency, fmt.Sprintf("%s: %s records %v, but %v were in flight at the cut", g.ID, c.Channel, c.Messages, want))
			}
		}
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range w.refReports {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		got, ok := w.reports[k]
		switch {
		case w.aborted[k]:
		case !ok:
			reference = append(reference, fmt.Sprintf("%s: the reference reported, the process did not", k))
		case !cmp.Equal(w.refReports[k], got, cmpopts.EquateEmpty()):
			reference = append(reference, fmt.Sprintf("%s: process %v, reference %v", k, got, w.refReports[k]))
		}
	}
	if len(w.reports)+len(w.aborted) != len(w.refReports) {
		reference = append(reference, fmt.Sprintf("%d reports and %d aborts, but the reference made %d reports", len(w.reports), len(w.aborted), len(w.refReports)))
	}
	return conservation, consistency, reference
}
