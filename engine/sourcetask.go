package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/trace"
)

// sourcePart is the reading side of a source task: the partitions it owns and the next
// offset in each, which is what its snapshots record and its restores rewind to.
type sourcePart struct {
	t         *task
	logs      []*partitionLog
	splits    []string     // "<source>:<p>" per owned partition, rendered once for snapshots
	offsets   []int64      // next offset to read, per owned partition
	next      int          // round-robin position over partitions
	reader    *splitReader // nil unless the coordinator assigns the source's splits
	wakeArmed bool
	wake      Timer
	// batch holds the records of the buffer being read, reused from step to step: the
	// outputs copy what they are given.
	batch []rec
}

func newSourcePart(t *task, spec Source) *sourcePart {
	s := &sourcePart{t: t}
	if spec.Enumerated {
		s.reader = &splitReader{spec: spec, asked: -1}
		return s
	}
	k := t.plan.op.Parallelism
	for p := t.plan.index; p < spec.Partitions; p += k {
		s.logs = append(s.logs, newCatalogLog(t.rt.plan.catalog, t.plan.op.Name, p, spec))
		s.splits = append(s.splits, splitName(t.plan.op.Name, p))
	}
	s.offsets = make([]int64, len(s.logs))
	return s
}

// restore rewinds to the positions of a snapshot (see positions).
func (s *sourcePart) restore(positions []int64) error {
	if s.enumerated() {
		return s.restoreSplits(positions)
	}
	return s.restoreOffsets(positions)
}

// restoreOffsets rewinds the partitions the task holds to offsets.
func (s *sourcePart) restoreOffsets(offsets []int64) error {
	if len(offsets) != len(s.logs) {
		return fmt.Errorf("engine: %s: snapshot has %d source offsets for %d partitions", s.t.plan.id, len(offsets), len(s.logs))
	}
	for i, o := range offsets {
		if o < 0 || (s.logs[i].spec.Records > 0 && o > s.logs[i].spec.Records) {
			return fmt.Errorf("engine: %s: offset %d out of range in partition %d", s.t.plan.id, o, s.logs[i].partition)
		}
	}
	copy(s.offsets, offsets)
	return nil
}

// stopAttr renders the source's offsets at a stop-with-savepoint for its snapshot.taken:
// where the job's output ends if the savepoint completes.
func (s *sourcePart) stopAttr(offsets []int64) trace.Attr {
	items := stopItems(s.sourceOffsets(offsets))
	return trace.Attr{Key: trace.AttrStop, Value: strings.Join(items, trace.ListSeparator)}
}

// exhausted reports whether a bounded source has read every record: of its partitions, or
// of every split the enumerator had for it.
func (s *sourcePart) exhausted() bool {
	return s.read() && (!s.enumerated() || s.reader.noMore)
}

// step emits up to one buffer's worth of available records from the next partition that
// has some. It reports whether it emitted anything.
func (s *sourcePart) step() bool {
	t := s.t
	if t.finishSent || t.proto.Stopping() {
		return false
	}
	if s.exhausted() {
		t.finish()
		return false
	}
	if s.waitsForSplit() {
		s.askForSplit(t.rt.env.Now())
		s.sleep(t.rt.env.Now())
		return false
	}
	if !t.hasRoom() {
		return false // a returned credit pumps the task again
	}
	now := t.rt.env.Now()
	batch := t.rt.cfg.Network.BufferRecords
	for k := range s.logs {
		i := (s.next + k) % len(s.logs)
		avail := s.logs[i].available(now) - s.offsets[i]
		if avail <= 0 {
			continue
		}
		n := int(min(avail, int64(batch)))
		s.batch = s.logs[i].appendRecs(s.batch[:0], s.offsets[i], n)
		s.offsets[i] += int64(n)
		t.routeAll(s.batch)
		s.next = (i + 1) % len(s.logs)
		t.rt.sourceRecords += int64(n)
		t.occupy(n)
		return true
	}
	s.sleep(now)
	return false
}

// hasWork reports whether the source will have records to read (or its end to report) at
// instant at, when its busy period ends. If not, it sleeps until its next records are due,
// counting the poll interval from at, as if it had looked then.
func (s *sourcePart) hasWork(at int64) bool {
	if s.t.finishSent || s.t.proto.Stopping() {
		return false
	}
	if s.exhausted() || s.waitsForSplit() && s.reader.asked < 0 {
		return true
	}
	for i, l := range s.logs {
		if l.available(at) > s.offsets[i] {
			return true
		}
	}
	s.sleep(at)
	return false
}

// sleep waits until the next record of a rate-limited partition is due, but at least
// SourcePoll after from, so that a slow rate is read in batches.
func (s *sourcePart) sleep(from int64) {
	if s.wakeArmed {
		return
	}
	wake := int64(-1)
	for i, l := range s.logs {
		if l.spec.RatePerSecond == 0 || (l.spec.Records > 0 && s.offsets[i] >= l.spec.Records) {
			continue
		}
		if at := l.nextAvailableNanos(s.offsets[i]); wake < 0 || at < wake {
			wake = at
		}
	}
	if retry := s.retryAt(); retry >= 0 && (wake < 0 || retry < wake) {
		wake = retry
	}
	if wake < 0 {
		return
	}
	at := from + max(wake-from, int64(s.t.rt.cfg.SourcePoll))
	s.wakeArmed = true
	if s.wake == nil {
		s.wake = s.t.proc.NewTimer(func() {
			s.wakeArmed = false
			s.t.pump()
		})
	}
	s.wake.Reset(time.Duration(at - s.t.rt.env.Now()))
}
