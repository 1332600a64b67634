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
// and, listed in full, as many tokens as chantokens.<from>; in a cut that lists messages
// somewhere, a channel counted above zero without a list is evidence left out (unknown).
//
// A violation is pinned to the later of the channel's two snapshots, the moment the cut
// closed inconsistent, or, for tokens and missing ends, to the snapshot that shows it.
//
// Evidence: with no durably completed checkpoint, or a completed checkpoint whose cut holds
// no snapshot at all, or snapshots none of which counts a channel or tokens, or, for a token
// workload, a completed cut none of whose snapshots counts tokens, the verdict is unknown
// and the note names what was missing. Only completed checkpoints are judged, since
// only they are restored.
//
// Partial evidence is unknown too, never a pass. Zero counts may be left out, so a channel
// that no snapshot of a cut counts at either end would read 0 + 0 = 0 whatever it carried.
// A channel the trace shows anywhere (a barrier.send, barrier.recv, record.send or
// record.recv on it, or a count of it on any snapshot of any checkpoint), both of whose
// ends are in a completed cut, must be counted there at one end at least (sent. or out. at
// the sender, recv. or chan. at the receiver; in a token workload whose cut counts tokens,
// chantokens.<from> at the receiver will do): otherwise the cut is not judged on it, and
// the note names the channel and the checkpoint. A channel counted at one end only is
// judged, the other end's counts read as zero. And a task's final snapshot (its last
// snapshot.taken before its task.finish, with no restore or crash between) belongs to every
// later cut, where snapshot.carried names it: a cut completed after that snapshot without
// the task, where one of its channels has its other end in the cut, is missing that
// snapshot.carried, and the note names the task and the checkpoint, in a trace that traces
// no snapshot.carried at all; one whose engine traces them says by leaving one out that the
// cut lacks the task, which is judged (a coordinator that dropped a final snapshot). The
// task.finish may come after the cut, since a task may finish only once it hears that a
// checkpoint holding its final snapshot completed. A task that never finishes in the trace, or never took a
// snapshot, is missing from the cut as before, and records that need it fail. A violation
// found elsewhere still fails the property. Token conservation needs every snapshot of the
// cut to record its tokens and every known channel inside the cut its tokens in flight
// (chantokens.<from>, or counts that say nothing was in flight); without them a cut that
// holds more than the total still fails, since tokens are never negative, and any other is
// not judged.
func ConsistentCut(events []trace.Event, ref Reference) Result {
	return consistentCut(newTraceIndex(events), ref)
}

// ruleCutConsistent names the rule of every consistent-cut violation but channel-state.bounded.
const ruleCutConsistent = "cut.consistent"

// cutKinds are the kinds ConsistentCut reacts to.
var cutKinds = kindsOf(trace.KindSnapshotTaken, trace.KindSnapshotCarried, trace.KindCheckpointAbort,
	trace.KindCheckpointComplete, trace.KindCoordinatorRecover, trace.KindCheckpointTrigger) | finalKinds

func consistentCut(ix *traceIndex, ref Reference) Result {
	events := ix.events
	taken := make(map[taskCheckpoint]int) // index of every snapshot.taken
	cuts := make(map[uint64]map[string]int)
	judged := make(map[uint64]bool)
	var channels channelTable // scratch space of judgeCut, for every cut
	var violations []Violation
	var missing []string
	var completed, countedCuts int
	known := knownChannels(ix)
	finals := newFinalSnapshots(ix)
	splits, triggers := allSplits(ix), map[uint64]*trace.Event{}
	if len(splits) > 0 && !splitEvidence(ix) {
		missing = append(missing, "split.assign events, but no checkpoint.trigger lists the enumerator's splits (unassigned) and no reader's snapshot its own (splits)")
		splits = nil
	}
	for i := range ix.only(cutKinds) {
		e := &events[i]
		finals.observe(events, i)
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			triggers[e.CP] = e
		case trace.KindSnapshotTaken:
			taken[taskCheckpoint{e.Task, e.CP}] = i
			cutOf(cuts, e.CP)[e.Task] = i
			if v, over := channelStateOver(e, ref.Policy.ChannelStateMaxRecords); over {
				violations = append(violations, v)
			}
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
			found, lacking, counted := judgeCompletedCut(events, e, cut, ref, &cutEvidence{known, finals, &channels})
			violations = append(violations, found...)
			violations = append(violations, judgeSplitsHeldOnce(events, e, cut, triggers[e.CP], splits)...)
			missing = append(missing, lacking...)
			if counted {
				countedCuts++
			}
		}
	}
	violations = append(violations, judgeSplitOwners(ix)...)
	return cutResult(violations, completed, countedCuts, missing)
}

// cutResult is consistent-cut's verdict: violations fail it; without a completed
// checkpoint, with evidence missing or without a counted cut it is unknown.
func cutResult(violations []Violation, completed, countedCuts int, missing []string) Result {
	for i := range violations {
		if violations[i].Rule == "" {
			violations[i].Rule = ruleCutConsistent
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

// cutEvidence is what consistent-cut knows of the whole trace when it judges a cut, and its
// scratch space.
type cutEvidence struct {
	known    []knownChannel  // every channel the trace shows
	finals   *finalSnapshots // the tasks finished so far
	channels *channelTable   // scratch space of judgeCut, for every cut
}

// judgeCompletedCut judges cut, the snapshots of the checkpoint completed at complete: its
// channels, its recorded message lists and, for a token workload, its tokens. It returns the
// violations, what was missing to judge the cut whole, and whether anything was counted.
func judgeCompletedCut(events []trace.Event, complete *trace.Event, cut map[string]int, ref Reference,
	ev *cutEvidence) (violations []Violation, missing []string, counted bool) {
	violations, counted = judgeCut(events, complete, cut, ev.channels, ev.finals)
	found, unlisted := judgeRecordedLists(events, complete, cut)
	violations, missing = append(violations, found...), unlisted
	byTokens := ref.tokenWorkload() && countsTokens(events, cut)
	switch {
	case !ref.tokenWorkload():
	case byTokens:
		found, lacking := judgeTokens(events, complete, cut, ref.TokenTotal, ev)
		violations = append(violations, found...)
		missing = append(missing, lacking...)
		counted = true
	default:
		missing = append(missing, fmt.Sprintf("checkpoint %d of a token workload completed, but no snapshot of its cut counts tokens (tokens, chantokens.*)", complete.CP))
	}
	missing = append(missing, uncountedChannels(events, complete, cut, ev.channels, ev.known, byTokens)...)
	missing = append(missing, ev.finals.missingCarried(events, complete, cut, ev.known)...)
	return violations, missing, counted
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
// complete, and reports whether any snapshot counted a channel. It reads the counts into
// channels, which it clears first.
func judgeCut(events []trace.Event, complete *trace.Event, cut map[string]int, channels *channelTable,
	finals *finalSnapshots) (violations []Violation, counted bool) {
	channels.read(events, cut)
	for i := range channels.counts {
		c := &channels.counts[i]
		if !c.counted {
			continue // none of its attributes is an integer: no snapshot counts it
		}
		counted = true
		ch := c.ch
		senderIndex, senderOK := cut[ch.from]
		receiverIndex, receiverOK := cut[ch.to]
		sent, overtaken, recv, inFlight := c.sent.n, c.out.n, c.recv.n, c.inFlight.n
		switch {
		case finals.absent(ch.from, cut) || finals.absent(ch.to, cut):
			// A finished task's snapshot.carried is missing: missingCarried names it.
		case !senderOK && recv+inFlight != 0:
			violations = append(violations, onChannel(ch, violationAt(PropConsistentCut, &events[receiverIndex],
				"checkpoint %d: %s holds %d records from %s, which has no snapshot in it (neither snapshot.taken nor snapshot.carried)",
				complete.CP, ch.to, recv+inFlight, ch.from)))
		case !receiverOK && sent != overtaken:
			violations = append(violations, onChannel(ch, violationAt(PropConsistentCut, &events[senderIndex],
				"checkpoint %d: %s sent %d records to %s, which has no snapshot in it (neither snapshot.taken nor snapshot.carried)",
				complete.CP, ch.from, sent-overtaken, ch.to)))
		case senderOK && receiverOK && recv+inFlight+overtaken != sent:
			kept := ","
			if overtaken != 0 {
				kept = fmt.Sprintf(", %s kept %d as output channel state,", ch.from, overtaken)
			}
			later := max(senderIndex, receiverIndex)
			violations = append(violations, onChannel(ch, violationAt(PropConsistentCut, &events[later],
				"checkpoint %d: channel %s->%s inconsistent: %s consumed %d and recorded %d in flight%s but %s sent %d",
				complete.CP, ch.from, ch.to, ch.to, recv, inFlight, kept, ch.from, sent)))
		}
	}
	return violations, counted
}

// onChannel names the channel v is about.
func onChannel(ch channel, v Violation) Violation {
	v.From, v.To = ch.from, ch.to
	return v
}

// channelCounts are a channel's counts in a cut: sent.<to> and out.<to> on the sender's
// snapshot, recv.<from> and chan.<from> on the receiver's.
type channelCounts struct {
	ch                        channel
	sent, out, recv, inFlight count
	counted                   bool // some attribute of the channel is an integer
}

// count is one count attribute as intAttr reads it: the value of the first attribute of its
// key (0 when that one is not an integer, the nearest bound when it is out of range).
type count struct {
	n    int64
	seen bool // an attribute of the key came already, so later ones are ignored
}

// take reads value, an attribute of c's key, and reports whether it is an integer.
func (c *count) take(value string) bool {
	n, ok := parseInt(value)
	if !c.seen {
		c.n, c.seen = n, true
	}
	return ok
}

// channelTable holds the counts of the channels of a cut. consistent-cut judges thousands
// of cuts in a long trace and keeps one table for all of them, so that reading a cut
// allocates nothing once the first cuts have sized it.
type channelTable struct {
	index  map[channel]int // a channel's place in counts
	counts []channelCounts
}

// read clears the table and reads into it the channels that the snapshots of cut mention
// in a sent.<to> or out.<to> attribute of the sender or a recv.<from> or chan.<from> of the
// receiver. A channel is counted when some attribute of its key is an integer, as
// prefixedInts would find it, and each count is what intAttr would read. It reads each
// snapshot's attributes once, instead of looking each count of each channel up by a key
// built for it.
func (t *channelTable) read(events []trace.Event, cut map[string]int) {
	if t.index == nil {
		t.index = make(map[channel]int)
	}
	clear(t.index)
	t.counts = t.counts[:0]
	for task, index := range cut {
		for _, a := range events[index].Attrs {
			var ch channel
			var field func(*channelCounts) *count
			if to, ok := strings.CutPrefix(a.Key, trace.AttrSentPrefix); ok {
				ch, field = channel{task, to}, func(c *channelCounts) *count { return &c.sent }
			} else if to, ok := strings.CutPrefix(a.Key, trace.AttrOutPrefix); ok {
				ch, field = channel{task, to}, func(c *channelCounts) *count { return &c.out }
			} else if from, ok := strings.CutPrefix(a.Key, trace.AttrRecvPrefix); ok {
				ch, field = channel{from, task}, func(c *channelCounts) *count { return &c.recv }
			} else if from, ok := strings.CutPrefix(a.Key, trace.AttrChanPrefix); ok {
				ch, field = channel{from, task}, func(c *channelCounts) *count { return &c.inFlight }
			} else {
				continue
			}
			k, seen := t.index[ch]
			if !seen {
				k = len(t.counts)
				t.index[ch] = k
				t.counts = append(t.counts, channelCounts{ch: ch})
			}
			c := &t.counts[k]
			if field(c).take(a.Value) {
				c.counted = true
			}
		}
	}
}

// summarise joins the first of several missing pieces of evidence with a count of the rest,
// for a one-line note.
func summarise(missing []string) string {
	if len(missing) == 1 {
		return missing[0]
	}
	return missing[0] + " (and " + strconv.Itoa(len(missing)-1) + " more like it)"
}
