package engine

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestCompactRecordsRenderAsTheReference checks the compact records of a running source,
// read in runs of several lengths as a source task reads buffers, against the Records the
// reference computes one at a time from the same log: same id, key and value, and the same
// hash partition.
func TestCompactRecordsRenderAsTheReference(t *testing.T) {
	for _, maxValue := range []int64{0, 1, 1000} {
		g := KeyedSumGraph(3, 50, 0, TwoPhaseCommit)
		g.Operators[0].Logic = Source{Partitions: 5, Records: 50, Keys: 12, Seed: 9, MaxValue: maxValue}
		c := newCatalog(&g)
		spec := g.Operators[0].Logic.(Source)
		for p := range spec.Partitions {
			compact, reference := newCatalogLog(c, "src", p, spec), newPartitionLog("src", p, spec)
			var recs []rec
			for o, run := int64(0), 1; o < spec.Records; o, run = o+int64(run), run%7+1 {
				recs = compact.appendRecs(recs, o, int(min(int64(run), spec.Records-o)))
			}
			if int64(len(recs)) != spec.Records {
				t.Fatalf("partition %d: read %d records of %d", p, len(recs), spec.Records)
			}
			for o, r := range recs {
				got, want := c.record(r), reference.record(int64(o))
				if got != want {
					t.Fatalf("partition %d offset %d: compact record renders as %+v, the reference has %+v", p, o, got, want)
				}
				if c.keyGroup[r.key] != keyHash(want.Key) {
					t.Fatalf("%s: hash partition differs from KeyGroup", want.RID)
				}
			}
		}
	}
}

func TestCatalogRoundTripsEveryRecord(t *testing.T) {
	c := newCatalog(&Graph{Operators: []Operator{
		{Name: "src", Parallelism: 2, Logic: Source{Partitions: 11, Keys: 3}},
		{Name: "tok", Parallelism: 3, Logic: testKind{}},
	}})
	rapid.Check(t, func(t *rapid.T) {
		r := rec{
			origin: uint32(rapid.IntRange(0, len(c.origins)-1).Draw(t, "origin")),
			key:    uint32(rapid.IntRange(0, len(c.keys)-1).Draw(t, "key")),
			seq:    rapid.Int64().Draw(t, "seq"),
			value:  rapid.Int64().Draw(t, "value"),
		}
		back, err := c.compact(c.record(r))
		if err != nil || back != r {
			t.Fatalf("%+v renders as %+v and compacts back to %+v (%v)", r, c.record(r), back, err)
		}
		if string(c.appendRID(nil, r)) != c.record(r).RID {
			t.Fatal("appendRID and rid differ")
		}
	})
}

func TestCatalogRejectsRecordsOfAnotherJob(t *testing.T) {
	c := newCatalog(&Graph{Operators: []Operator{{Name: "src", Parallelism: 1, Logic: Source{Partitions: 2, Keys: 3}}}})
	for _, r := range []Record{
		{RID: "src:2:5", Key: "src/0/1"},   // no partition 2
		{RID: "other:0:5", Key: "src/0/1"}, // no such source
		{RID: "src:0:05", Key: "src/0/1"},  // not the canonical number
		{RID: "src:0:x", Key: "src/0/1"},
		{RID: "src05", Key: "src/0/1"},
		{RID: "src:0:5", Key: "src/0/3"}, // no key 3
	} {
		if _, err := c.compact(r); err == nil || !strings.HasPrefix(err.Error(), "engine: ") {
			t.Errorf("%+v compacted (err %v)", r, err)
		}
	}
}

func TestCatalogKeysAreSorted(t *testing.T) {
	c := newCatalog(&Graph{Operators: []Operator{{Name: "s", Parallelism: 1, Logic: Source{Partitions: 12, Keys: 12}}}})
	if c.keys[0] != "" || len(c.keys) != 1+12*12 {
		t.Fatalf("keys start %q, %d of them", c.keys[0], len(c.keys))
	}
	for i := 1; i < len(c.keys); i++ {
		if c.keys[i-1] >= c.keys[i] {
			t.Fatalf("keys out of order: %q before %q", c.keys[i-1], c.keys[i])
		}
	}
}

// TestRIDsAreEachRID: the ids rids renders together are those rid renders one at a time,
// for runs shorter and longer than its stack buffers.
func TestRIDsAreEachRID(t *testing.T) {
	g := KeyedSumGraph(3, 2000, 0, TwoPhaseCommit)
	g.Operators[0].Logic = Source{Partitions: 2, Records: 2000, Keys: 12, Seed: 9}
	c := newCatalog(&g)
	log := newCatalogLog(c, "src", 1, g.Operators[0].Logic.(Source))
	for _, n := range []int{0, 1, 255, 256, 257, 2000} {
		recs := log.appendRecs(nil, 0, n)
		got := c.rids(recs)
		if len(got) != n {
			t.Fatalf("%d records: %d ids", n, len(got))
		}
		for i, r := range recs {
			if want := c.rid(r); got[i] != want {
				t.Fatalf("%d records: id %d is %q, want %q", n, i, got[i], want)
			}
		}
	}
}
