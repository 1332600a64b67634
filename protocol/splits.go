package protocol

import "slices"

// Split sources, as Flink's FLIP-27 sources run them: a split enumerator on
// the coordinator's side hands a source's splits to its readers (the
// source's tasks) one at a time, as each asks for one (Task.RequestSplit).
// The enumerator's state, the splits no reader was given, is part of every
// checkpoint (CompletedCheckpoint.Unassigned), taken as its triggers go out;
// a reader's splits and offsets are in its own snapshot
// (TaskSnapshot.SourceOffsets). A restore gives the enumerator back the
// state of the checkpoint it restores, so a split handed out after that
// checkpoint goes back to it, and is neither lost nor read twice.
//
// That holds only if, at every checkpoint, each split is in exactly one of
// the enumerator's state and the readers' snapshots. Two rules keep it so,
// as Flink's operator event valve does:
//
//   - an assignment sent before a checkpoint's trigger is in the reader's
//     snapshot: the trigger says how many assignment messages went to the
//     reader before it (Message.Seq), and a reader that has not received
//     them all declines the checkpoint (ReasonSplitsInFlight);
//   - an assignment sent while a checkpoint is pending is not in the
//     reader's snapshot of it: the assignment names the newest checkpoint
//     then pending (Message.Checkpoint), and the reader takes it only once
//     it has heard of that checkpoint (its trigger, or its end).
//
// Assignment messages are numbered per reader (Message.Seq) and taken in
// order; a reader's request says how many it received, and the coordinator
// sends again what it has not, so a lost assignment is sent again when the
// reader asks next. Once no split is left the reader is told so
// (MsgNoMoreSplits, numbered like an assignment) and may finish when it has
// read its splits. The numbering starts afresh whenever the enumerator is
// reset (a failover, a recovered coordinator), so a host must not hand a
// reader the split messages sent to an earlier incarnation of it: tag them
// with the incarnation they were sent to, as package engine does.

// SplitSource is a source whose splits the coordinator assigns.
type SplitSource struct {
	_ struct{}
	// Readers are the source's tasks, in order.
	Readers []TaskID
	// Splits are the source's splits, in the order the enumerator hands
	// them out. A split's name is unique in the job.
	Splits []string
}

// validateSplits checks that readers are known tasks without inputs, of one
// source each, and that split names are unique and non-empty.
func (t Topology) validateSplits(known map[TaskID]bool) error {
	bad := func(problem string) error { return &ConfigError{Field: "Topology.SplitSources", Problem: problem} }
	readers := map[TaskID]bool{}
	splits := map[string]bool{}
	for _, s := range t.SplitSources {
		if len(s.Readers) == 0 {
			return bad("a split source has no reader")
		}
		for _, r := range s.Readers {
			if !known[r] || readers[r] {
				return bad("reader " + string(r) + " is unknown or reads two sources")
			}
			if len(t.Inputs(r)) > 0 {
				// It would take its snapshot at a barrier, where no trigger says which
				// assignments went out before it.
				return bad("reader " + string(r) + " has an input: a reader is a source's task")
			}
			readers[r] = true
		}
		for _, split := range s.Splits {
			if split == "" || splits[split] {
				return bad("split " + split + " is empty or named twice")
			}
			splits[split] = true
		}
	}
	return nil
}

// splitEnumerator is the coordinator's side of the split sources.
type splitEnumerator struct {
	sources []SplitSource
	// source maps a reader to the index of its source.
	source map[TaskID]int
	// unassigned lists, per source, the splits no reader was given.
	unassigned [][]string
	// sent counts the split messages sent to each reader in this attempt;
	// unacked holds those the reader has not said it received.
	sent    map[TaskID]uint64
	unacked map[TaskID][]Message
}

func newSplitEnumerator(sources []SplitSource) splitEnumerator {
	e := splitEnumerator{sources: sources, source: map[TaskID]int{}}
	for i, s := range sources {
		for _, r := range s.Readers {
			e.source[r] = i
		}
	}
	e.reset(nil)
	return e
}

// reset gives the enumerator the state of checkpoint from (nil: the
// start, every split unassigned) and forgets what it sent: the readers
// restart.
func (e *splitEnumerator) reset(from *CompletedCheckpoint) {
	e.unassigned = make([][]string, len(e.sources))
	for i, s := range e.sources {
		for _, split := range s.Splits {
			if from == nil || slices.Contains(from.Unassigned, split) {
				e.unassigned[i] = append(e.unassigned[i], split)
			}
		}
	}
	e.sent, e.unacked = map[TaskID]uint64{}, map[TaskID][]Message{}
}

// state is the enumerator's state for a checkpoint: its unassigned splits,
// empty but not nil in a job with split sources, nil in one without.
func (e *splitEnumerator) state() []string {
	if len(e.sources) == 0 {
		return nil
	}
	return append([]string{}, slices.Concat(e.unassigned...)...)
}

// request answers reader r, which received ackSeq split messages: what it
// has not received yet, again, or else its next split or the news that none
// is left. Each message names pending, the newest pending checkpoint.
func (e *splitEnumerator) request(r TaskID, ackSeq uint64, pending CheckpointID) []Message {
	src, ok := e.source[r]
	if !ok {
		return nil
	}
	e.unacked[r] = slices.DeleteFunc(e.unacked[r], func(m Message) bool { return m.Seq <= ackSeq })
	if len(e.unacked[r]) == 0 {
		e.sent[r]++
		m := Message{Type: MsgNoMoreSplits, Task: r, Seq: e.sent[r]}
		if left := e.unassigned[src]; len(left) > 0 {
			m.Type, m.Split = MsgSplitAssign, left[0]
			e.unassigned[src] = left[1:]
		}
		e.unacked[r] = append(e.unacked[r], m)
	}
	out := slices.Clone(e.unacked[r])
	for i := range out {
		out[i].Checkpoint = pending
	}
	return out
}

// pendingTriggered returns the newest checkpoint whose triggers went out
// and that has not ended, 0 if none.
func (c *coordinatorState) pendingTriggered() CheckpointID {
	var id CheckpointID
	for _, p := range c.pending {
		if p.phase == phaseCollecting || p.phase == phasePersisting {
			id = max(id, p.id)
		}
	}
	return id
}

// splitRequest answers a reader's MsgSplitRequest.
func (c *coordinatorState) splitRequest(m Message) error {
	if _, ok := c.splits.source[m.Task]; !ok {
		return ErrUnknownTask
	}
	if c.failingOverOrRequested() || c.jobFinished {
		return nil // the readers restart, or have nothing left to read
	}
	c.ready.Messages = append(c.ready.Messages, c.splits.request(m.Task, m.Seq, c.pendingTriggered())...)
	return nil
}
