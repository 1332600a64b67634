package engine

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// TestAvailabilityMatchesSchedule checks the rate arithmetic against its definition:
// record o is available at time t exactly when nextAvailableNanos(o) <= t, and nothing is
// before the partition's staggered start.
func TestAvailabilityMatchesSchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rate := rapid.Int64Range(1, 2_000_000).Draw(t, "rate")
		records := rapid.Int64Range(0, 1<<40).Draw(t, "records")
		now := rapid.Int64Range(0, 1<<50).Draw(t, "now")
		partitions := rapid.IntRange(1, 8).Draw(t, "partitions")
		p := rapid.IntRange(0, partitions-1).Draw(t, "partition")
		stagger := rapid.Int64Range(0, 1<<40).Draw(t, "stagger")
		l := newPartitionLog("s", p, Source{Partitions: partitions, Records: records, RatePerSecond: rate, Keys: 1, StaggerNanos: stagger})
		n := l.available(now)
		if now < l.startNanos() && n != 0 {
			t.Fatalf("%d records available at %d, before the partition's start at %d", n, now, l.startNanos())
		}
		if records > 0 && n > records {
			t.Fatalf("available %d > records %d", n, records)
		}
		if n > 0 && l.nextAvailableNanos(n-1) > now {
			t.Fatalf("record %d counted at %d but due at %d", n-1, now, l.nextAvailableNanos(n-1))
		}
		if (records == 0 || n < records) && l.nextAvailableNanos(n) <= now {
			t.Fatalf("record %d due at %d but not counted at %d", n, l.nextAvailableNanos(n), now)
		}
	})
}

func TestLogIsAPureFunction(t *testing.T) {
	spec := Source{Partitions: 4, Records: 100, Keys: 3, Seed: 9}
	a, b := newPartitionLog("src", 2, spec), newPartitionLog("src", 2, spec)
	keys := make(map[string]bool)
	for o := int64(0); o < 100; o++ {
		ra, rb := a.record(o), b.record(o)
		if ra != rb {
			t.Fatalf("offset %d: %v then %v", o, ra, rb)
		}
		if ra.RID != RID("src", 2, o) || ra.Value < 1 || ra.Value > 9 {
			t.Fatalf("offset %d: bad record %v", o, ra)
		}
		keys[ra.Key] = true
	}
	if len(keys) != 3 {
		t.Errorf("partition used %d keys, want 3", len(keys))
	}
	other := newPartitionLog("src", 2, Source{Partitions: 4, Records: 100, Keys: 3, Seed: 10})
	same := 0
	for o := int64(0); o < 100; o++ {
		if other.record(o) == a.record(o) {
			same++
		}
	}
	if same > 50 {
		t.Errorf("another seed gives %d of 100 identical records", same)
	}
}

// TestKeyValueRemainders checks keyValue's division-free remainders against the plain
// formula, for key counts and value bounds on both sides of the fast paths (powers of two,
// 32 bits) and hashes at the edges.
func TestKeyValueRemainders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.IntRange(1, 70).Draw(t, "keys")
		maxValue := rapid.OneOf(rapid.Int64Range(0, 20), rapid.Int64Range(math.MaxUint32-3, math.MaxUint32+3),
			rapid.Int64Range(1, math.MaxInt64)).Draw(t, "maxValue")
		l := newPartitionLog("src", 0, Source{Partitions: 1, Records: 1, Keys: keys, MaxValue: maxValue})
		h := rapid.OneOf(rapid.Uint64(), rapid.SampledFrom([]uint64{0, 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxUint64})).Draw(t, "h")
		key, value := l.keyValue(h)
		wantKey, wantValue := int(h%uint64(keys)), 1+int64((h>>32)%l.maxValue)
		if key != wantKey || value != wantValue {
			t.Fatalf("keyValue(%#x) with %d keys, max %d = (%d, %d), want (%d, %d)", h, keys, l.maxValue, key, value, wantKey, wantValue)
		}
	})
}

// TestAppendRecordsIsRecord: the records appendRecords renders together are those record
// renders one at a time.
func TestAppendRecordsIsRecord(t *testing.T) {
	for _, records := range []int64{0, 1, 9, 10, 11, 1234} {
		l := newPartitionLog("src", 3, Source{Partitions: 4, Records: records, RatePerSecond: 100, Keys: 5, Seed: 7})
		prior := Record{RID: "x", Key: "y", Value: 1}
		got := l.appendRecords([]Record{prior}, records)
		if int64(len(got)) != records+1 || got[0] != prior {
			t.Fatalf("%d records: appended %d after %v", records, len(got)-1, got[0])
		}
		for o := range records {
			if want := l.record(o); got[o+1] != want {
				t.Fatalf("%d records: record %d is %+v, want %+v", records, o, got[o+1], want)
			}
		}
	}
}

// TestStaggerSpreadsThePartitionsStarts: the last partition starts the whole stagger after
// the first, the ones between in proportion.
func TestStaggerSpreadsThePartitionsStarts(t *testing.T) {
	spec := Source{Partitions: 3, Records: 10, RatePerSecond: 1000, Keys: 1, StaggerNanos: 100e6}
	for p, want := range []int64{0, 50e6, 100e6} {
		l := newPartitionLog("s", p, spec)
		if got := l.nextAvailableNanos(0); got != want {
			t.Errorf("partition %d: first record at %d, want %d", p, got, want)
		}
		if got := l.available(want + 9e6); got != 10 {
			t.Errorf("partition %d: %d records 9ms after its start, want all 10", p, got)
		}
	}
}
