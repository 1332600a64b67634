package engine

import (
	"github.com/ckptsim/ckptsim/protocol"
	"github.com/ckptsim/ckptsim/trace"
)

// splitControl is a split message from the coordinator's enumerator to a reader, tagged
// with the attempt it was sent in. The enumerator numbers its messages to a reader afresh
// after every restart, so a reader takes only those of its own attempt: one sent to the
// incarnation before would pass for the next in its numbering.
type splitControl struct {
	attempt int
	msg     protocol.Message
}

// sendSplit sends a split message to its reader, tracing each assignment.
func (c *coordinator) sendSplit(m *protocol.Message) {
	if m.Type == protocol.MsgSplitAssign {
		c.trace(trace.SplitAssign(string(m.Task), m.Split))
	}
	c.proc.Send(string(m.Task), &splitControl{attempt: c.rt.attempt, msg: *m})
}
