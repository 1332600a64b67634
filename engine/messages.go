package engine

import "github.com/ckptsim/ckptsim/protocol"

// The messages tasks send each other on data channels. Control messages between the
// coordinator and the tasks are protocol.Message values, sent as they are.

// bufferMsg is one network buffer: a batch of records on a channel. It needs a credit.
type bufferMsg struct {
	records []Record
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
