package spacetime

import (
	"strings"

	"github.com/ckptsim/ckptsim/trace"
)

// arrows holds the messages of a run, one per index: the event that sent it and the event
// that received it (indices into the run's events), and the lane at the other end. A
// message that was sent and never received (dropped, or lost with a crash) has Recv -1 and
// is drawn as a stub toward Peer, which is often the very thing a reader is looking for; one
// received without a traced send (a send before the trace began) has Send -1.
type arrows struct {
	Send []int `json:"send"`
	Recv []int `json:"recv"`
	Peer []int `json:"peer"`
}

// messageKey is what a receive must share with its send: the message kind ("barrier"),
// both ends, the checkpoint and the record.
type messageKey struct {
	kind, from, to, rid string
	cp                  uint64
}

// matchArrows pairs every x.send with the x.recv of the same message. Channels are FIFO, so
// among sends of the same key the earliest unmatched one is the one received: a barrier of
// a checkpoint re-sent after a restore pairs with the second receive, not the first.
func matchArrows(events []trace.Event, laneIndex map[string]int) arrows {
	var a arrows
	pending := map[messageKey][]int{} // positions in a.Send, oldest first
	lane := func(name string) int {
		if i, ok := laneIndex[name]; ok {
			return i
		}
		return -1
	}
	for i := range events {
		e := &events[i]
		switch {
		case isSend(e.Kind):
			k := messageKey{strings.TrimSuffix(e.Kind, ".send"), e.Task, e.To, e.RID, e.CP}
			pending[k] = append(pending[k], len(a.Send))
			a.Send = append(a.Send, i)
			a.Recv = append(a.Recv, -1)
			a.Peer = append(a.Peer, lane(e.To))
		case isRecv(e.Kind):
			k := messageKey{strings.TrimSuffix(e.Kind, ".recv"), e.From, e.Task, e.RID, e.CP}
			if q := pending[k]; len(q) > 0 {
				a.Recv[q[0]] = i
				if len(q) == 1 {
					delete(pending, k)
				} else {
					pending[k] = q[1:]
				}
				continue
			}
			a.Send = append(a.Send, -1)
			a.Recv = append(a.Recv, i)
			a.Peer = append(a.Peer, lane(e.From))
		}
	}
	return a
}
