package engine

import "github.com/ckptsim/ckptsim/protocol"

// The messages tasks send each other on data channels. Control messages go as
// *protocol.Message from the coordinator (pointing into its Ready, which the protocol never
// writes again) and as *taskControl from the tasks.

// bufferMsg is one network buffer: a batch of records on a channel. It needs a credit.
type bufferMsg struct {
	records []rec
}

// eventMsg is an in-band event (barrier, cancel marker, end of data or partition). Events
// need no credit, as in Flink; they still queue behind the buffers sent before them.
type eventMsg struct {
	event protocol.ChannelEvent
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
