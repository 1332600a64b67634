package checker

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// ExpectedSnapshot is a global snapshot a run must record, as a course's golden test states
// it: the tokens each process holds and the messages recorded in flight on each channel.
type ExpectedSnapshot struct {
	// CP is the checkpoint id under which the trace shows the snapshot.
	CP uint64
	// Name says how whoever expects it names the snapshot (a scenario: "script[3]"), for
	// messages; it may be empty.
	Name string
	// Tokens is the balance each named process records. A process left out is not compared.
	Tokens map[string]int64
	// Channels are the messages recorded in flight, by channel ("N1->N2"), each message's
	// tokens in the order they arrived. A channel left out must have recorded none.
	Channels map[string][]int64
}

// ChannelName is how ExpectedSnapshot.Channels names the channel from task from to task to.
func ChannelName(from, to string) string { return from + "->" + to }

// label names the expected snapshot in messages.
func (x ExpectedSnapshot) label() string {
	if x.Name == "" {
		return fmt.Sprintf("checkpoint %d", x.CP)
	}
	return fmt.Sprintf("checkpoint %d (%s)", x.CP, x.Name)
}

// recordedList is what one snapshot.taken says of the messages recorded on one of its input
// channels.
type recordedList struct {
	known bool    // the snapshot counts the channel (chan.) or lists it (chanmsgs.)
	count int64   // chan.<from>, or the list's length when there is no count
	items []int64 // chanmsgs.<from>, the first messages in order
	whole bool    // items holds every recorded message
}

// recordedOn reads what snapshot e recorded on the channel from task from. A channel with a
// count of zero has recorded nothing, listed or not; a count above zero without a list
// (another engine, or a schema before chanmsgs) is known but not whole.
func recordedOn(e *trace.Event, from string) recordedList {
	var r recordedList
	count, counted := intAttr(e, trace.AttrChanPrefix+from)
	list, listed := e.Attr(trace.AttrChanMsgsPrefix + from)
	r.known = counted || listed
	if listed && list != "" {
		for item := range strings.SplitSeq(list, trace.ListSeparator) {
			n, err := strconv.ParseInt(item, 10, 64)
			if err != nil {
				return recordedList{known: r.known, count: count} // well-formed reports it
			}
			r.items = append(r.items, n)
		}
	}
	more, cut := intAttr(e, trace.AttrChanMorePrefix+from)
	if !counted {
		count = int64(len(r.items)) + more
	}
	r.count = count
	r.whole = !cut && int64(len(r.items)) == count
	return r
}

// inputsOf returns the tasks whose channels into snapshot e it counts or lists.
func inputsOf(e *trace.Event) []string {
	return tasksAfter(e, trace.AttrChanPrefix, trace.AttrChanMsgsPrefix, trace.AttrChanMorePrefix)
}

// outputsOf returns the receivers of the channels snapshot e counts what it sent on
// (sent.<to>, out.<to>).
func outputsOf(e *trace.Event) []string {
	return tasksAfter(e, trace.AttrSentPrefix, trace.AttrOutPrefix)
}

// tasksAfter returns, in order and once each, the task ids that follow any of prefixes in
// e's attribute keys.
func tasksAfter(e *trace.Event, prefixes ...string) []string {
	var tasks []string
	for _, a := range e.Attrs {
		for _, prefix := range prefixes {
			if rest, ok := strings.CutPrefix(a.Key, prefix); ok && rest != "" && !slices.Contains(tasks, rest) {
				tasks = append(tasks, rest)
			}
		}
	}
	slices.Sort(tasks)
	return tasks
}

// listsMessages reports whether snapshot e lists the messages of some channel
// (chanmsgs.<from>).
func listsMessages(e *trace.Event) bool {
	for _, a := range e.Attrs {
		if from, ok := strings.CutPrefix(a.Key, trace.AttrChanMsgsPrefix); ok && from != "" {
			return true
		}
	}
	return false
}

// judgeRecordedLists checks, for consistent-cut, that each list of recorded messages of the
// cut agrees with the snapshot's own counts: as many messages as chan.<from> (listed plus
// chanmore.<from>), and, when whole, summing to chantokens.<from>. In a cut that lists
// messages somewhere, a channel counted above zero without a list is evidence left out,
// not an empty list: it is returned as missing, which makes the verdict unknown.
func judgeRecordedLists(events []trace.Event, complete *trace.Event, cut map[string]int) (violations []Violation, missing []string) {
	// Most snapshots list no messages; a cut without any needs no sorting or parsing.
	lists := false
	for _, index := range cut {
		lists = lists || listsMessages(&events[index])
	}
	if !lists {
		return nil, nil
	}
	for _, task := range slices.Sorted(maps.Keys(cut)) {
		e := &events[cut[task]]
		for _, from := range inputsOf(e) {
			list, listed := e.Attr(trace.AttrChanMsgsPrefix + from)
			if !listed {
				if count, _ := intAttr(e, trace.AttrChanPrefix+from); count > 0 {
					missing = append(missing, fmt.Sprintf("checkpoint %d: %s counts %d messages from %s but lists none (chanmsgs.%s), where its cut lists others",
						complete.CP, task, count, from, from))
				}
				continue
			}
			r := recordedOn(e, from)
			more, _ := intAttr(e, trace.AttrChanMorePrefix+from)
			if count, ok := intAttr(e, trace.AttrChanPrefix+from); ok && int64(len(r.items))+more != count {
				violations = append(violations, violationAt(PropConsistentCut, e,
					"checkpoint %d: %s lists %d messages from %s (%d more left out) but counts %d",
					complete.CP, task, len(r.items), from, more, count))
				continue
			}
			var sum int64
			for _, n := range r.items {
				sum += n
			}
			if tokens, ok := intAttr(e, trace.AttrChanTokensPrefix+from); ok && more == 0 && sum != tokens {
				violations = append(violations, violationAt(PropConsistentCut, e,
					"checkpoint %d: %s lists messages from %s of %d tokens in all ([%s]) but records %d tokens in flight",
					complete.CP, task, from, sum, list, tokens))
			}
		}
	}
	return violations, missing
}

// ExpectedSnapshots checks that every global snapshot the reference expects
// (Reference.Snapshots) completed, holding the expected tokens at each process named and
// exactly the expected messages, in order, on each channel. The snapshot of checkpoint cp is
// its cut, as for consistent-cut: per task its snapshot.taken for cp (or the snapshot a
// snapshot.carried names); a process's tokens are its tokens attribute, a channel's messages
// the chanmsgs.<from> list of the receiver's snapshot (chan.<from> of zero: none).
//
// A violation is pinned to the snapshot that differs, or to the checkpoint.abort of an
// expected snapshot that was aborted.
//
// Evidence: with no expectation the property is unexercised. An expected snapshot whose
// checkpoint neither completed nor aborted in the trace, a cut without any snapshot, a process
// of it without a snapshot in the cut or without tokens, and a channel (named by the
// expectation, or counted by its sender's or its receiver's snapshot) that the receiver's
// snapshot does not count, or whose messages it counts but does not list in full where the
// expectation needs them, make the verdict unknown, and the note says which.
func ExpectedSnapshots(events []trace.Event, ref Reference) Result {
	if len(ref.Snapshots) == 0 {
		return unexercisedResult(PropExpectedSnapshot, "the reference expects no global snapshot")
	}
	wanted := make(map[uint64]bool, len(ref.Snapshots))
	for _, x := range ref.Snapshots {
		wanted[x.CP] = true
	}
	taken := make(map[taskCheckpoint]int)
	cuts := make(map[uint64]map[string]int)
	completed := make(map[uint64]map[string]int) // the cut of each wanted checkpoint completed
	aborted := make(map[uint64]int)
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindSnapshotTaken:
			taken[taskCheckpoint{e.Task, e.CP}] = i
			if wanted[e.CP] {
				cutOf(cuts, e.CP)[e.Task] = i
			}
		case trace.KindSnapshotCarried:
			from, _ := intAttr(e, trace.AttrTaken)
			if index, ok := taken[taskCheckpoint{e.Task, uint64(from)}]; ok && wanted[e.CP] {
				cutOf(cuts, e.CP)[e.Task] = index
			}
		case trace.KindCheckpointAbort:
			if _, done := completed[e.CP]; wanted[e.CP] && !done {
				if _, seen := aborted[e.CP]; !seen {
					aborted[e.CP] = i
				}
			}
		case trace.KindCheckpointComplete, trace.KindCoordinatorRecover:
			if cp, ok := durablyCompletes(e); ok && wanted[cp] {
				if _, done := completed[cp]; !done {
					completed[cp] = cuts[cp]
				}
			}
		}
	}
	var violations []Violation
	var missing []string
	for _, x := range ref.Snapshots {
		cut, done := completed[x.CP]
		if !done {
			if i, ok := aborted[x.CP]; ok {
				violations = append(violations, violationAt(PropExpectedSnapshot, &events[i],
					"%s was aborted (%s), expected it to complete", x.label(), events[i].Reason))
			} else {
				missing = append(missing, fmt.Sprintf("%s never completed in the trace", x.label()))
			}
			continue
		}
		found, lacking := judgeExpected(events, x, cut)
		violations = append(violations, found...)
		missing = append(missing, lacking...)
	}
	res := newResult(PropExpectedSnapshot, violations)
	if res.Verdict == VerdictPass && len(missing) > 0 {
		return unknownResult(PropExpectedSnapshot, summarise(missing))
	}
	return res
}

// judgeExpected compares the completed cut of x's checkpoint with x.
func judgeExpected(events []trace.Event, x ExpectedSnapshot, cut map[string]int) (violations []Violation, missing []string) {
	if len(cut) == 0 {
		return nil, []string{fmt.Sprintf("%s completed without any snapshot in the trace", x.label())}
	}
	for _, process := range slices.Sorted(maps.Keys(x.Tokens)) {
		index, ok := cut[process]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s completed without a snapshot of %s", x.label(), process))
			continue
		}
		e := &events[index]
		tokens, ok := intAttr(e, trace.AttrTokens)
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s: %s's snapshot records no tokens", x.label(), process))
		case tokens != x.Tokens[process]:
			violations = append(violations, violationAt(PropExpectedSnapshot, e,
				"%s: %s holds %d tokens, expected %d", x.label(), process, tokens, x.Tokens[process]))
		}
	}
	// Every channel the expectation names, and every channel a snapshot of the cut records
	// on, which must then be expected.
	channels := make(map[string][2]string)
	for name := range x.Channels {
		from, to, ok := strings.Cut(name, "->")
		if !ok {
			missing = append(missing, fmt.Sprintf("%s: %q names no channel (want from->to)", x.label(), name))
			continue
		}
		channels[name] = [2]string{from, to}
	}
	for task, index := range cut {
		for _, from := range inputsOf(&events[index]) {
			channels[ChannelName(from, task)] = [2]string{from, task}
		}
		// A channel its sender counts is one the cut must record at its receiver too.
		for _, to := range outputsOf(&events[index]) {
			channels[ChannelName(task, to)] = [2]string{task, to}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(channels)) {
		from, to := channels[name][0], channels[name][1]
		want := x.Channels[name]
		index, ok := cut[to]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s completed without a snapshot of %s, the receiver of %s", x.label(), to, name))
			continue
		}
		e := &events[index]
		r := recordedOn(e, from)
		switch {
		case !r.known:
			missing = append(missing, fmt.Sprintf("%s: %s's snapshot says nothing of channel %s", x.label(), to, name))
		case r.whole && !slices.Equal(r.items, want) || r.count != int64(len(want)):
			violations = append(violations, violationAt(PropExpectedSnapshot, e,
				"%s: channel %s recorded %s, expected %s", x.label(), name, formatMessages(r), formatList(want)))
		case !r.whole && !slices.Equal(r.items, want[:min(len(r.items), len(want))]):
			violations = append(violations, violationAt(PropExpectedSnapshot, e,
				"%s: channel %s recorded %s, expected %s", x.label(), name, formatMessages(r), formatList(want)))
		case !r.whole:
			missing = append(missing, fmt.Sprintf("%s: %s's snapshot counts %d messages on channel %s but lists %d",
				x.label(), to, r.count, name, len(r.items)))
		}
	}
	return violations, missing
}

// formatList writes messages as [1 2 3].
func formatList(items []int64) string {
	parts := make([]string, len(items))
	for i, n := range items {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// formatMessages writes a recorded list, with what it leaves out: [1 2 ...+3].
func formatMessages(r recordedList) string {
	if r.whole {
		return formatList(r.items)
	}
	more := fmt.Sprintf("...+%d]", r.count-int64(len(r.items)))
	if len(r.items) == 0 {
		return "[" + more
	}
	s := formatList(r.items)
	return s[:len(s)-1] + " " + more
}
