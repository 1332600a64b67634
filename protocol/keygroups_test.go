package protocol_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ckptsim/ckptsim/protocol"
)

// Flink's own figures: 128 key groups over three tasks.
func TestKeyGroupRangesAsFlinkSplitsThem(t *testing.T) {
	want := []protocol.KeyGroupRange{{First: 0, Last: 42}, {First: 43, Last: 85}, {First: 86, Last: 127}}
	for i, w := range want {
		if got := protocol.KeyGroupRangeOf(i, 128, 3); got != w {
			t.Errorf("task %d of 3 owns %v, want %v", i, got, w)
		}
	}
	if got := protocol.RescaledFrom(128, 3, 2); !slices.Equal(got[0], []int{0, 1}) || !slices.Equal(got[1], []int{1, 2}) {
		t.Errorf("rescaled from 3 to 2: %v", got)
	}
}

// With as many key groups as tasks, a key's task is its hash modulo the parallelism: the
// engine's routing before key groups, kept for jobs that set no maximum.
func TestOneKeyGroupPerTaskIsTheModulo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.IntRange(1, 64).Draw(t, "parallelism")
		hash := rapid.Uint64().Draw(t, "hash")
		if got := protocol.OperatorIndexOf(protocol.KeyGroupOf(hash, p), p, p); got != int(hash%uint64(p)) {
			t.Fatalf("hash %d, parallelism %d: task %d", hash, p, got)
		}
	})
}

// Every key group has exactly one task, the one whose range holds it; the ranges are
// contiguous, in order, none empty; and a rescaled task takes over from exactly the old
// tasks that owned some group of its range.
func TestKeyGroupsPartitionAmongTasks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxP := rapid.IntRange(1, 3000).Draw(t, "max")
		from := rapid.IntRange(1, min(maxP, 200)).Draw(t, "from")
		to := rapid.IntRange(1, min(maxP, 200)).Draw(t, "to")
		next := 0
		for i := range to {
			r := protocol.KeyGroupRangeOf(i, maxP, to)
			if r.First != next || r.Last < r.First {
				t.Fatalf("task %d of %d owns %v, after %d groups", i, to, r, next)
			}
			next = r.Last + 1
		}
		if next != maxP {
			t.Fatalf("the ranges end at %d of %d groups", next, maxP)
		}
		g := rapid.IntRange(0, maxP-1).Draw(t, "group")
		owner := protocol.OperatorIndexOf(g, maxP, to)
		if !protocol.KeyGroupRangeOf(owner, maxP, to).Contains(g) {
			t.Fatalf("group %d owned by task %d, outside its range", g, owner)
		}
		sources := protocol.RescaledFrom(maxP, from, to)
		if old := protocol.OperatorIndexOf(g, maxP, from); !slices.Contains(sources[owner], old) {
			t.Fatalf("group %d moves from task %d to %d, which takes over from %v", g, old, owner, sources[owner])
		}
		for _, j := range sources[owner] {
			mine, theirs := protocol.KeyGroupRangeOf(owner, maxP, to), protocol.KeyGroupRangeOf(j, maxP, from)
			if mine.Last < theirs.First || theirs.Last < mine.First {
				t.Fatalf("task %d takes over from %d, whose groups %v miss its %v", owner, j, theirs, mine)
			}
		}
	})
}
