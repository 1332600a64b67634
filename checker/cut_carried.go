package checker

import (
	"fmt"
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// finalSnapshots follows which tasks took a final snapshot: their last snapshot.taken
// before a task.finish. The protocol carries such a snapshot into every later checkpoint,
// and the trace says so with snapshot.carried. A cut that lacks the task is therefore
// missing that event, not a cut without the task: whatever its channels show is not judged.
// A task may take its final snapshot long before it traces task.finish (ckptsim's engine
// finishes a task once it has heard that a checkpoint holding its final snapshot completed,
// and checkpoints in between carry it), so the finish may come anywhere later in the trace.
type finalSnapshots struct {
	finishOf  map[int]int    // index of a final snapshot.taken -> index of the task.finish after it
	lastTaken map[string]int // task -> index of its latest snapshot.taken since it last started
	// carries: the trace holds snapshot.carried events, so its engine traces them, and a cut
	// without a finished task says the checkpoint lacks it (a coordinator that dropped a
	// final snapshot), which is judged, not missing evidence.
	carries bool
}

// finalKinds are the kinds finalSnapshots follows.
var finalKinds = kindsOf(trace.KindSnapshotTaken, trace.KindTaskFinish, trace.KindTaskRestore, trace.KindTaskCrash)

// newFinalSnapshots finds the final snapshots of the trace: a snapshot.taken followed by
// the task's task.finish with no other snapshot.taken, task.restore or task.crash of the
// task in between. A snapshot from before a restore or crash belongs to a run of the task
// that did not finish.
func newFinalSnapshots(ix *traceIndex) *finalSnapshots {
	f := &finalSnapshots{finishOf: make(map[int]int), lastTaken: make(map[string]int), carries: ix.any(kindsOf(trace.KindSnapshotCarried))}
	last := make(map[string]int)
	for i := range ix.only(finalKinds) {
		e := &ix.events[i]
		switch e.Kind {
		case trace.KindSnapshotTaken:
			last[e.Task] = i
		case trace.KindTaskFinish:
			if taken, ok := last[e.Task]; ok {
				f.finishOf[taken] = i
			}
			delete(last, e.Task)
		case trace.KindTaskRestore, trace.KindTaskCrash:
			delete(last, e.Task)
		}
	}
	return f
}

// observe follows events[i], in trace order, so that absent knows each task's latest
// snapshot when a checkpoint completes.
func (f *finalSnapshots) observe(events []trace.Event, i int) {
	e := &events[i]
	switch e.Kind {
	case trace.KindSnapshotTaken:
		f.lastTaken[e.Task] = i
	case trace.KindTaskRestore, trace.KindTaskCrash:
		delete(f.lastTaken, e.Task)
	}
}

// final returns the indexes of task's latest snapshot.taken and of the task.finish after
// it, when that snapshot is final.
func (f *finalSnapshots) final(task string) (taken, finish int, ok bool) {
	taken, ok = f.lastTaken[task]
	if !ok {
		return 0, 0, false
	}
	finish, ok = f.finishOf[taken]
	return taken, finish, ok
}

// absent reports whether task is missing from cut although its latest snapshot is final, in
// a trace that traces no carried snapshot at all: its snapshot.carried is missing, so the
// channels at it are not judged.
func (f *finalSnapshots) absent(task string, cut map[string]int) bool {
	if _, in := cut[task]; in || f.carries {
		return false
	}
	_, _, ok := f.final(task)
	return ok
}

// missingCarried returns, for the checkpoint completed at complete, a note for each task
// that finished after a snapshot, is missing from cut, and is an end of a known channel
// whose other end is in cut. Such a channel would otherwise be judged against an end that
// holds nothing: a fail where the other end holds records from it, a pass where it holds
// none, while the task's final snapshot, which the cut does hold, may say otherwise.
func (f *finalSnapshots) missingCarried(events []trace.Event, complete *trace.Event, cut map[string]int,
	known []knownChannel) []string {
	if len(f.finishOf) == 0 {
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
		taken, finish, _ := f.final(task)
		missing = append(missing, fmt.Sprintf(
			"checkpoint %d: no snapshot.carried of %s for it: %s's snapshot of checkpoint %d (seq %d) "+
				"is its final one (task.finish at seq %d), which the cut holds but the trace does not name, "+
				"so the channels at %s are not judged",
			complete.CP, task, task, events[taken].CP, events[taken].Seq, events[finish].Seq, task))
	}
	return missing
}
