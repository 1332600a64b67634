package checker

import (
	"slices"

	"github.com/ckptsim/ckptsim/trace"
)

// taskHandling is what BarrierHandling knows of one task incarnation: what it took in, what
// it sent on each output, and what it still owes at once.
type taskHandling struct {
	name string
	// highestIn is the newest checkpoint a trigger, barrier or cancel marker named.
	highestIn uint64
	// abortedUpTo, lastNotified and restoredFrom are the newest checkpoint the task was
	// told aborted, told complete and restored from: it has moved past all of them.
	abortedUpTo, lastNotified, restoredFrom uint64
	// finalFor is the checkpoint of the task's final snapshot (snapshot.ack final=true; 0:
	// none yet): every later checkpoint carries that snapshot, so the task owes nothing for
	// one, neither an answer nor a decline nor a cancel marker.
	finalFor uint64
	// cancelled is the newest cancel marker taken in: it ended every checkpoint up to it.
	cancelled *trace.Event
	cps       map[uint64]*cpAtTask
	// inProgress are the checkpoints the task took part in and has not ended: neither
	// snapshotted, declined, cancelled nor told aborted or subsumed.
	inProgress map[uint64]bool
	lastOut    map[string]sentEvent // per output, the last barrier or cancel marker
	// What the task owes before it takes anything else in.
	owedTrigger  *trace.Event   // a trigger not yet answered
	owedDeclines []*trace.Event // cancel markers whose checkpoint is not yet declined
	overtaken    []overtaken    // alignments a newer barrier ended, not yet declined
	owedCancels  []owedCancel
}

// cpAtTask is one checkpoint at one task incarnation.
type cpAtTask struct {
	tookPart    bool         // its barrier came while it was newer than all the task knew
	taken       bool         // snapshot.taken
	answered    bool         // snapshotted, forwarded, declined or acked
	declined    bool         // snapshot.decline
	cancelledIn bool         // a cancel marker of it came
	toldAborted *trace.Event // notify.abort
	cancelOwed  bool         // a barrier or trigger after toldAborted owed its cancel
	// barriersFrom are the inputs its barrier came on; overtakenBy the newer barrier that
	// came on another input while the task aligned it, which ended it there.
	barriersFrom map[string]bool
	overtakenBy  *trace.Event
}

// overtaken is an alignment of cp that the newer barrier by ended at the task.
type overtaken struct {
	cp uint64
	by *trace.Event
}

// sentEvent is a barrier or cancel marker a task put on a channel.
type sentEvent struct {
	cp     uint64
	marker bool
	seq    uint64
}

// owedCancel is a checkpoint a task must cancel at once on the outputs listed.
type owedCancel struct {
	rule    string
	cp      uint64
	cause   *trace.Event
	why     string // what the task did at cause, for the message
	outputs []string
	// flinkMayWait: Flink sends this marker when the alignment it abandoned would have
	// completed rather than at once, so no input is a deadline for it. Sending anything
	// newer on the output settles it; one never sent is liveness's to find.
	flinkMayWait bool
}

func newTaskHandling(name string) *taskHandling {
	return &taskHandling{name: name, cps: map[uint64]*cpAtTask{}, inProgress: map[uint64]bool{}, lastOut: map[string]sentEvent{}}
}

// at returns checkpoint cp at the task.
func (th *taskHandling) at(cp uint64) *cpAtTask {
	c := th.cps[cp]
	if c == nil {
		c = &cpAtTask{}
		th.cps[cp] = c
	}
	return c
}

// movedPast is the newest checkpoint the task knows of in any way: a barrier, trigger or
// cancel marker of it, its abort or completion, or its restore. A barrier of an older one
// is stale: the task either took part already or never will.
func (th *taskHandling) movedPast() uint64 {
	return max(th.highestIn, th.abortedUpTo, th.lastNotified, th.restoredFrom)
}

// knowsOver reports whether the task was told that cp ended: aborted, or complete (itself
// or a newer one), or restored from; or whether its part in cp is its final snapshot,
// carried, which leaves it nothing to do.
func (th *taskHandling) knowsOver(cp uint64) bool {
	c := th.cps[cp]
	return c != nil && c.toldAborted != nil || cp <= th.lastNotified || cp <= th.restoredFrom ||
		th.finalFor > 0 && cp > th.finalFor
}

// aligning reports whether the task still collects cp's barriers: it took part, and cp
// neither ended there nor was snapshotted in full.
func (th *taskHandling) aligning(cp uint64) bool {
	c := th.cps[cp]
	return c != nil && c.tookPart && !c.taken && !c.declined && !c.cancelledIn && c.toldAborted == nil
}

// waitingFor lists the outputs (of outputs) that carried no barrier or cancel marker of cp
// or of anything newer: downstream, they may still wait for cp's barrier.
func (th *taskHandling) waitingFor(outputs []string, cp uint64) []string {
	var waiting []string
	for _, to := range outputs {
		if last, ok := th.lastOut[to]; !ok || last.cp < cp {
			waiting = append(waiting, to)
		}
	}
	return waiting
}

// endUpTo ends the checkpoints in progress at the task up to cp.
func (th *taskHandling) endUpTo(cp uint64) {
	for k := range th.inProgress {
		if k <= cp {
			delete(th.inProgress, k)
		}
	}
}

// heldBack reports whether a cancel marker of cp owed on output to may still wait: the
// task aligns an older checkpoint whose barrier or marker has not gone to that output yet,
// and a marker of cp before it would make the older one's ids go back.
func (th *taskHandling) heldBack(to string, cp uint64) bool {
	last := th.lastOut[to].cp
	for k := range th.inProgress {
		if k < cp && last < k {
			return true
		}
	}
	return false
}

// discharge drops the cancels owed on output to that a barrier or marker of cp settles: a
// cancel marker of the checkpoint or a newer one, or a newer barrier.
func (th *taskHandling) discharge(to string, cp uint64, marker bool) {
	for i := range th.owedCancels {
		c := &th.owedCancels[i]
		if cp > c.cp || marker && cp == c.cp {
			c.outputs = slices.DeleteFunc(c.outputs, func(o string) bool { return o == to })
		}
	}
	th.owedCancels = slices.DeleteFunc(th.owedCancels, func(c owedCancel) bool { return len(c.outputs) == 0 })
}

// channelOutputs returns, per task, the tasks its channels lead to, as either end shows them:
// what it sent to (barriers, markers, records) and what others took in from it. A rescale
// (rescaleTasks) starts a job of other channels at the failover that follows it (the old
// tasks run until then), so the map is made per job: outputs holds one per job, from the
// event index it starts at.
func channelOutputs(ix *traceIndex) *jobOutputs {
	var eras []int
	rescaled := false
	for i := range ix.only(kindsOf(trace.KindJobResubmit, trace.KindJobFailover)) {
		e := &ix.events[i]
		if _, ok := rescaleTasks(e); ok {
			rescaled = true
		} else if rescaled && e.Kind == trace.KindJobFailover {
			eras, rescaled = append(eras, i), false // the rescaled job's tasks start here
		}
	}
	sets := make([]map[string]map[string]bool, len(eras)+1)
	add := func(at int, from, to string) {
		if from == "" || to == "" {
			return
		}
		era := eraOf(eras, at)
		if sets[era] == nil {
			sets[era] = map[string]map[string]bool{}
		}
		if sets[era][from] == nil {
			sets[era][from] = map[string]bool{}
		}
		sets[era][from][to] = true
	}
	for i := range ix.only(kindsOf(trace.KindBarrierSend, trace.KindMarkerSend, trace.KindRecordSend)) {
		add(i, ix.events[i].Task, ix.events[i].To)
	}
	for i := range ix.only(kindsOf(trace.KindBarrierRecv, trace.KindMarkerRecv, trace.KindRecordRecv)) {
		add(i, ix.events[i].From, ix.events[i].Task)
	}
	o := &jobOutputs{starts: eras, outputs: make([]map[string][]string, len(sets))}
	for era, set := range sets {
		o.outputs[era] = make(map[string][]string, len(set))
		for from, tos := range set {
			for to := range tos {
				o.outputs[era][from] = append(o.outputs[era][from], to)
			}
			slices.Sort(o.outputs[era][from])
		}
	}
	return o
}

// jobOutputs are the channels of each job a trace shows, the first job's and one per rescale.
type jobOutputs struct {
	starts  []int // index of the failover after each rescale
	outputs []map[string][]string
}

// of returns the tasks task's channels lead to in the job that runs at event index at.
func (o *jobOutputs) of(task string, at int) []string { return o.outputs[eraOf(o.starts, at)][task] }

// eraOf returns which job event index at belongs to: the number of rescales before it.
func eraOf(starts []int, at int) int {
	n, _ := slices.BinarySearch(starts, at)
	return n
}
