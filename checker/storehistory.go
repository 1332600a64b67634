package checker

import (
	"sort"
	"strconv"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/checker/linz"
	"github.com/ckptsim/ckptsim/trace"
)

// storeHistoryData is the completed-checkpoint store history as porcupine operations, plus
// what recoveryBounds needs to pin a bad recovery without porcupine.
type storeHistoryData struct {
	ops         []porcupine.Operation
	writes      []valueAt        // completed writes: id and index of checkpoint.complete
	visible     []valueAt        // observations that raised the bar: id and index
	reads       []readAt         // recoveries
	invokedAt   map[uint64]int64 // id -> position of its first write's invocation
	lastRecover int              // index of the last coordinator.recover, or -1
	// clients names porcupine's clients: each coordinator incarnation, then the observer of
	// completions made visible.
	clients []string
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
			if isPlainSavepointTrigger(e) {
				savepoints[e.CP] = true
			}
		case trace.KindCheckpointPersist:
			if savepoints[e.CP] {
				continue
			}
			open[e.CP] = len(h.ops)
			h.invoke(e.CP, returnPos(i))
			h.ops = append(h.ops, porcupine.Operation{
				ClientId: incarnation, Input: linz.RegisterWrite{ID: e.CP},
				Call: returnPos(i), Return: linz.Pending, Metadata: seqLabel(e.Seq),
			})
		case trace.KindCheckpointComplete:
			if !savepoints[e.CP] {
				h.completed(open, e, i, incarnation)
			}
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
				Call: call, Return: returnPos(i), Metadata: seqLabel(e.Seq),
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
	h.clients = storeClients(observer)
	for _, o := range observations {
		h.ops = append(h.ops, porcupine.Operation{
			ClientId: observer, Input: linz.RegisterAtLeast{ID: o.value},
			Call: o.pos, Return: o.pos, Metadata: seqLabel(o.seq),
		})
	}
	return h
}

// storeClients names the clients of a history of incarnations coordinator incarnations and
// the observer after them.
func storeClients(incarnations int) []string {
	var names []string
	for k := range incarnations {
		names = append(names, "coordinator #"+strconv.Itoa(k+1))
	}
	return append(names, "completions seen (notify, commit)")
}

// invoke records pos as the invocation of the write of checkpoint id, unless one came
// before.
func (h *storeHistoryData) invoke(id uint64, pos int64) {
	if _, seen := h.invokedAt[id]; !seen {
		h.invokedAt[id] = pos
	}
}

// completed returns the write of the checkpoint whose checkpoint.complete is e, at index i:
// the write its checkpoint.persist opened (open), or one invoked and returned at once when
// none did, by the coordinator incarnation's client.
func (h *storeHistoryData) completed(open map[uint64]int, e *trace.Event, i, incarnation int) {
	if k, ok := open[e.CP]; ok {
		h.ops[k].Return = returnPos(i)
		delete(open, e.CP)
	} else {
		h.invoke(e.CP, returnPos(i))
		h.ops = append(h.ops, porcupine.Operation{
			ClientId: incarnation, Input: linz.RegisterWrite{ID: e.CP},
			Call: returnPos(i), Return: returnPos(i), Metadata: seqLabel(e.Seq),
		})
	}
	h.writes = append(h.writes, valueAt{e.CP, i})
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
