package engine

import (
	"slices"

	"github.com/ckptsim/ckptsim/protocol"
)

// The messages tasks send each other on data channels. Control messages go as
// *protocol.Message from the coordinator (pointing into its Ready, which the protocol never
// writes again) and as *taskControl from the tasks.

// bufferMsg is one network buffer: a batch of records on a channel. It needs a credit.
type bufferMsg struct {
	records []rec
	// input is the receiver's input channel the buffer arrives on (see outputChannel.input).
	input int
	// duplicate marks the copy an Env delivers when it delivers a buffer twice (CopyMessage).
	duplicate bool
}

// take hands the records to the receiver, which owns their array from now on and gives it
// back to the bufferPool once consumed; the message keeps nothing. A message delivered a
// second time (the Env broke its at-most-once promise without CopyMessage) would hand out
// an array that may already hold other records, so it is refused.
func (m *bufferMsg) take(task, from string) []rec {
	records := m.records
	if records == nil {
		panic(invariantf("engine: %s: buffer from %s delivered twice (an Env duplicating messages must deliver CopyMessage)", task, from))
	}
	m.records = nil
	return records
}

// CopyMessage returns a copy of the buffer with an array of its own. An Env that delivers a
// message twice, out of model (the simulator's duplicate filter, behind the data.duplicate
// fault), delivers such a copy the second time: the receiver reuses the array of each
// buffer it consumes (bufferPool).
//
// The copy is marked as the duplicate, and the receiver processes its records again
// without counting it as a buffer: it took no credit from the sender and returns none. So
// the fault duplicates records, as the faults package describes it, and leaves the transport's
// accounting whole; a sender that got back more credits than it granted would be an
// engine bug, and is one (outputChannel's check). Flink would rather see the duplicate by
// its sequence number and fail the channel; duplicated records are what the checkers must
// catch.
func (m *bufferMsg) CopyMessage() any {
	return &bufferMsg{records: slices.Clone(m.records), input: m.input, duplicate: true}
}

// eventMsg is an in-band event (barrier, cancel marker, end of data or partition). Events
// need no credit, as in Flink; they still queue behind the buffers sent before them.
type eventMsg struct {
	event protocol.ChannelEvent
	input int // as bufferMsg's
}

// creditMsg returns credits from a receiver to a sender: the receiver consumed that many
// buffers of the channel.
type creditMsg struct {
	credits int
}

// creditBatch is how many consumed buffers of a channel a receiver returns as one credit
// message: half the channel's credits, rounded up. Announcing every buffer would cost a
// message per buffer, while holding back fewer than half the credits never starves a
// sender: a sender without credit has all of them in flight, queued at the receiver or
// consumed but not yet announced, and once the receiver has consumed what reached it,
// all of them (at least creditBatch) are due and announced.
func creditBatch(credits int) int { return (credits + 1) / 2 }
