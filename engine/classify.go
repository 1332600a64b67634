package engine

import "github.com/ckptsim/ckptsim/protocol"

// MessageClass says what an engine message is, for fault injection that drops or holds
// messages by class (barriers only, control messages, data records, ...).
type MessageClass string

const (
	ClassRecords  MessageClass = "records"  // a network buffer of data records
	ClassBarrier  MessageClass = "barrier"  // a checkpoint barrier on a data channel
	ClassCancel   MessageClass = "cancel"   // a cancel marker on a data channel
	ClassEnd      MessageClass = "end"      // end of data or end of partition
	ClassCredit   MessageClass = "credit"   // credits returned by a receiver
	ClassTrigger  MessageClass = "trigger"  // coordinator -> source: start a checkpoint
	ClassAck      MessageClass = "ack"      // task -> coordinator
	ClassDecline  MessageClass = "decline"  // task -> coordinator
	ClassFinished MessageClass = "finished" // task -> coordinator: task finished
	ClassNotify   MessageClass = "notify"   // coordinator -> task: complete or aborted
	ClassStore    MessageClass = "store"    // to or from the external store
	ClassMarker   MessageClass = "marker"   // a Chandy-Lamport marker
	ClassTokens   MessageClass = "tokens"   // token workload: coordinator orders, process answers
)

// DataChannel reports whether messages of the class travel on data channels between tasks
// (and must stay FIFO and lossless), as opposed to control messages, which the protocol
// survives losing.
func (c MessageClass) DataChannel() bool {
	switch c {
	case ClassRecords, ClassBarrier, ClassCancel, ClassEnd, ClassCredit, ClassMarker:
		return true
	}
	return false
}

// Classify returns the class of a message the engine sent through Proc.Send, and "" for a
// value the engine does not send.
func Classify(msg any) MessageClass {
	switch m := msg.(type) {
	case *bufferMsg:
		return ClassRecords
	case *eventMsg:
		switch m.event.Type {
		case protocol.EventBarrier:
			return ClassBarrier
		case protocol.EventCancelMarker:
			return ClassCancel
		}
		return ClassEnd
	case *creditMsg:
		return ClassCredit
	case *taskControl:
		switch m.msg.Type {
		case protocol.MsgAck:
			return ClassAck
		case protocol.MsgDecline:
			return ClassDecline
		}
		return ClassFinished
	case *protocol.Message:
		if m.Type == protocol.MsgTrigger {
			return ClassTrigger
		}
		return ClassNotify
	case *storeRequest, *storeReply:
		return ClassStore
	case MessageClasser: // a JobKind's messages
		return m.MessageClass()
	}
	return ""
}
