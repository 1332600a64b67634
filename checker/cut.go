package checker

import (
	"github.com/ckptsim/ckptsim/trace"
)

// channel is a directed FIFO channel between two tasks.
type channel struct{ from, to string }

// ConsistentCut checks that every completed checkpoint is a consistent global state. For each
// channel S -> R that either end's snapshot mentions:
//
//	recv.S at R's snapshot.taken + chan.S at R's snapshot.taken = sent.R at S's snapshot.taken
//
// That is, every record S emitted before its snapshot is either reflected in R's state or
// saved as in-flight channel state, and nothing R consumed before its snapshot was emitted
// after S's. For a token workload (ref.TokenWorkload, or ref.TokenTotal > 0) the tokens held at the tasks plus
// those recorded in flight (chantokens.*) must add up to the total.
//
// A violation is pinned to the later of the channel's two snapshots, the moment the cut
// closed inconsistent, or, for tokens, to the checkpoint.complete.
//
// A task that finished takes no snapshot for later checkpoints: they carry over its final
// snapshot, which it took for an earlier completed checkpoint. Its side of a channel is then
// judged with that snapshot, the last it took for a completed checkpoint (it emits nothing
// after its final snapshot, so its counts are final). A channel whose sender took no snapshot
// for any completed checkpoint is judged only if the sender never finished (task.finish).
// Whether the sender finished is not a matter of task.finish alone: a finished task may be
// carried over before it exits, and one that crashes as it exits never traces it.
func ConsistentCut(events []trace.Event, ref Reference) Result {
	snapshots := make(map[uint64]map[string]int) // cp -> task -> index of its snapshot.taken
	// carried: task -> index of its snapshot.taken in the latest completed checkpoint it
	// took one for, which later checkpoints that lack one of it carry over.
	carried := make(map[string]int)
	finished := make(map[string]bool)
	judged := make(map[uint64]bool)
	var violations []Violation
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindSnapshotTaken:
			byTask := snapshots[e.CP]
			if byTask == nil {
				byTask = make(map[string]int)
				snapshots[e.CP] = byTask
			}
			byTask[e.Task] = i
		case trace.KindTaskFinish:
			finished[e.Task] = true
		case trace.KindCheckpointAbort:
			delete(snapshots, e.CP)
		case trace.KindCheckpointComplete, trace.KindCoordinatorRecover:
			if _, ok := durablyCompletes(e); !ok || judged[e.CP] {
				continue
			}
			judged[e.CP] = true
			violations = append(violations, judgeCut(events, e, snapshots[e.CP], carried, finished)...)
			if ref.tokenWorkload() {
				violations = append(violations, judgeTokens(events, e, snapshots[e.CP], ref.TokenTotal)...)
			}
			for task, index := range snapshots[e.CP] {
				if prev, ok := carried[task]; !ok || events[prev].CP < e.CP {
					carried[task] = index
				}
			}
			delete(snapshots, e.CP)
		}
	}
	return newResult(PropConsistentCut, violations)
}

// judgeCut checks every channel of the cut formed by byTask, the snapshots of the checkpoint
// completed at complete, with carried standing in for a sender that took none.
func judgeCut(events []trace.Event, complete *trace.Event, byTask map[string]int, carried map[string]int, finished map[string]bool) []Violation {
	channels := make(map[channel]bool)
	for task, index := range byTask {
		e := &events[index]
		prefixedInts(e, trace.AttrSentPrefix, func(to string, _ int64) { channels[channel{task, to}] = true })
		prefixedInts(e, trace.AttrRecvPrefix, func(from string, _ int64) { channels[channel{from, task}] = true })
		prefixedInts(e, trace.AttrChanPrefix, func(from string, _ int64) { channels[channel{from, task}] = true })
	}
	var violations []Violation
	for ch := range channels {
		senderIndex, senderOK := byTask[ch.from]
		if !senderOK {
			senderIndex, senderOK = carried[ch.from]
		}
		receiverIndex, receiverOK := byTask[ch.to]
		var sent, recv, inFlight int64
		if senderOK {
			sent, _ = intAttr(&events[senderIndex], trace.AttrSentPrefix+ch.to)
		}
		if receiverOK {
			recv, _ = intAttr(&events[receiverIndex], trace.AttrRecvPrefix+ch.from)
			inFlight, _ = intAttr(&events[receiverIndex], trace.AttrChanPrefix+ch.from)
		}
		switch {
		case !senderOK && finished[ch.from]:
			// The sender finished, and no completed checkpoint holds a snapshot of it to
			// judge the channel by (a trace of another engine, say).
		case !senderOK && recv+inFlight != 0:
			violations = append(violations, violationAt(PropConsistentCut, &events[receiverIndex],
				"checkpoint %d: %s holds %d records from %s, which took no snapshot for it",
				complete.CP, ch.to, recv+inFlight, ch.from))
		case !receiverOK && sent != 0:
			violations = append(violations, violationAt(PropConsistentCut, &events[senderIndex],
				"checkpoint %d: %s sent %d records to %s, which took no snapshot for it",
				complete.CP, ch.from, sent, ch.to))
		case senderOK && receiverOK && recv+inFlight != sent:
			later := max(senderIndex, receiverIndex)
			violations = append(violations, violationAt(PropConsistentCut, &events[later],
				"checkpoint %d: channel %s->%s inconsistent: %s consumed %d and recorded %d in flight, but %s sent %d",
				complete.CP, ch.from, ch.to, ch.to, recv, inFlight, ch.from, sent))
		}
	}
	return violations
}

// judgeTokens checks token conservation in the checkpoint completed at complete.
func judgeTokens(events []trace.Event, complete *trace.Event, byTask map[string]int, total int64) []Violation {
	var held, inFlight int64
	for _, index := range byTask {
		e := &events[index]
		tokens, _ := intAttr(e, trace.AttrTokens)
		held += tokens
		prefixedInts(e, trace.AttrChanTokensPrefix, func(_ string, n int64) { inFlight += n })
	}
	if held+inFlight == total {
		return nil
	}
	return []Violation{violationAt(PropConsistentCut, complete,
		"checkpoint %d holds %d tokens (%d at tasks, %d in flight), expected %d",
		complete.CP, held+inFlight, held, inFlight, total)}
}
