package engine

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestFifoMatchesASlice runs random pushes and pops against a plain slice.
func TestFifoMatchesASlice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q fifo[int]
		var model []int
		for i := range rapid.IntRange(0, 200).Draw(t, "ops") {
			if len(model) > 0 && rapid.Bool().Draw(t, "pop") {
				if got := q.pop(); got != model[0] {
					t.Fatalf("pop %d, want %d", got, model[0])
				}
				model = model[1:]
			} else {
				q.push(i)
				model = append(model, i)
			}
			if q.len() != len(model) || !slices.Equal(q.all(), model) {
				t.Fatalf("queue %v, want %v", q.all(), model)
			}
		}
	})
}

// TestFifoKeepsItsArray checks the point of fifo: a queue that fills and drains at a steady
// depth stops allocating.
func TestFifoKeepsItsArray(t *testing.T) {
	var q fifo[int]
	cycle := func() {
		for i := range 5 {
			q.push(i)
		}
		q.pop()
		q.pop()
		q.push(9)
		for q.len() > 0 {
			q.pop()
		}
	}
	cycle()
	if allocs := testing.AllocsPerRun(100, cycle); allocs != 0 {
		t.Fatalf("%v allocations per cycle", allocs)
	}
}
