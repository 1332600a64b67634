package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// A source whose splits the coordinator assigns (Source.Enumerated) starts with none. Its
// task asks the coordinator's split enumerator for one whenever it has read the splits it
// has (protocol.Task.RequestSplit), reads what it is given (TaskReady.Splits), and finishes
// once told that none is left (TaskReady.NoMoreSplits) and it has read its own. It asks
// again every splitRetry polls while no answer comes: the request or the answer may be
// lost. Its snapshots record each split it holds with its offset, as (partition, offset)
// pairs, so a restore gives it back those splits; the enumerator hands out again the ones
// it gave after the checkpoint.

// splitRetry is how many SourcePoll intervals a reader waits for an answer before it asks
// for a split again.
const splitRetry = 10

// splitReader is what an enumerated source's task knows beyond its logs.
type splitReader struct {
	spec   Source
	noMore bool  // the enumerator has no split left for it
	asked  int64 // when it last asked for a split; -1 if it is not waiting for one
}

// splitName names partition p of a source as a split: "<source>:<p>".
func splitName(source string, p int) string { return source + ":" + strconv.Itoa(p) }

// enumerated reports whether the source's splits come from the coordinator.
func (s *sourcePart) enumerated() bool { return s.reader != nil }

// read reports whether the task has read every record of the splits it holds.
func (s *sourcePart) read() bool {
	for i, l := range s.logs {
		if l.spec.Records == 0 || s.offsets[i] < l.spec.Records {
			return false
		}
	}
	return true
}

// waitsForSplit reports whether an enumerated source has read its splits and waits for
// another from the enumerator.
func (s *sourcePart) waitsForSplit() bool {
	return s.enumerated() && !s.reader.noMore && s.read()
}

// askForSplit asks the enumerator for a split, unless an answer to the last request may
// still come.
func (s *sourcePart) askForSplit(now int64) {
	if retry := s.retryAt(); retry >= 0 && now < retry {
		return
	}
	s.reader.asked = now
	s.t.proto.RequestSplit(protocol.Time(now))
	s.t.handleReady()
}

// retryAt is when a reader waiting for a split asks again, -1 if it waits for none.
func (s *sourcePart) retryAt() int64 {
	if !s.waitsForSplit() || s.reader.asked < 0 {
		return -1
	}
	return s.reader.asked + splitRetry*int64(s.t.rt.cfg.SourcePoll)
}

// takeSplits adds the splits the enumerator gave the task, and notes that none is left.
func (s *sourcePart) takeSplits(rd *protocol.TaskReady) {
	if len(rd.Splits) == 0 && !rd.NoMoreSplits {
		return
	}
	for _, split := range rd.Splits {
		p, err := s.partitionOf(split)
		if err != nil {
			panic(invariantf("engine: %s: %v", s.t.plan.id, err))
		}
		s.addSplit(p, 0)
		s.t.trace(trace.SplitAdd(s.t.plan.id, split))
	}
	s.reader.noMore = s.reader.noMore || rd.NoMoreSplits
	s.reader.asked = -1
}

// addSplit starts reading partition p at offset.
func (s *sourcePart) addSplit(p int, offset int64) {
	name := s.t.plan.op.Name
	s.logs = append(s.logs, newCatalogLog(s.t.rt.plan.catalog, name, p, s.reader.spec))
	s.splits = append(s.splits, splitName(name, p))
	s.offsets = append(s.offsets, offset)
}

// partitionOf reads the partition of a split of this source, "<source>:<p>".
func (s *sourcePart) partitionOf(split string) (int, error) {
	name, p, ok := strings.Cut(split, ":")
	n, err := strconv.Atoi(p)
	if !ok || err != nil || name != s.t.plan.op.Name || n < 0 || n >= s.reader.spec.Partitions {
		return 0, fmt.Errorf("split %q is not one of source %s's", split, s.t.plan.op.Name)
	}
	return n, nil
}

// positions is what the task's snapshot records of its reading: the offset of each of its
// partitions, or for an enumerated source each split as a (partition, offset) pair.
func (s *sourcePart) positions(dst []int64) {
	if !s.enumerated() {
		copy(dst, s.offsets)
		return
	}
	for i, l := range s.logs {
		dst[2*i], dst[2*i+1] = int64(l.partition), s.offsets[i]
	}
}

// positionCount is how many numbers positions writes.
func (s *sourcePart) positionCount() int {
	if s.enumerated() {
		return 2 * len(s.offsets)
	}
	return len(s.offsets)
}

// restoreSplits gives an enumerated source the splits of its snapshot back, at their
// offsets.
func (s *sourcePart) restoreSplits(positions []int64) error {
	if len(positions)%2 != 0 {
		return fmt.Errorf("engine: %s: snapshot has %d numbers for (split, offset) pairs", s.t.plan.id, len(positions))
	}
	s.logs, s.splits, s.offsets = nil, nil, nil
	for i := 0; i < len(positions); i += 2 {
		p := positions[i]
		if p < 0 || p >= int64(s.reader.spec.Partitions) {
			return fmt.Errorf("engine: %s: snapshot names partition %d of %d", s.t.plan.id, p, s.reader.spec.Partitions)
		}
		s.addSplit(int(p), 0)
	}
	offsets := make([]int64, len(s.offsets))
	for i := range offsets {
		offsets[i] = positions[2*i+1]
	}
	return s.restoreOffsets(offsets)
}

// sourceOffsets renders a snapshot's positions for the protocol's TaskSnapshot: the offset of
// each split ("<source>:<p>") it holds.
func (s *sourcePart) sourceOffsets(positions []int64) []protocol.SourceOffset {
	if !s.enumerated() {
		out := make([]protocol.SourceOffset, len(positions))
		for i, o := range positions {
			out[i] = protocol.SourceOffset{Split: s.splits[i], Offset: o}
		}
		return out
	}
	out := make([]protocol.SourceOffset, len(positions)/2)
	for i := range out {
		out[i] = protocol.SourceOffset{Split: splitName(s.t.plan.op.Name, int(positions[2*i])), Offset: positions[2*i+1]}
	}
	return out
}
