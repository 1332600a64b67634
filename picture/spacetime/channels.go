package spacetime

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/checker"
	"github.com/ckptsim/ckptsim/trace"
)

// A violation that names a channel (a cut that does not balance on it) is explained by the
// channel's story: what each snapshot said of it, checkpoint by checkpoint, and the records
// that cross the violated cut. The page shows the story of the violation in focus.

// channelStory is the story of one channel that violations name.
type channelStory struct {
	From       string       `json:"from"`
	To         string       `json:"to"`
	Violations []int        `json:"violations"` // indices into the model's violations
	Rows       []channelRow `json:"rows"`
}

// channelRow is what the two snapshots of one checkpoint said of the channel: the sender's
// records sent (sent.<to>) and kept as output channel state (out.<to>), the receiver's
// records consumed (recv.<from>) and recorded in flight (chan.<from>). A side without a
// snapshot has seq 0. Crossing says, in words, which records cross the cut, if any do.
type channelRow struct {
	CP       uint64 `json:"cp"`
	SentSeq  uint64 `json:"sentSeq"`
	Sent     int64  `json:"sent"`
	Kept     int64  `json:"kept"`
	RecvSeq  uint64 `json:"recvSeq"`
	Recv     int64  `json:"recv"`
	InFlight int64  `json:"inFlight"`
	Crossing string `json:"crossing,omitempty"`
}

// channelStories tells the story of every channel the violations name, in the order of
// their first violation.
func channelStories(events []trace.Event, vs []checker.Violation) []channelStory {
	var stories []channelStory
	index := map[[2]string]int{}
	for k, v := range vs {
		if v.From == "" || v.To == "" {
			continue
		}
		key := [2]string{v.From, v.To}
		if i, ok := index[key]; ok {
			stories[i].Violations = append(stories[i].Violations, k)
			continue
		}
		index[key] = len(stories)
		stories = append(stories, channelStory{From: v.From, To: v.To, Violations: []int{k}})
	}
	for i := range stories {
		stories[i].Rows = channelRows(events, stories[i].From, stories[i].To)
	}
	return stories
}

// channelRows reads the channel's counts off every snapshot.taken of its two ends, the
// latest for each checkpoint.
func channelRows(events []trace.Event, from, to string) []channelRow {
	byCP := map[uint64]*channelRow{}
	row := func(cp uint64) *channelRow {
		if byCP[cp] == nil {
			byCP[cp] = &channelRow{CP: cp}
		}
		return byCP[cp]
	}
	for i := range events {
		e := &events[i]
		if e.Kind != trace.KindSnapshotTaken {
			continue
		}
		switch e.Task {
		case from:
			r := row(e.CP)
			r.SentSeq, r.Sent, r.Kept = e.Seq, attrInt(e, trace.AttrSentPrefix+to), attrInt(e, trace.AttrOutPrefix+to)
		case to:
			r := row(e.CP)
			r.RecvSeq, r.Recv, r.InFlight = e.Seq, attrInt(e, trace.AttrRecvPrefix+from), attrInt(e, trace.AttrChanPrefix+from)
		}
	}
	rows := make([]channelRow, 0, len(byCP))
	for _, r := range byCP {
		r.Crossing = crossing(events, *r, from, to)
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b channelRow) int { return cmp.Compare(a.CP, b.CP) })
	return rows
}

// crossing says which records cross the cut of row's checkpoint on the channel: sent
// before the sender's snapshot but neither consumed before the receiver's nor recorded
// in flight (a restore loses them), or taken in by the receiver before its snapshot but
// sent after the sender's (a restore takes them twice). Records are numbered on the
// channel from the job's start, as the counts are; they are named when the trace holds
// record events for them.
func crossing(events []trace.Event, r channelRow, from, to string) string {
	if r.SentSeq == 0 || r.RecvSeq == 0 {
		return ""
	}
	held := r.Recv + r.InFlight + r.Kept
	switch {
	case r.Sent > held:
		return fmt.Sprintf("records %s sent by %s before its snapshot are in neither snapshot: a restore from %d loses them",
			span(events, from, to, held+1, r.Sent), from, r.CP)
	case r.Sent < held:
		return fmt.Sprintf("records %s that %s took in before its snapshot were sent after %s's: a restore from %d takes them twice",
			span(events, from, to, r.Sent+1, held), to, from, r.CP)
	}
	return ""
}

// span renders the records numbered first to last on the channel, with their ids when the
// trace's record.send events name them (only for a sender that never restored from a
// checkpoint, whose numbering then starts with the job's).
func span(events []trace.Event, from, to string, first, last int64) string {
	s := "#" + strconv.FormatInt(first, 10)
	if last > first {
		s += "-#" + strconv.FormatInt(last, 10)
	}
	var ids []string
	var n int64
	for i := range events {
		e := &events[i]
		if e.Task != from {
			continue
		}
		if e.Kind == trace.KindTaskRestore && e.CP > 0 {
			return s // sends after a restore start from its counts: not numbered here
		}
		if e.Kind == trace.KindRecordSend && e.To == to {
			if n++; n >= first && n <= last && len(ids) < 8 {
				ids = append(ids, e.RID)
			}
		}
	}
	if len(ids) == 0 {
		return s
	}
	return s + " (" + strings.Join(ids, ", ") + ")"
}

// attrInt reads an integer attribute of e, 0 when it is absent or not a number.
func attrInt(e *trace.Event, key string) int64 {
	v, _ := e.Attr(key)
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}
