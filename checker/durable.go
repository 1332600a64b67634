package checker

import (
	"fmt"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/checker/linz"
	"github.com/ckptsim/ckptsim/trace"
)

// LinzOptions bound one porcupine check.
type LinzOptions struct {
	Timeout  time.Duration // zero: DefaultLinzTimeout
	HTMLPath string        // where to write the visualization of a violation; empty: nowhere
}

func (o LinzOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultLinzTimeout
	}
	return o.Timeout
}

// DurableBeforeVisible checks that no checkpoint's completion is made visible before it is
// durable, and that coordinator failover never loses a durable or visible completion.
//
// Visible means a notify.complete for checkpoint n, or a sink.commit of checkpoint n's
// transaction. The first must follow checkpoint.complete n; the second must follow the
// completion of some checkpoint m >= n (whose state holds the transaction).
//
// Failover is judged with porcupine over the history of the completed-checkpoint store (see
// linz.RegisterModel): each coordinator incarnation's write runs from checkpoint.persist n to
// checkpoint.complete n, and is pending (it may or may not have landed) when the incarnation
// crashed or gave up first; each coordinator.recover r is a read, invoked at the preceding
// coordinator.crash; each first visibility of a higher id is an observation. The latest id
// must never go backwards. A recovery behind a visible or durably completed checkpoint is
// pinned to the coordinator.recover; a porcupine timeout gives the verdict unknown.
func DurableBeforeVisible(events []trace.Event, opts LinzOptions) Result {
	violations := visibleBeforeDurable(events)
	h := storeHistory(events)
	violations = append(violations, h.recoveryBounds(events)...)
	res := newResult(PropDurableVisible, violations)
	if len(h.ops) == 0 || (len(violations) > 0 && opts.HTMLPath == "") {
		return res
	}
	outcome, err := linz.Run(linz.RegisterModel(), h.ops, opts.timeout(), opts.HTMLPath)
	res = mergeOutcome(res, outcome, events, h.lastRecover, "the completed-checkpoint store history has no linearization")
	if err != nil {
		res.Note = joinNote(res.Note, err.Error())
	} else if outcome == porcupine.Illegal && opts.HTMLPath != "" {
		res.Note = joinNote(res.Note, "visualization: "+opts.HTMLPath)
	}
	return res
}

// visibleBeforeDurable is the one-pass half: notifications and commits before completion.
func visibleBeforeDurable(events []trace.Event) []Violation {
	completed := make(map[uint64]bool)
	savepoints := make(map[uint64]bool)
	var latest uint64 // highest completed checkpoint, savepoints aside
	var violations []Violation
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			if isSavepointTrigger(e) {
				savepoints[e.CP] = true
			}
		case trace.KindCheckpointComplete:
			completed[e.CP] = true
			if !savepoints[e.CP] {
				latest = max(latest, e.CP)
			}
		case trace.KindNotifyComplete:
			if !completed[e.CP] {
				violations = append(violations, violationAt(PropDurableVisible, e,
					"%s notified of checkpoint %d before it was durably complete", e.Task, e.CP))
			}
		case trace.KindSinkCommit:
			if e.CP != 0 && latest < e.CP {
				violations = append(violations, violationAt(PropDurableVisible, e,
					"%s committed transaction %q of checkpoint %d before any checkpoint >= %d was durably complete",
					e.Task, e.Txn, e.CP, e.CP))
			}
		}
	}
	return violations
}

// storeHistoryData is the completed-checkpoint store history as porcupine operations, plus
// what recoveryBounds needs to pin a bad recovery without porcupine.
type storeHistoryData struct {
	ops         []porcupine.Operation
	writes      []valueAt        // completed writes: id and index of checkpoint.complete
	visible     []valueAt        // observations that raised the bar: id and index
	reads       []readAt         // recoveries
	invokedAt   map[uint64]int64 // id -> position of its first write's invocation
	lastRecover int              // index of the last coordinator.recover, or -1
}

type valueAt struct {
	value uint64
	index int
}

type readAt struct {
	value uint64
	call  int64
	index int
}

// storeHistory builds the completed-checkpoint store history of events.
func storeHistory(events []trace.Event) *storeHistoryData {
	h := &storeHistoryData{lastRecover: -1, invokedAt: make(map[uint64]int64)}
	savepoints := make(map[uint64]bool)
	open := make(map[uint64]int) // checkpoint -> index into h.ops of its unreturned write
	var incarnation int          // porcupine client of the current coordinator incarnation
	crashAt := int64(-1)         // position of the crash the next recover follows, or -1
	var highestVisible uint64    // observations only matter when they raise the bar
	invoke := func(id uint64, pos int64) {
		if _, seen := h.invokedAt[id]; !seen {
			h.invokedAt[id] = pos
		}
	}
	type observation struct {
		value uint64
		pos   int64
		seq   uint64
	}
	var observations []observation
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case trace.KindCheckpointTrigger:
			if isSavepointTrigger(e) {
				savepoints[e.CP] = true
			}
		case trace.KindCheckpointPersist:
			if savepoints[e.CP] {
				continue
			}
			open[e.CP] = len(h.ops)
			invoke(e.CP, returnPos(i))
			h.ops = append(h.ops, porcupine.Operation{
				ClientId: incarnation, Input: linz.RegisterWrite{ID: e.CP},
				Call: returnPos(i), Return: linz.Pending, Metadata: fmt.Sprintf("seq %d", e.Seq),
			})
		case trace.KindCheckpointComplete:
			if savepoints[e.CP] {
				continue
			}
			if k, ok := open[e.CP]; ok {
				h.ops[k].Return = returnPos(i)
				delete(open, e.CP)
			} else {
				invoke(e.CP, returnPos(i))
				h.ops = append(h.ops, porcupine.Operation{
					ClientId: incarnation, Input: linz.RegisterWrite{ID: e.CP},
					Call: returnPos(i), Return: returnPos(i), Metadata: fmt.Sprintf("seq %d", e.Seq),
				})
			}
			h.writes = append(h.writes, valueAt{e.CP, i})
		case trace.KindCoordinatorCrash:
			// Unreturned writes of the dead incarnation stay pending.
			clear(open)
			incarnation++
			crashAt = returnPos(i)
		case trace.KindCoordinatorRecover:
			call := returnPos(i)
			if crashAt >= 0 {
				call = crashAt
			}
			crashAt = -1
			h.reads = append(h.reads, readAt{value: e.CP, call: call, index: i})
			h.lastRecover = i
			h.ops = append(h.ops, porcupine.Operation{
				ClientId: incarnation, Input: linz.RegisterRead{}, Output: e.CP,
				Call: call, Return: returnPos(i), Metadata: fmt.Sprintf("seq %d", e.Seq),
			})
		case trace.KindNotifyComplete, trace.KindSinkCommit:
			if e.CP == 0 || savepoints[e.CP] || e.CP <= highestVisible {
				continue // implied by an earlier observation: the register never decreases
			}
			highestVisible = e.CP
			h.visible = append(h.visible, valueAt{e.CP, i})
			observations = append(observations, observation{e.CP, returnPos(i), e.Seq})
		}
	}
	observer := incarnation + 1 // observations get a client of their own
	for _, o := range observations {
		h.ops = append(h.ops, porcupine.Operation{
			ClientId: observer, Input: linz.RegisterAtLeast{ID: o.value},
			Call: o.pos, Return: o.pos, Metadata: fmt.Sprintf("seq %d", o.seq),
		})
	}
	return h
}

// recoveryBounds finds recoveries that no linearization can explain, by bounds that every
// linearization must respect: a read sees at least every id completed or made visible before
// it was invoked and every id an earlier read returned, and only an id whose write had been
// invoked by the time it returned. These pin violations to the exact coordinator.recover even
// when porcupine times out.
func (h *storeHistoryData) recoveryBounds(events []trace.Event) []Violation {
	var violations []Violation
	for k, r := range h.reads {
		e := &events[r.index]
		floorVisible, visibleAt := highestBefore(h.visible, r.call)
		floorDurable, durableAt := highestBefore(h.writes, r.call)
		var floorRead uint64
		readAt := -1
		for _, earlier := range h.reads[:k] {
			if returnPos(earlier.index) < r.call && earlier.value >= floorRead {
				floorRead, readAt = earlier.value, earlier.index
			}
		}
		switch {
		case r.value < floorVisible:
			violations = append(violations, violationAt(PropDurableVisible, e,
				"coordinator recovered checkpoint %d, behind checkpoint %d whose completion was made visible at seq %d",
				r.value, floorVisible, events[visibleAt].Seq))
		case r.value < floorDurable:
			violations = append(violations, violationAt(PropDurableVisible, e,
				"coordinator recovered checkpoint %d, behind checkpoint %d durably completed at seq %d",
				r.value, floorDurable, events[durableAt].Seq))
		case r.value < floorRead:
			violations = append(violations, violationAt(PropDurableVisible, e,
				"coordinator recovered checkpoint %d, behind checkpoint %d an earlier recovery read at seq %d",
				r.value, floorRead, events[readAt].Seq))
		case r.value != 0 && !h.writtenBefore(r.value, returnPos(r.index)):
			violations = append(violations, violationAt(PropDurableVisible, e,
				"coordinator recovered checkpoint %d, which was never written to the store", r.value))
		}
	}
	return violations
}

// writtenBefore reports whether a write of id was invoked before pos.
func (h *storeHistoryData) writtenBefore(id uint64, pos int64) bool {
	at, ok := h.invokedAt[id]
	return ok && at < pos
}

// highestBefore returns the highest value among entries whose event returned before pos, and
// that event's index. entries are in trace order.
func highestBefore(entries []valueAt, pos int64) (uint64, int) {
	n := sort.Search(len(entries), func(k int) bool { return returnPos(entries[k].index) >= pos })
	var best uint64
	at := -1
	for _, v := range entries[:n] {
		if v.value > best || at < 0 {
			best, at = v.value, v.index
		}
	}
	return best, at
}

// mergeOutcome folds porcupine's outcome into a result found by the linear checks. Illegal
// with no violation found so far is pinned to fallback (or the last event); unknown with no
// violation is an unknown verdict, never a pass.
func mergeOutcome(res Result, outcome porcupine.CheckResult, events []trace.Event, fallback int, message string) Result {
	switch outcome {
	case porcupine.Illegal:
		if len(res.Violations) == 0 {
			e := lastEvent(events)
			if fallback >= 0 {
				e = &events[fallback]
			}
			res = newResult(res.Property, []Violation{violationAt(res.Property, e, "%s", message)})
		}
	case porcupine.Unknown:
		if len(res.Violations) == 0 {
			res.Verdict = VerdictUnknown
		}
		res.Note = joinNote(res.Note, "porcupine timed out")
	}
	return res
}

func joinNote(note, more string) string {
	if note == "" {
		return more
	}
	return note + "; " + more
}
