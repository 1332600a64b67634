package checker

import (
	"io"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/checker/linz"
)

// searchStore decides the completed-checkpoint store history ops in two stages. A write
// still pending (its incarnation crashed or gave up first) may be linearized anywhere
// after its call, or never, and porcupine tries the pending writes in every combination:
// twenty of them (a metadata store failing every write for a second, then a crash) took
// 5.5 million model steps. Most such writes never landed. So the first stage judges the
// history with every pending write that no recovery read back taken as never landed: a
// linearization of that history is one of the whole history too, so its Ok is the
// verdict. Anything else is not (a dropped write may be what explains the history), and
// the second stage searches the whole history with the steps the first left over.
func searchStore(ops []porcupine.Operation, limits linz.Limits, picture io.Writer, clients []string) (linz.Outcome, error) {
	pruned := withoutUnreadPending(ops)
	if len(pruned) == len(ops) {
		return linz.Run(linz.RegisterModel(), ops, limits, picture, clients...)
	}
	first, _ := linz.Run(linz.RegisterModel(), pruned, limits, nil)
	if first.Result == porcupine.Ok {
		return first, nil
	}
	left := limits
	left.Steps -= first.Steps
	if left.Steps <= 0 {
		return linz.Outcome{Result: porcupine.Unknown, Steps: limits.Steps, OutOfSteps: true}, nil
	}
	out, err := linz.Run(linz.RegisterModel(), ops, left, picture, clients...)
	out.Steps += first.Steps
	return out, err
}

// withoutUnreadPending returns ops without the pending writes whose id no read returned.
func withoutUnreadPending(ops []porcupine.Operation) []porcupine.Operation {
	read := make(map[uint64]bool)
	for _, op := range ops {
		if _, ok := op.Input.(linz.RegisterRead); ok {
			read[op.Output.(uint64)] = true
		}
	}
	kept := make([]porcupine.Operation, 0, len(ops))
	for _, op := range ops {
		if w, ok := op.Input.(linz.RegisterWrite); ok && op.Return == linz.Pending && !read[w.ID] {
			continue
		}
		kept = append(kept, op)
	}
	return kept
}
