package scenarios

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestDdminFindsTheCulprits checks ddmin against the obvious answer: when a failure needs
// exactly a set of items, ddmin returns exactly that set, in the original order.
func TestDdminFindsTheCulprits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		culprits := rapid.SliceOfNDistinct(rapid.IntRange(0, n-1), 0, 4, rapid.ID[int]).Draw(t, "culprits")
		slices.Sort(culprits)
		calls := 0
		got := ddmin(items, func(sub []int) bool {
			calls++
			for _, c := range culprits {
				if !slices.Contains(sub, c) {
					return false
				}
			}
			return true
		})
		if !slices.Equal(got, culprits) && !(len(got) == 0 && len(culprits) == 0) {
			t.Fatalf("ddmin = %v, want %v", got, culprits)
		}
		// Delta debugging needs O(c^2 log n) tests for c culprits; a generous bound catches
		// an accidental exhaustive search.
		if bound := 4 * (len(culprits) + 1) * (len(culprits) + 1) * (n + 1); calls > bound {
			t.Fatalf("%d tests for n=%d, want at most %d", calls, n, bound)
		}
	})
}

func TestDdminStopsWhenTheBudgetIsSpent(t *testing.T) {
	items := []int{1, 2, 3, 4, 5, 6, 7, 8}
	budget := 3
	got := ddmin(items, func(sub []int) bool {
		budget--
		return budget >= 0 && slices.Contains(sub, 8)
	})
	if !slices.Contains(got, 8) {
		t.Fatalf("ddmin lost the culprit: %v", got)
	}
}
