package engine

import (
	"testing"

	"github.com/ckptsim/ckptsim/protocol"
)

// TestPanickedInProtocolTellsWhosePanicItIs: a nil dereference inside a protocol method is
// the protocol's panic, through the runtime's helpers; a nil map write in the engine's own
// code is not, nor is a panic the engine raises itself.
func TestPanickedInProtocolTellsWhosePanicItIs(t *testing.T) {
	whose := func(fn func()) (inProtocol bool) {
		defer func() {
			inProtocol = panickedInProtocol()
			_ = recover()
		}()
		fn()
		return false
	}
	var c *protocol.Coordinator
	if !whose(func() { c.HasReady() }) {
		t.Error("a nil dereference inside protocol.(*Coordinator).HasReady was not the protocol's")
	}
	var m map[string]int
	if whose(func() { m["x"]++ }) {
		t.Error("a nil map write in the engine's code was taken for the protocol's")
	}
	if whose(func() { panic("engine") }) {
		t.Error("the engine's own panic was taken for the protocol's")
	}
}
