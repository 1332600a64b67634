package linz

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// The external store of a sink, seen as the number of committed records it holds. Commits add
// the records they make visible; a reader returns how many records it saw. Committed output
// only grows, so a history is linearizable exactly when every read sees all commits that had
// returned before it began, nothing that was not yet committed when it returned, and never
// less than an earlier read saw.

// CounterAdd adds N committed records.
type CounterAdd struct{ N int64 }

// CounterRead reads the number of records; its output is an int64.
type CounterRead struct{}

// CounterModel returns the committed-output counter starting at base records, the count a
// quiescent point of the history fixes for the segment after it.
func CounterModel(base int64) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return base },
		Step: func(state, input, output any) (bool, any) {
			held := state.(int64)
			switch in := input.(type) {
			case CounterAdd:
				return true, held + in.N
			case CounterRead:
				return output.(int64) == held, held
			}
			panic(fmt.Sprintf("linz: counter input %T", input))
		},
		Hash: func(state any) uint64 { return uint64(state.(int64)) },
		DescribeOperation: func(input, output any) string {
			switch in := input.(type) {
			case CounterAdd:
				return fmt.Sprintf("commit(+%d)", in.N)
			case CounterRead:
				return fmt.Sprintf("read() -> %d", output)
			}
			return fmt.Sprintf("%v", input)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("%d records", state) },
	}
}
