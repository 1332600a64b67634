package checker

import (
	"math"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// excuse says why an acked snapshot that nothing holds is not owed a release by the end of
// the job (completed: its checkpoint completed), or returns "" when it is. Each excuse is
// state that Flink, or the protocol's contract with the host, leaves behind, or that the
// trace cannot show the coordinator ever heard of:
//
//   - a final snapshot (snapshot.ack with final=true): once it may be in a completed
//     checkpoint, savepoints may share it, and the coordinator does not keep their contents
//     to check, so it leaves it to the host, which deletes it with the job (Flink has no
//     such sharing: a finished task reports empty state);
//   - state that a coordinator crash orphaned: that of a checkpoint pending at the crash
//     (a coordinator.crash after its checkpoint.trigger and before its abort), or acked
//     while the crash came before the coordinator demonstrably heard a later message of
//     the task (heardLater), since the successor
//     knows only the store, neither the pending checkpoints nor the acks on their way to
//     the dead incarnation; and that of a checkpoint that fell out of retention before a
//     crash, whose release died with the incarnation. A new JobManager likewise knows
//     nothing of the old one's pending checkpoints, nor of the subsumed ones it had yet to
//     discard, and leaves their files behind; and that of a checkpoint that fell out of
//     retention only by the count of one whose metadata write was in flight at a crash
//     (mayBeRetained): if that write was lost, the store still retains it; and an ack sent
//     after a crash and before the next coordinator.recover, which no incarnation may hear;
//   - an ack the coordinator may never have heard of: one sent while a fault that loses
//     messages was in force (net.drop, net.partition, net.break, crash.host) until its
//     checkpoint ended or the ack could have arrived (Liveness.ReactionMaxNanos after it was
//     sent, which counts its delivery; without that bound, any later loss), or at any time
//     later when a fault that delays messages was in force as it was sent (it may meet the
//     loss on its way), or by a task that crashed meanwhile, its message lost with it
//     (Flink deletes a failed checkpoint's exclusive directory, and such state with it; a
//     store without directories can only delete what it was told of).
//
// A failover excuses nothing: an ack of a replaced task attempt still reaches the
// coordinator, which discards its state as Flink's CheckpointCoordinator does
// (discardSubtaskState).
func (r *releaseEvidence) excuse(a ackRecord, completed bool, lossy, delaying *faultWindows) string {
	cp := a.key.cp
	switch {
	case a.final:
		return "final snapshots"
	case completed:
		if at, ok := r.discardedAt[cp]; ok && r.crashAfter(at, math.MaxInt) {
			return "snapshots a coordinator crash orphaned"
		}
		if r.mayBeRetained[cp] {
			return "snapshots of checkpoints still retained if a write lost at a crash was"
		}
		return "" // the coordinator had it: what fell out of retention is released
	case r.orphanedByCrash(a, cp):
		return "snapshots a coordinator crash orphaned"
	}
	// A loss that begins while the ack is still on its way may take it: the window runs
	// until the checkpoint ended or the ack was heard, whichever is later.
	end := max(r.ended[cp], addSat(a.event.T, r.flight))
	if delaying.overlapping(a.event.T, a.event.T) != nil {
		// Sent under a delay, the ack may arrive in a loss that begins much later (a
		// partition that cuts the route it is still on): any later loss may have taken it.
		end = math.MaxInt64
	}
	if lossy.overlapping(a.event.T, end) != nil || r.taskCrashed(a.key.task, a.event.T, end) {
		return "acks the coordinator may not have heard of"
	}
	return ""
}

// releaseEvidence is what the excuses read: coordinator crashes, task crashes,
// and when each checkpoint started, ended and left retention.
type releaseEvidence struct {
	crashes     []int              // indices of coordinator.crash events
	recovers    []int              // indices of coordinator.recover events
	heardAt     map[string][]heard // per task, what completions show the coordinator heard (the ledger adds them)
	taskCrashes map[string][]int64 // when each task crashed
	triggered   map[uint64]int     // index of each checkpoint's trigger
	abortedAt   map[uint64]int     // index of each checkpoint's abort
	ended       map[uint64]int64   // time of each checkpoint's abort
	discardedAt map[uint64]int     // index of the completion that took a checkpoint out of retention (the ledger's)
	// mayBeRetained holds the checkpoints that fell out of retention only by the count of
	// one whose metadata write may have been lost at a crash (the ledger's mayHave): the
	// engine may retain them still, until enough certain completions follow.
	mayBeRetained map[uint64]bool
	// flight bounds how long an ack may be on its way to the coordinator
	// (Liveness.ReactionMaxNanos; unbounded without it).
	flight int64
}

func newReleaseEvidence() *releaseEvidence {
	return &releaseEvidence{heardAt: map[string][]heard{}, taskCrashes: map[string][]int64{}, triggered: map[uint64]int{}, abortedAt: map[uint64]int{},
		ended: map[uint64]int64{}, discardedAt: map[uint64]int{}, mayBeRetained: map[uint64]bool{}}
}

// observe takes the event at index i.
func (r *releaseEvidence) observe(i int, e *trace.Event) {
	switch e.Kind {
	case trace.KindCheckpointTrigger:
		r.triggered[e.CP] = i
	case trace.KindCheckpointAbort:
		r.abortedAt[e.CP], r.ended[e.CP] = i, e.T
	case trace.KindCoordinatorCrash:
		r.crashes = append(r.crashes, i)
	case trace.KindCoordinatorRecover:
		r.recovers = append(r.recovers, i)
	case trace.KindTaskCrash:
		r.taskCrashes[e.Task] = append(r.taskCrashes[e.Task], e.T)
	}
}

// orphanedByCrash reports whether a coordinator crashed while checkpoint cp was pending
// (after its trigger, before its abort), or while ack a may have been on its way to it
// (after the ack, before the coordinator demonstrably heard a later message of its task),
// or whether ack a was sent while no incarnation ran (after a crash, before the next
// recovery): the dead one hears nothing, and the next one, still reading the store, may
// not yet take messages.
func (r *releaseEvidence) orphanedByCrash(a ackRecord, cp uint64) bool {
	if c, _ := slices.BinarySearch(r.crashes, a.at); c > 0 {
		next, _ := slices.BinarySearch(r.recovers, r.crashes[c-1]+1)
		if next == len(r.recovers) || r.recovers[next] > a.at {
			return true
		}
	}
	end, aborted := r.abortedAt[cp]
	if !aborted {
		end = math.MaxInt
	}
	if r.crashAfter(r.triggered[cp], end) {
		return true
	}
	at, _ := slices.BinarySearch(r.crashes, a.at+1)
	return at < len(r.crashes) && !r.heardLater(a.key.task, a.at, r.crashes[at])
}

// crashAfter reports whether a coordinator.crash lies after index from and before index to.
func (r *releaseEvidence) crashAfter(from, to int) bool {
	at, _ := slices.BinarySearch(r.crashes, from+1)
	return at < len(r.crashes) && r.crashes[at] < to
}

// taskCrashed reports whether task traced task.crash at some time from from to to.
func (r *releaseEvidence) taskCrashed(task string, from, to int64) bool {
	for _, t := range r.taskCrashes[task] {
		if t >= from && t <= to {
			return true
		}
	}
	return false
}

// heard is one ack the coordinator demonstrably received: that of a snapshot a completed
// checkpoint holds (ack), and the completion (at), both as indices in the trace.
type heard struct{ ack, at int }

// heard records that the completion at index at holds task's snapshot first acked at index
// ack: the coordinator had received that ack by then.
func (r *releaseEvidence) heard(task string, ack, at int) {
	r.heardAt[task] = append(r.heardAt[task], heard{ack: ack, at: at})
}

// heardLater reports whether the coordinator demonstrably received, before index to, a
// message task sent after index from: a checkpoint completed before to holding a snapshot
// the task first acked after from. Links are FIFO, so whatever the task sent at from had
// arrived by then. A completion alone proves nothing of the kind: the checkpoint may hold
// only acks sent before from, and the ack at from may still be on its way (seed 12882 of
// the generated sweep: checkpoint 110 completed while acks for 112 were in flight, and a
// failover overtook them).
func (r *releaseEvidence) heardLater(task string, from, to int) bool {
	for _, h := range r.heardAt[task] {
		if h.ack >= from && h.at < to {
			return true
		}
	}
	return false
}

// lossyFaults are the fault kinds (by prefix) that can lose a message between a task and
// the coordinator; delayingFaults those that can delay or lose one.
var lossyFaults = []string{"net.drop", "net.partition", "net.break", "crash.host"}

// delayingFaults: see lossyFaults.
var delayingFaults = []string{"net.", "pause.host", "crash.host"}

// windowsOf returns the windows of the faults whose kind starts with one of prefixes.
func windowsOf(ix *traceIndex, prefixes []string) *faultWindows {
	w := &faultWindows{}
	for i := range ix.only(faultKinds) {
		e := &ix.events[i]
		if slices.ContainsFunc(prefixes, func(k string) bool { return strings.HasPrefix(e.Fault, k) }) {
			w.observe(e)
		}
	}
	return w
}
