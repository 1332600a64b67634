package checker

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// ruleChannelStateOnce is restore-fidelity's rule for the channel state of rescaled restores.
const ruleChannelStateOnce = "restore.channel-state-once"

// A rescaled job's channels are new, so the channel state of the checkpoint it restores has
// to be replayed to the tasks that now receive it. In a whole round of rescaled restores
// (rescaledRounds), the records each snapshot of the restored checkpoint held in flight
// (its snapshot.taken chan.* and out.* counts) must be replayed exactly once: the counts the
// round's task.restore events give for that snapshot in replayed must add up to its
// records. Fewer means records in flight were lost, more that some were replayed twice. A
// round whose snapshots held records but whose restores do not all say what they replayed
// is judged for records replayed twice only.

// channelStateReplayedOnce judges the rule; unjudged counts the rounds that held channel
// state without the evidence to judge them.
func channelStateReplayedOnce(ix *traceIndex, rounds []*restoreRound) (violations []Violation, unjudged int) {
	heldAt := map[taskCheckpoint]channelHeld{}
	for i := range ix.only(kindsOf(trace.KindSnapshotTaken)) {
		e := &ix.events[i]
		heldAt[taskCheckpoint{e.Task, e.CP}] = channelRecords(e)
	}
	for _, round := range rounds {
		found, judged := judgeChannelRound(ix.events, round, heldAt)
		violations = append(violations, found...)
		if !judged {
			unjudged++
		}
	}
	return violations, unjudged
}

// channelHeld is what a snapshot held in flight: its records, if it counted them.
type channelHeld struct {
	records int64
	counted bool // the snapshot.taken has chan.* or out.* counts
}

// channelRecords adds up the records a snapshot.taken says it held in flight.
func channelRecords(e *trace.Event) channelHeld {
	var h channelHeld
	for _, a := range e.Attrs {
		if strings.HasPrefix(a.Key, trace.AttrChanPrefix) || strings.HasPrefix(a.Key, trace.AttrOutPrefix) {
			v, _ := strconv.ParseInt(a.Value, 10, 64)
			h.records += v
			h.counted = true
		}
	}
	return h
}

// judgeChannelRound checks one round against the records its checkpoint's snapshots held;
// judged is false when they held some and a restore did not say what it replayed, which
// leaves only records replayed twice to be found, or when a restore replayed records of a
// snapshot that did not count its channel state.
func judgeChannelRound(events []trace.Event, round *restoreRound, heldAt map[taskCheckpoint]channelHeld) (out []Violation, judged bool) {
	last := &events[round.restores[len(round.restores)-1]]
	replayed := map[string]int64{}
	traced, uncounted := 0, false
	for _, i := range round.restores {
		v, ok := events[i].Attr(trace.AttrReplayed)
		list, valid := replayedCounts(v)
		if !ok || !valid {
			continue
		}
		traced++
		for _, r := range list {
			h, taken := heldAt[taskCheckpoint{r.Key, round.cp}]
			if !taken {
				out = append(out, channelViolation(&events[i], "%s replayed %d records of %s's channel state, which took no snapshot for checkpoint %d",
					events[i].Task, r.Value, r.Key, round.cp))
			}
			uncounted = uncounted || taken && !h.counted
			replayed[r.Key] += r.Value
		}
	}
	var snapshots []taskCheckpoint
	var held int64
	for k, h := range heldAt {
		if k.cp == round.cp && h.counted {
			snapshots = append(snapshots, k)
			held += h.records
		}
	}
	// Records replayed twice show whatever the other restores say; records lost only once
	// every restore said what it replayed.
	whole := traced == len(round.restores)
	slices.SortFunc(snapshots, func(a, b taskCheckpoint) int { return cmp.Compare(a.task, b.task) })
	for _, k := range snapshots {
		switch n, got := heldAt[k].records, replayed[k.task]; {
		case got < n && whole:
			out = append(out, channelViolation(last, "rescaled restore from checkpoint %d: %s's snapshot held %d records in flight, the new tasks replayed %d: %d lost",
				round.cp, k.task, n, got, n-got))
		case got > n:
			out = append(out, channelViolation(last, "rescaled restore from checkpoint %d: %s's snapshot held %d records in flight, the new tasks replayed %d: %d twice",
				round.cp, k.task, n, got, got-n))
		}
	}
	return out, (whole || held == 0) && !uncounted
}

// replayedCounts reads a replayed attribute: entries of a task and a count of records, which
// is never negative; false when it is not one.
func replayedCounts(v string) ([]trace.Entry, bool) {
	list, ok := trace.ParseEntries(v)
	for _, r := range list {
		ok = ok && r.Value >= 0
	}
	return list, ok
}

// channelViolation is a violation of the rule pinned to e.
func channelViolation(e *trace.Event, format string, args ...any) Violation {
	v := violationAt(PropRestoreFidelity, e, format, args...)
	v.Rule = ruleChannelStateOnce
	return v
}
