package engine

import (
	"slices"
	"testing"
)

func routes(r *router, rec Record) []int {
	var got []int
	r.route(&rec, func(i int) { got = append(got, i) })
	return got
}

func TestRouters(t *testing.T) {
	rec := Record{RID: "s:0:0", Key: "s/0/3", Value: 1}
	if got := routes(newRouter(Forward, 2, 4), rec); !slices.Equal(got, []int{2}) {
		t.Errorf("forward: %v", got)
	}
	h := routes(newRouter(Hash, 0, 4), rec)
	if len(h) != 1 || h[0] != KeyGroup(rec.Key, 4) {
		t.Errorf("hash: %v, want [%d]", h, KeyGroup(rec.Key, 4))
	}
	if other := routes(newRouter(Hash, 3, 4), rec); !slices.Equal(other, h) {
		t.Errorf("hash depends on the sender: %v vs %v", other, h)
	}
	rb := newRouter(Rebalance, 1, 3)
	var seq []int
	for range 4 {
		seq = append(seq, routes(rb, rec)...)
	}
	if !slices.Equal(seq, []int{1, 2, 0, 1}) {
		t.Errorf("rebalance: %v", seq)
	}
	if got := routes(newRouter(Broadcast, 0, 3), rec); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("broadcast: %v", got)
	}
}

// TestKeyGroupSpreads checks that hash partitioning uses every task for a modest key set.
func TestKeyGroupSpreads(t *testing.T) {
	used := make(map[int]bool)
	for p := range 8 {
		l := newPartitionLog("src", p, Source{Partitions: 8, Records: 1, Keys: 16})
		for _, k := range l.keys {
			used[KeyGroup(k, 8)] = true
		}
	}
	if len(used) != 8 {
		t.Errorf("128 keys reach only %d of 8 tasks", len(used))
	}
}
