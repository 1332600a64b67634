package linz

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// The completed-checkpoint store, seen as a register holding the latest completed checkpoint
// id. Coordinator incarnations write ids into it (a write lasts from checkpoint.persist to
// checkpoint.complete, or forever if the incarnation crashed first), a recovering incarnation
// reads it, and every completion notification or sink commit for checkpoint n is an
// observation that the register already held at least n, because the completion was made
// visible.
//
// The register is fenced and monotonic: a write of an id lower than the one held is refused
// (a stale incarnation cannot move it back), so the held id never decreases. A history is
// linearizable exactly when recovery never reads an id behind one that had already been
// durably completed or made visible, and never reads an id nobody wrote.

// RegisterWrite writes checkpoint ID into the store.
type RegisterWrite struct{ ID uint64 }

// RegisterRead reads the latest completed id back; its output is a uint64.
type RegisterRead struct{}

// RegisterAtLeast observes that the store holds ID or later; it has no output.
type RegisterAtLeast struct{ ID uint64 }

// RegisterModel returns the fenced monotonic register, starting empty (id 0).
func RegisterModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return uint64(0) },
		Step: func(state, input, output any) (bool, any) {
			held := state.(uint64)
			switch in := input.(type) {
			case RegisterWrite:
				return true, max(held, in.ID)
			case RegisterRead:
				return output.(uint64) == held, held
			case RegisterAtLeast:
				return held >= in.ID, held
			}
			panic(fmt.Sprintf("linz: register input %T", input))
		},
		Hash: func(state any) uint64 { return state.(uint64) },
		DescribeOperation: func(input, output any) string {
			switch in := input.(type) {
			case RegisterWrite:
				return fmt.Sprintf("write(%d)", in.ID)
			case RegisterRead:
				return fmt.Sprintf("recover() -> %d", output)
			case RegisterAtLeast:
				return fmt.Sprintf("visible(%d)", in.ID)
			}
			return fmt.Sprintf("%v", input)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("latest=%d", state) },
	}
}
