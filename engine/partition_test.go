package engine

import (
	"slices"
	"testing"
)

func routes(r *router, record rec) []int {
	var got []int
	first, n := r.targets(&record)
	for i := first; i < first+n; i++ {
		got = append(got, i)
	}
	return got
}

func TestRouters(t *testing.T) {
	c := newCatalog(&Graph{Operators: []Operator{{Name: "s", Parallelism: 1, Logic: Source{Partitions: 1, Keys: 4}}}})
	key := "s/0/3"
	record := rec{origin: c.origin("s:0:"), key: c.key(key), value: 1}
	if got := routes(newRouter(c, Forward, 2, 4, 0), record); !slices.Equal(got, []int{2}) {
		t.Errorf("forward: %v", got)
	}
	h := routes(newRouter(c, Hash, 0, 4, 0), record)
	if len(h) != 1 || h[0] != KeyGroup(key, 0, 4) {
		t.Errorf("hash: %v, want [%d]", h, KeyGroup(key, 0, 4))
	}
	if other := routes(newRouter(c, Hash, 3, 4, 0), record); !slices.Equal(other, h) {
		t.Errorf("hash depends on the sender: %v vs %v", other, h)
	}
	// With 128 key groups the key's task is the one whose range holds its group.
	if g := routes(newRouter(c, Hash, 0, 4, 128), record); len(g) != 1 || g[0] != KeyGroup(key, 128, 4) || g[0] != int(keyHash(key)%128)*4/128 {
		t.Errorf("hash over 128 key groups: %v, want [%d]", g, KeyGroup(key, 128, 4))
	}
	rb := newRouter(c, Rebalance, 1, 3, 0)
	var seq []int
	for range 4 {
		seq = append(seq, routes(rb, record)...)
	}
	if !slices.Equal(seq, []int{1, 2, 0, 1}) {
		t.Errorf("rebalance: %v", seq)
	}
	if got := routes(newRouter(c, Broadcast, 0, 3, 0), record); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("broadcast: %v", got)
	}
}

// TestKeyGroupSpreads checks that hash partitioning uses every task for a modest key set.
func TestKeyGroupSpreads(t *testing.T) {
	used := make(map[int]bool)
	for p := range 8 {
		l := newPartitionLog("src", p, Source{Partitions: 8, Records: 1, Keys: 16})
		for _, k := range l.keys {
			used[KeyGroup(k, 0, 8)] = true
		}
	}
	if len(used) != 8 {
		t.Errorf("128 keys reach only %d of 8 tasks", len(used))
	}
}
