package checker

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// knownChannel is a channel the trace shows to exist, with the first event that shows it,
// so that a note can point the reader at it.
type knownChannel struct {
	ch    channel
	first *trace.Event
}

// channelKinds are the kinds whose events name both ends of a channel.
var channelKinds = kindsOf(trace.KindBarrierSend, trace.KindBarrierRecv, trace.KindRecordSend,
	trace.KindRecordRecv, trace.KindSnapshotTaken)

// knownChannels lists, in the order the trace first shows them, the channels that any event
// names: a barrier or record sent or received on it, or a count of it on any snapshot (of
// any checkpoint, completed or not). Zero counts may be left out of snapshot.taken, so a
// channel no snapshot of a cut counts looks empty there; the list tells such a channel from
// one that does not exist.
func knownChannels(ix *traceIndex) []knownChannel {
	events := ix.events
	seen := make(map[channel]bool)
	var known []knownChannel
	add := func(ch channel, e *trace.Event) {
		if ch.from == "" || ch.to == "" || seen[ch] {
			return
		}
		seen[ch] = true
		known = append(known, knownChannel{ch, e})
	}
	for i := range ix.only(channelKinds) {
		e := &events[i]
		switch e.Kind {
		case trace.KindBarrierSend, trace.KindRecordSend:
			add(channel{e.Task, e.To}, e)
		case trace.KindBarrierRecv, trace.KindRecordRecv:
			add(channel{e.From, e.Task}, e)
		case trace.KindSnapshotTaken:
			for _, a := range e.Attrs {
				if ch, ok := channelOfCount(e.Task, a.Key); ok {
					add(ch, e)
				}
			}
		}
	}
	return known
}

// outgoingCounts and incomingCounts are the prefixes of the per-channel attributes of a
// snapshot, by the end of the channel the snapshot's task is.
var (
	outgoingCounts = []string{trace.AttrSentPrefix, trace.AttrOutPrefix}
	incomingCounts = []string{trace.AttrRecvPrefix, trace.AttrChanPrefix, trace.AttrChanTokensPrefix,
		trace.AttrChanMsgsPrefix, trace.AttrChanMorePrefix}
)

// channelOfCount returns the channel that key, an attribute of task's snapshot, is about.
func channelOfCount(task, key string) (channel, bool) {
	for _, prefix := range outgoingCounts {
		if to, ok := strings.CutPrefix(key, prefix); ok {
			return channel{task, to}, true
		}
	}
	for _, prefix := range incomingCounts {
		if from, ok := strings.CutPrefix(key, prefix); ok {
			return channel{from, task}, true
		}
	}
	return channel{}, false
}

// uncountedChannels returns, for the checkpoint completed at complete, a note for each known
// channel both of whose ends are in cut but which no snapshot of cut counts at either end:
// 0 + 0 = 0 would pass it whatever it carried, so the cut is not judged on it. In a token
// workload whose cut counts tokens, a channel whose receiver records the tokens in flight on
// it (chantokens.<from>) is judged by token conservation instead, and needs no counts.
func uncountedChannels(events []trace.Event, complete *trace.Event, cut map[string]int,
	channels *channelTable, known []knownChannel, byTokens bool) []string {
	var missing []string
	for _, k := range known {
		senderIndex, senderOK := cut[k.ch.from]
		receiverIndex, receiverOK := cut[k.ch.to]
		if !senderOK || !receiverOK || channels.counted(k.ch) {
			continue
		}
		if byTokens && hasAttr(&events[receiverIndex], trace.AttrChanTokensPrefix+k.ch.from) {
			continue
		}
		missing = append(missing, fmt.Sprintf(
			"checkpoint %d: channel %s->%s (seen at seq %d, %s) is counted at neither end of its cut "+
				"(sent./out. on %s's snapshot at seq %d, recv./chan. on %s's at seq %d): not judged",
			complete.CP, k.ch.from, k.ch.to, k.first.Seq, k.first.Kind,
			k.ch.from, events[senderIndex].Seq, k.ch.to, events[receiverIndex].Seq))
	}
	return missing
}

// counted reports whether some snapshot of the cut read last counts ch.
func (t *channelTable) counted(ch channel) bool {
	k, ok := t.index[ch]
	return ok && t.counts[k].counted
}

// inFlight returns the records the cut read last records in flight on ch (chan.<from>).
func (t *channelTable) inFlight(ch channel) int64 {
	if k, ok := t.index[ch]; ok {
		return t.counts[k].inFlight.n
	}
	return 0
}

// hasAttr reports whether e has an attribute key.
func hasAttr(e *trace.Event, key string) bool {
	return slices.ContainsFunc(e.Attrs, func(a trace.Attr) bool { return a.Key == key })
}
