package engine

import (
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// TestClassify checks that every message the engine sends has a class, so that a fault can
// target it, and that values the engine never sends have none.
func TestClassify(t *testing.T) {
	cases := []struct {
		msg  any
		want MessageClass
	}{
		{&bufferMsg{}, ClassRecords},
		{&eventMsg{event: protocol.ChannelEvent{Type: protocol.EventBarrier}}, ClassBarrier},
		{&eventMsg{event: protocol.ChannelEvent{Type: protocol.EventCancelMarker}}, ClassCancel},
		{&eventMsg{event: protocol.ChannelEvent{Type: protocol.EventEndOfData}}, ClassEnd},
		{&creditMsg{credits: 2}, ClassCredit},
		{&taskControl{msg: protocol.Message{Type: protocol.MsgAck}}, ClassAck},
		{&taskControl{msg: protocol.Message{Type: protocol.MsgDecline}}, ClassDecline},
		{&protocol.Message{Type: protocol.MsgTrigger}, ClassTrigger},
		{&protocol.Message{Type: protocol.MsgNotifyComplete}, ClassNotify},
		{&storeRequest{}, ClassStore},
		{&storeReply{}, ClassStore},
		{classedMessage{}, ClassTokens},
		{"not an engine message", ""},
	}
	for _, c := range cases {
		if got := Classify(c.msg); got != c.want {
			t.Errorf("Classify(%T) = %q, want %q", c.msg, got, c.want)
		}
	}
}
