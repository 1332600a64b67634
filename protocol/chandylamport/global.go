package chandylamport

import (
	"fmt"
	"slices"
	"strings"
)

// GlobalSnapshot is an assembled snapshot: the recorded state of every process and the
// recorded state of every channel. Chandy and Lamport show it is a consistent global state:
// one the system could have passed through, in which every message recorded as received was
// recorded as sent, and every message in flight on a channel appears in that channel's state.
type GlobalSnapshot[S, M any] struct {
	ID SnapshotID
	// States has one entry per process of the graph, sorted by process.
	States []ProcessState[S]
	// Channels has one entry per channel of the graph, sorted by sender, then receiver.
	Channels []ChannelState[M]
}

// ProcessState is one process's recorded state within a GlobalSnapshot.
type ProcessState[S any] struct {
	Process ProcessID
	State   S
}

// State returns the recorded state of process p, and whether p is part of the snapshot.
func (g GlobalSnapshot[S, M]) State(p ProcessID) (S, bool) {
	i, found := slices.BinarySearchFunc(g.States, p, func(s ProcessState[S], p ProcessID) int {
		return compareProcessIDs(s.Process, p)
	})
	if !found {
		var zero S
		return zero, false
	}
	return g.States[i].State, true
}

// InFlight returns the messages recorded on channel c, and whether c is part of the snapshot.
func (g GlobalSnapshot[S, M]) InFlight(c Channel) ([]M, bool) {
	i, found := slices.BinarySearchFunc(g.Channels, c, func(s ChannelState[M], c Channel) int {
		return compareChannels(s.Channel, c)
	})
	if !found {
		return nil, false
	}
	return g.Channels[i].Messages, true
}

// String renders the snapshot on several lines: a header, then one line per process
// ("  a: <state>"), then one per channel ("  a->b=[m1 m2]"), states and messages with %v.
func (g GlobalSnapshot[S, M]) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "snapshot %s", g.ID)
	for _, s := range g.States {
		fmt.Fprintf(&b, "\n  %s: %v", s.Process, s.State)
	}
	for _, c := range g.Channels {
		b.WriteString("\n  ")
		b.WriteString(c.String())
	}
	return b.String()
}
