package engine

import (
	"fmt"
	"strconv"

	"github.com/ckptsim/ckptsim/trace"
)

// A source keeps its partitions' offsets as union list state, as Flink's legacy Kafka
// consumer does: each task's snapshot holds the offsets of the partitions it reads (its
// entries, "partition:offset"), and a rescaled restore gives every new task the union of
// all the earlier tasks' entries, from which it keeps those of the partitions it reads now
// (task i of n reads partitions i, i+n, ...). snapshot.taken lists a task's entries
// (union.<operator>) and a rescaled task.restore those it kept, which is what the rule
// "union state reaches every task" judges.

// partitionEntries returns the union-state entries of task index of parallelism tasks,
// whose offsets are those of partitions index, index+parallelism, ...
func partitionEntries(index, parallelism int, offsets []int64) []trace.Entry {
	entries := make([]trace.Entry, len(offsets))
	for k, off := range offsets {
		entries[k] = trace.Entry{Key: strconv.Itoa(index + k*parallelism), Value: off}
	}
	return entries
}

// ownOffsets returns the offsets of the task's partitions, taken from the union of the
// earlier job's snapshots got (of tasks 0, 1, ... of the operator). A split source's reader
// keeps its own snapshot's.
func (t *task) ownOffsets(l Source, got []*snapshotData) ([]int64, error) {
	if l.Enumerated {
		return got[0].offsets, nil
	}
	union := map[string]int64{}
	for j, o := range got {
		for _, e := range partitionEntries(j, len(got), o.offsets) {
			union[e.Key] = e.Value
		}
	}
	var offsets []int64
	for p := t.plan.index; p < l.Partitions; p += t.plan.op.Parallelism {
		off, ok := union[strconv.Itoa(p)]
		if !ok {
			return nil, fmt.Errorf("engine: %s: no offset of partition %d in the earlier snapshots", t.plan.id, p)
		}
		offsets = append(offsets, off)
	}
	return offsets, nil
}
