package checker

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

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

// judgeTokens checks token conservation in the checkpoint completed at complete. Tokens are
// never negative, so pieces the cut leaves unrecorded (unrecordedTokens) can only add to
// what it holds: more than the total fails however they are filled in, while as many or
// fewer is not judged, since the missing pieces might hold the difference or hide an excess.
func judgeTokens(events []trace.Event, complete *trace.Event, cut map[string]int, total int64,
	ev *cutEvidence) (violations []Violation, missing []string) {
	var held, inFlight int64
	for _, index := range cut {
		e := &events[index]
		tokens, _ := intAttr(e, trace.AttrTokens)
		held += tokens
		prefixedInts(e, trace.AttrChanTokensPrefix, func(_ string, n int64) { inFlight += n })
	}
	unrecorded := unrecordedTokens(events, cut, ev.known, ev.channels)
	switch {
	case held+inFlight == total && unrecorded == "":
		return nil, nil
	case held+inFlight <= total && unrecorded != "":
		return nil, []string{fmt.Sprintf("checkpoint %d holds %d tokens (%d at tasks, %d in flight) of %d, but %s: not judged",
			complete.CP, held+inFlight, held, inFlight, total, unrecorded)}
	}
	return []Violation{violationAt(PropConsistentCut, complete,
		"checkpoint %d holds %d tokens (%d at tasks, %d in flight), expected %d",
		complete.CP, held+inFlight, held, inFlight, total)}, nil
}

// unrecordedTokens names the first piece of a token cut whose tokens no snapshot records,
// or returns "": a snapshot without tokens, or a known channel, both of whose ends are in
// the cut, whose receiver records neither the tokens in flight on it (chantokens.<from>)
// nor that nothing was in flight (its counts, read as judgeCut reads them, with chan.<from>
// 0 or left out).
func unrecordedTokens(events []trace.Event, cut map[string]int, known []knownChannel, channels *channelTable) string {
	for _, task := range slices.Sorted(maps.Keys(cut)) { // the note names one: the first by name
		if index := cut[task]; !hasAttr(&events[index], trace.AttrTokens) {
			return fmt.Sprintf("%s's snapshot (seq %d) records no tokens", task, events[index].Seq)
		}
	}
	for _, k := range known {
		receiverIndex, receiverOK := cut[k.ch.to]
		if _, senderOK := cut[k.ch.from]; !senderOK || !receiverOK {
			continue
		}
		receiver := &events[receiverIndex]
		if hasAttr(receiver, trace.AttrChanTokensPrefix+k.ch.from) {
			continue
		}
		if channels.counted(k.ch) && channels.inFlight(k.ch) == 0 {
			continue
		}
		return fmt.Sprintf("%s's snapshot (seq %d) records no tokens in flight from %s (chantokens.%s)",
			k.ch.to, receiver.Seq, k.ch.from, k.ch.from)
	}
	return ""
}
