package chandylamport

import (
	"fmt"
	"strings"
)

// Output is one thing the process asks its host to do, in the order Process.Ready returns
// them. The concrete types are Marker, RecordState, Report[S, M] and Abort; the interface is
// closed (its method is unexported) so that a host's type switch can be complete.
type Output interface {
	fmt.Stringer
	isOutput()
}

// Marker asks the host to send a marker of Snapshot on Channel, in FIFO order with the
// application's messages on that channel: after every message the sender sent before it,
// before every message the sender sends after it. The receiving host hands the same value to
// the receiver's Process.HandleMarker.
type Marker struct {
	Snapshot SnapshotID
	Channel  Channel
}

// String renders the marker as "marker a#1 a->b".
func (m Marker) String() string { return "marker " + m.Snapshot.String() + " " + m.Channel.String() }

func (Marker) isOutput() {}

// RecordState asks the host to capture Process's application state now and hand it back with
// Process.StateRecorded before anything else happens at the process: before the application
// consumes another message or sends one. Until then the process refuses every other input
// with ErrStatePending. The state the host passes must be a value that later changes to the
// application's state do not reach (a copy, or an immutable version).
type RecordState struct {
	Snapshot SnapshotID
	Process  ProcessID
}

// String renders the request as "record-state a#1 at b".
func (r RecordState) String() string {
	return "record-state " + r.Snapshot.String() + " at " + string(r.Process)
}

func (RecordState) isOutput() {}

// ChannelState is what a process recorded on one incoming channel for one snapshot: the
// application messages that arrived on it after the process recorded its state and before the
// channel's marker, in arrival order. In the assembled snapshot these are the messages that
// were in flight on the channel at the cut.
type ChannelState[M any] struct {
	Channel  Channel
	Messages []M
}

// String renders the channel state as "c->b=[m1 m2]", each message with fmt's %v.
func (c ChannelState[M]) String() string {
	var b strings.Builder
	b.WriteString(c.Channel.String())
	b.WriteString("=[")
	for i, m := range c.Messages {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%v", m)
	}
	b.WriteByte(']')
	return b.String()
}

// Report is a process's finished part of a snapshot, for the host to deliver to the Collector:
// the state it recorded and one ChannelState for each incoming channel, sorted by sender. The
// process emits it once every incoming channel has delivered the snapshot's marker and the host
// has answered RecordState. The report owns its slices; the process keeps no reference.
type Report[S, M any] struct {
	Snapshot SnapshotID
	Process  ProcessID
	State    S
	Channels []ChannelState[M]
}

// String renders the report as "report a#1 by b: state=7 a->b=[] c->b=[m1]", the state and
// messages with fmt's %v. The text is as stable as the %v forms of S and M.
func (r Report[S, M]) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "report %s by %s: state=%v", r.Snapshot, r.Process, r.State)
	for _, c := range r.Channels {
		b.WriteByte(' ')
		b.WriteString(c.String())
	}
	return b.String()
}

func (Report[S, M]) isOutput() {}

// Abort tells the host (for the Collector) that Process gave up on Snapshot: Channel delivered
// more than Limit messages while being recorded. The process dropped what it had recorded for
// the snapshot, but kept following its markers, and emits Abort at the moment it would have
// emitted its Report (every incoming channel delivered the marker), so that each process
// answers each snapshot exactly once and no later marker of an aborted snapshot can be taken
// for a new one.
type Abort struct {
	Snapshot SnapshotID
	Process  ProcessID
	Channel  Channel
	Limit    int
}

// String renders the abort as "abort a#1 by b: c->b recorded over 3 messages".
func (a Abort) String() string {
	return fmt.Sprintf("abort %s by %s: %s recorded over %d messages", a.Snapshot, a.Process, a.Channel, a.Limit)
}

func (Abort) isOutput() {}
