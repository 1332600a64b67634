package checker

import (
	"testing"

	"pgregory.net/rapid"
)

// TestRecordIndexMatchesMap interns ids drawn from a small alphabet, so that they repeat and
// the table grows several times, and requires the index to agree with a plain map.
func TestRecordIndexMatchesMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := newRecordIndex(rapid.IntRange(0, 40).Draw(t, "capacity"))
		var records []recordLog
		model := map[string]int{}
		for _, id := range rapid.SliceOf(rapid.StringMatching(`[a-c]{0,6}`)).Draw(t, "ids") {
			k, free, tag := ids.find(records, id)
			want, seen := model[id]
			if !seen {
				want = -1
			}
			if k != want || (k < 0) != (free != nil) {
				t.Fatalf("find(%q) = %d (free slot %v), the map says %d", id, k, free != nil, want)
			}
			if k < 0 {
				model[id] = len(records)
				records = append(records, recordLog{id: id})
				ids.add(records, free, tag, len(records)-1)
			}
		}
		for id, want := range model {
			if k, _, _ := ids.find(records, id); k != want {
				t.Fatalf("after the draws, find(%q) = %d, want %d", id, k, want)
			}
		}
	})
}
