package engine

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestCutBuffersStayIntact checks what makes cutting sealed buffers from a shared slab safe:
// every buffer holds exactly the records it was cut from, however many buffers are cut after
// it and however the partial buffer is refilled, and none can reach its neighbours' records
// (its capacity is its length). A buffer delivered twice must read the same both times.
func TestCutBuffersStayIntact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var o outputChannel
		var cut, want [][]rec
		for i := range rapid.IntRange(1, 100).Draw(t, "buffers") {
			n := rapid.IntRange(1, sealSlabRecords/2).Draw(t, "records")
			o.partial = o.partial[:0]
			for k := range n {
				o.partial = append(o.partial, rec{origin: uint32(i), seq: int64(k), value: int64(i*1000 + k)})
			}
			buf := o.cut(o.partial)
			if len(buf) != n || cap(buf) != n {
				t.Fatalf("buffer %d: cut %d records into len %d cap %d", i, n, len(buf), cap(buf))
			}
			cut, want = append(cut, buf), append(want, slices.Clone(o.partial))
		}
		for i := range cut {
			if !slices.Equal(cut[i], want[i]) {
				t.Fatalf("buffer %d changed after it was cut: %v, want %v", i, cut[i], want[i])
			}
		}
	})
}

// TestCutSharesSlabs checks the point of cut: small buffers cost an allocation per slab,
// not one each.
func TestCutSharesSlabs(t *testing.T) {
	var o outputChannel
	records := make([]rec, 8)
	allocs := testing.AllocsPerRun(sealSlabRecords, func() { o.cut(records) })
	if allocs > 0.2 {
		t.Fatalf("cutting %d-record buffers allocates %.2f times per buffer", len(records), allocs)
	}
}
