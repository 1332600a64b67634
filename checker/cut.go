package checker

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// channel is a directed FIFO channel between two tasks.
type channel struct{ from, to string }

// ConsistentCut checks that every durably completed checkpoint is a consistent global state.
// A checkpoint's cut is, per task, its snapshot.taken for the checkpoint or the earlier
// snapshot a snapshot.carried names (a finished task's final snapshot, carried over). For
// each channel S -> R that either end's snapshot mentions:
//
//	recv.S at R + chan.S at R + out.R at S = sent.R at S
//
// That is, every record S sent before its snapshot is reflected in R's state, or saved as
// channel state by R (it arrived after R's snapshot, before the barrier), or saved by S as
// output-side channel state (S's unaligned barrier overtook it in S's output queue); and
// nothing R consumed before its snapshot was sent after S's. Senders and receivers are
// judged alike: an end missing from the cut counts as a snapshot that holds nothing, so
// records at the other end that need it are a violation. For a token workload
// (ref.TokenWorkload, or ref.TokenTotal > 0) the tokens held at the tasks plus those
// recorded in flight (chantokens.*) must add up to the total. Where a snapshot lists the
// messages it recorded on a channel (chanmsgs.<from>), the list must agree with its counts:
// as many messages as chan.<from>, with those the list leaves out counted in chanmore.<from>,
// and, listed in full, as many tokens as chantokens.<from>.
//
// A violation is pinned to the later of the channel's two snapshots, the moment the cut
// closed inconsistent, or, for tokens and missing ends, to the snapshot that shows it.
//
// Evidence: with no durably completed checkpoint, or a completed checkpoint whose cut holds
// no snapshot at all, or snapshots none of which counts a channel or tokens, the verdict is
// unknown and the note names what was missing. Only completed checkpoints are judged, since
// only they are restored.
func ConsistentCut(events []trace.Event, ref Reference) Result {
	return consistentCut(newTraceIndex(events), ref)
}

// cutKinds are the kinds ConsistentCut reacts to.
var cutKinds = kindsOf(trace.KindSnapshotTaken, trace.KindSnapshotCarried, trace.KindCheckpointAbort,
	trace.KindCheckpointComplete, trace.KindCoordinatorRecover)

func consistentCut(ix *traceIndex, ref Reference) Result {
	events := ix.events
	taken := make(map[taskCheckpoint]int) // index of every snapshot.taken
	cuts := make(map[uint64]map[string]int)
	judged := make(map[uint64]bool)
	var violations []Violation
	var missing []string
	var completed, countedCuts int
	for i := range ix.only(cutKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindSnapshotTaken:
			taken[taskCheckpoint{e.Task, e.CP}] = i
			cutOf(cuts, e.CP)[e.Task] = i
		case trace.KindSnapshotCarried:
			from, _ := intAttr(e, trace.AttrTaken)
			index, ok := taken[taskCheckpoint{e.Task, uint64(from)}]
			if !ok {
				violations = append(violations, violationAt(PropConsistentCut, e,
					"checkpoint %d carries %s's snapshot of checkpoint %d, which %s never took",
					e.CP, e.Task, from, e.Task))
				continue
			}
			cutOf(cuts, e.CP)[e.Task] = index
		case trace.KindCheckpointAbort:
			delete(cuts, e.CP)
		case trace.KindCheckpointComplete, trace.KindCoordinatorRecover:
			if _, ok := durablyCompletes(e); !ok || judged[e.CP] {
				continue
			}
			judged[e.CP] = true
			completed++
			cut := cuts[e.CP]
			delete(cuts, e.CP)
			if len(cut) == 0 {
				missing = append(missing, fmt.Sprintf("checkpoint %d completed but no snapshot.taken or snapshot.carried for it", e.CP))
				continue
			}
			found, counted := judgeCut(events, e, cut)
			violations = append(violations, found...)
			violations = append(violations, judgeRecordedLists(events, e, cut)...)
			if ref.tokenWorkload() && countsTokens(events, cut) {
				violations = append(violations, judgeTokens(events, e, cut, ref.TokenTotal)...)
				counted = true
			}
			if counted {
				countedCuts++
			}
		}
	}
	res := newResult(PropConsistentCut, violations)
	switch {
	case res.Verdict == VerdictFail:
	case completed == 0:
		return unknownResult(PropConsistentCut, "no checkpoint.complete (or coordinator.recover of one): no cut to judge")
	case len(missing) > 0:
		return unknownResult(PropConsistentCut, summarise(missing))
	case countedCuts == 0:
		return unknownResult(PropConsistentCut, "no snapshot.taken of a completed checkpoint counts a channel (sent., recv., chan., out.) or tokens")
	}
	return res
}

// cutOf returns the cut of checkpoint cp being collected, task -> index of its snapshot.
func cutOf(cuts map[uint64]map[string]int, cp uint64) map[string]int {
	cut := cuts[cp]
	if cut == nil {
		cut = make(map[string]int)
		cuts[cp] = cut
	}
	return cut
}

// judgeCut checks every channel of cut, the snapshots of the checkpoint completed at
// complete, and reports whether any snapshot counted a channel.
func judgeCut(events []trace.Event, complete *trace.Event, cut map[string]int) (violations []Violation, counted bool) {
	channels := make(map[channel]bool)
	for task, index := range cut {
		e := &events[index]
		outgoing := func(to string, _ int64) { channels[channel{task, to}] = true }
		incoming := func(from string, _ int64) { channels[channel{from, task}] = true }
		prefixedInts(e, trace.AttrSentPrefix, outgoing)
		prefixedInts(e, trace.AttrOutPrefix, outgoing)
		prefixedInts(e, trace.AttrRecvPrefix, incoming)
		prefixedInts(e, trace.AttrChanPrefix, incoming)
	}
	for ch := range channels {
		senderIndex, senderOK := cut[ch.from]
		receiverIndex, receiverOK := cut[ch.to]
		var sent, overtaken, recv, inFlight int64
		if senderOK {
			sent, _ = intAttr(&events[senderIndex], trace.AttrSentPrefix+ch.to)
			overtaken, _ = intAttr(&events[senderIndex], trace.AttrOutPrefix+ch.to)
		}
		if receiverOK {
			recv, _ = intAttr(&events[receiverIndex], trace.AttrRecvPrefix+ch.from)
			inFlight, _ = intAttr(&events[receiverIndex], trace.AttrChanPrefix+ch.from)
		}
		switch {
		case !senderOK && recv+inFlight != 0:
			violations = append(violations, violationAt(PropConsistentCut, &events[receiverIndex],
				"checkpoint %d: %s holds %d records from %s, which has no snapshot in it (neither snapshot.taken nor snapshot.carried)",
				complete.CP, ch.to, recv+inFlight, ch.from))
		case !receiverOK && sent != overtaken:
			violations = append(violations, violationAt(PropConsistentCut, &events[senderIndex],
				"checkpoint %d: %s sent %d records to %s, which has no snapshot in it (neither snapshot.taken nor snapshot.carried)",
				complete.CP, ch.from, sent-overtaken, ch.to))
		case senderOK && receiverOK && recv+inFlight+overtaken != sent:
			kept := ","
			if overtaken != 0 {
				kept = fmt.Sprintf(", %s kept %d as output channel state,", ch.from, overtaken)
			}
			later := max(senderIndex, receiverIndex)
			violations = append(violations, violationAt(PropConsistentCut, &events[later],
				"checkpoint %d: channel %s->%s inconsistent: %s consumed %d and recorded %d in flight%s but %s sent %d",
				complete.CP, ch.from, ch.to, ch.to, recv, inFlight, kept, ch.from, sent))
		}
	}
	return violations, len(channels) > 0
}

// countsTokens reports whether any snapshot of cut counts tokens (tokens, chantokens.*): a
// cut without any says nothing about conservation, even of a total of zero.
func countsTokens(events []trace.Event, cut map[string]int) bool {
	for _, index := range cut {
		for _, a := range events[index].Attrs {
			if a.Key == trace.AttrTokens || strings.HasPrefix(a.Key, trace.AttrChanTokensPrefix) {
				return true
			}
		}
	}
	return false
}

// judgeTokens checks token conservation in the checkpoint completed at complete.
func judgeTokens(events []trace.Event, complete *trace.Event, cut map[string]int, total int64) []Violation {
	var held, inFlight int64
	for _, index := range cut {
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

// summarise joins the first of several missing pieces of evidence with a count of the rest,
// for a one-line note.
func summarise(missing []string) string {
	if len(missing) == 1 {
		return missing[0]
	}
	return missing[0] + " (and " + strconv.Itoa(len(missing)-1) + " more like it)"
}
