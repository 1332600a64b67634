package protocol

import (
	"cmp"
	"slices"
)

// The reader's side of a split source (see splits.go): split messages are
// taken in the order of their Seq, each only once the reader has heard of
// the checkpoint it names, and handed to the host in TaskReady.Splits and
// TaskReady.NoMoreSplits after the snapshots of the same Ready.

// splitMessage files an assignment or the news that no split is left, and
// hands out what may be taken now.
func (t *taskState) splitMessage(m Message) {
	if m.Seq <= t.splitsRecv || slices.ContainsFunc(t.splitInbox, func(held Message) bool { return held.Seq == m.Seq }) {
		return // a copy sent again
	}
	i, _ := slices.BinarySearchFunc(t.splitInbox, m.Seq, func(held Message, seq uint64) int {
		return cmp.Compare(held.Seq, seq)
	})
	t.splitInbox = slices.Insert(t.splitInbox, i, m)
	t.releaseSplits()
}

// releaseSplits hands out the held split messages that are next in order
// and whose checkpoint the reader has heard of: its snapshot of that
// checkpoint, if it takes one, is already asked for, so it does not hold the
// split, which the enumerator's state of it still does.
func (t *taskState) releaseSplits() {
	for len(t.splitInbox) > 0 {
		m := t.splitInbox[0]
		if m.Seq != t.splitsRecv+1 || m.Checkpoint > t.staleUpTo && m.Checkpoint > t.lastNotified {
			return
		}
		t.splitInbox = t.splitInbox[1:]
		t.splitsRecv++
		if m.Type == MsgNoMoreSplits {
			t.ready.NoMoreSplits = true
			continue
		}
		t.ready.Splits = push(t.ready.Splits, m.Split)
	}
}

// splitsInFlight reports whether a reader's trigger m was sent after split
// messages the reader has not taken yet: its snapshot would miss them.
func (t *taskState) splitsInFlight(m Message) bool { return m.Seq > t.splitsRecv }

// requestSplit asks the coordinator for a split.
func (t *taskState) requestSplit(now Time) {
	t.begin(now)
	t.ready.Messages = push(t.ready.Messages, Message{Type: MsgSplitRequest, Task: t.cfg.ID, Seq: t.splitsRecv})
}
