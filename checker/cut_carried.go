package checker

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// finalSnapshots follows which tasks have finished after taking a snapshot. The protocol
// carries such a task's final snapshot into every later checkpoint, and the trace says so
// with snapshot.carried. A cut that lacks a finished task is therefore missing that event,
// not a cut without the task: whatever its channels show is not judged.
type finalSnapshots struct {
	lastTaken map[string]int   // task -> index of its latest snapshot.taken
	finished  map[string]final // tasks whose last lifecycle event is task.finish after a snapshot
}

// final is a finished task's last snapshot.taken and its task.finish, as event indexes.
type final struct{ taken, finish int }

// finalKinds are the kinds finalSnapshots.observe reacts to.
var finalKinds = kindsOf(trace.KindSnapshotTaken, trace.KindTaskFinish, trace.KindTaskRestore, trace.KindTaskCrash)

func newFinalSnapshots() *finalSnapshots {
	return &finalSnapshots{lastTaken: make(map[string]int), finished: make(map[string]final)}
}

// observe follows events[i]. A restore or crash after task.finish makes the task run again,
// so its final snapshot is no longer the one a later checkpoint holds.
func (f *finalSnapshots) observe(events []trace.Event, i int) {
	e := &events[i]
	switch e.Kind {
	case trace.KindSnapshotTaken:
		f.lastTaken[e.Task] = i
	case trace.KindTaskFinish:
		if taken, ok := f.lastTaken[e.Task]; ok {
			f.finished[e.Task] = final{taken: taken, finish: i}
		}
	case trace.KindTaskRestore, trace.KindTaskCrash:
		delete(f.finished, e.Task)
	}
}

// absent reports whether task has finished after a snapshot and is missing from cut: its
// snapshot.carried is missing, so the channels at it are not judged.
func (f *finalSnapshots) absent(task string, cut map[string]int) bool {
	if _, in := cut[task]; in {
		return false
	}
	_, ok := f.finished[task]
	return ok
}

// missingCarried returns, for the checkpoint completed at complete, a note for each task
// that finished after a snapshot, is missing from cut, and is an end of a known channel
// whose other end is in cut. Such a channel would otherwise be judged against an end that
// holds nothing: a fail where the other end holds records from it, a pass where it holds
// none, while the task's final snapshot, which the cut does hold, may say otherwise.
func (f *finalSnapshots) missingCarried(events []trace.Event, complete *trace.Event, cut map[string]int,
	known []knownChannel) []string {
	if len(f.finished) == 0 {
		return nil
	}
	var tasks []string
	for _, k := range known {
		_, senderIn := cut[k.ch.from]
		_, receiverIn := cut[k.ch.to]
		switch {
		case receiverIn && f.absent(k.ch.from, cut):
			tasks = append(tasks, k.ch.from)
		case senderIn && f.absent(k.ch.to, cut):
			tasks = append(tasks, k.ch.to)
		}
	}
	slices.Sort(tasks)
	tasks = slices.Compact(tasks)
	var missing []string
	for _, task := range tasks {
		fin := f.finished[task]
		missing = append(missing, fmt.Sprintf(
			"checkpoint %d: no snapshot.carried of %s for it: %s took its snapshot of checkpoint %d (seq %d) "+
				"and finished (seq %d) before the checkpoint completed, so the cut holds a snapshot of %s "+
				"that the trace does not name, and the channels at %s are not judged",
			complete.CP, task, task, events[fin.taken].CP, events[fin.taken].Seq, events[fin.finish].Seq, task, task))
	}
	return missing
}
