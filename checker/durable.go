package checker

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/checker/linz"
	"github.com/ckptsim/ckptsim/trace"
)

// DurableBeforeVisible checks that no checkpoint's completion is made visible before it is
// durable, and that coordinator failover never loses a durable or visible completion.
//
// Visible means a notify.complete for checkpoint n, or a sink.commit of checkpoint n's
// transaction. The first must follow checkpoint.complete n; the second must follow the
// completion of some checkpoint m >= n (whose state holds the transaction).
//
// Failover is judged with porcupine over the history of the completed-checkpoint store (see
// linz.RegisterModel): each coordinator incarnation's write runs from checkpoint.persist n to
// checkpoint.complete n, and is pending (it may or may not have landed) when the incarnation
// crashed or gave up first; each coordinator.recover r is a read, invoked at the preceding
// coordinator.crash; each first visibility of a higher id is an observation. The latest id
// must never go backwards. A recovery behind a visible or durably completed checkpoint is
// pinned to the coordinator.recover. A history porcupine cannot decide within its budget of
// model steps (SearchOptions.Steps), or its wall-clock safety net, gives the verdict unknown;
// the search first tries the history without the pending writes no recovery read
// (searchStore), whose linearization is one of the whole history;
// one with nothing that depends on the store (no notification, commit of a checkpoint or
// recovery) is unexercised, since writes alone cannot break the rule.
func DurableBeforeVisible(events []trace.Event, opts SearchOptions) Result {
	res := durableBeforeVisible(events, opts)
	for i := range res.Violations {
		if res.Violations[i].Rule == "" {
			res.Violations[i].Rule = ruleStoreRecoversLatest
		}
	}
	return res
}

func durableBeforeVisible(events []trace.Event, opts SearchOptions) Result {
	violations := visibleBeforeDurable(events)
	for i := range violations {
		violations[i].Rule = ruleCommitAfterDurable
	}
	h := storeHistory(events)
	violations = append(violations, h.recoveryBounds(events)...)
	res := newResult(PropDurableVisible, violations)
	if res.Verdict == VerdictPass {
		if missing := missingPersists(events); missing != "" {
			return unknownResult(PropDurableVisible, missing)
		}
		if !observesStore(events) {
			// Writes alone never break the register's rule: nothing was judged.
			return unexercisedResult(PropDurableVisible, "nothing made a completion visible or read the store back: no notify.complete, sink.commit of a checkpoint or coordinator.recover")
		}
	}
	if len(h.ops) == 0 || (len(violations) > 0 && opts.Picture == nil) {
		return res
	}
	outcome, err := searchStore(h.ops, linz.Limits{Steps: opts.steps(), Timeout: opts.timeout()}, opts.Picture, h.clients)
	res = mergeOutcome(res, outcome, events, h.lastRecover, "the completed-checkpoint store history has no linearization")
	if err != nil {
		res.Note = joinNote(res.Note, err.Error())
	} else if outcome.Result == porcupine.Illegal && opts.Picture != nil {
		res.Note = joinNote(res.Note, pictureNote)
	}
	return res
}

// missingPersists names the evidence the store history lacks, or returns "": a checkpoint
// whose completion has no checkpoint.persist before it (the write would have no start, so
// the history cannot be judged), or no durable completion at all (nothing to judge).
func missingPersists(events []trace.Event) string {
	persisted := make(map[uint64]bool)
	var missing []string
	durable := false
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindCheckpointPersist:
			persisted[e.CP] = true
		case trace.KindCheckpointComplete:
			durable = true
			if !persisted[e.CP] {
				missing = append(missing, fmt.Sprintf("checkpoint %d completed without a checkpoint.persist before it", e.CP))
			}
		case trace.KindCoordinatorRecover:
			durable = durable || e.CP > 0
		}
	}
	switch {
	case len(missing) > 0:
		return summarise(missing)
	case !durable:
		return "no checkpoint.complete (or coordinator.recover of one): nothing became durable to judge"
	}
	return ""
}

// observesStore reports whether anything in events depends on what the store holds: a
// notification or commit of a checkpoint, or a recovery.
func observesStore(events []trace.Event) bool {
	for i := range events {
		switch e := &events[i]; e.Kind {
		case trace.KindNotifyComplete, trace.KindCoordinatorRecover:
			return true
		case trace.KindSinkCommit:
			if e.CP != 0 {
				return true
			}
		}
	}
	return false
}

// visibleBeforeDurable is the one-pass half: notifications and commits before completion.
func visibleBeforeDurable(events []trace.Event) []Violation {
	checkpoints := newLedger()
	var violations []Violation
	for i := range events {
		e := &events[i]
		checkpoints.observe(e)
		switch e.Kind {
		case trace.KindNotifyComplete:
			if !checkpoints.completed[e.CP] {
				violations = append(violations, violationAt(PropDurableVisible, e,
					"%s notified of checkpoint %d before it was durably complete", e.Task, e.CP))
			}
		case trace.KindSinkCommit:
			if e.CP != 0 && checkpoints.latest < e.CP {
				violations = append(violations, violationAt(PropDurableVisible, e,
					"%s committed transaction %q of checkpoint %d before any checkpoint >= %d was durably complete",
					e.Task, e.Txn, e.CP, e.CP))
			}
		}
	}
	return violations
}
