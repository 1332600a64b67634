package perfetto

import (
	"math"
	"slices"
	"testing"
)

func TestMicros(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want string
	}{
		{0, "0"}, {1, "0.001"}, {10, "0.01"}, {999, "0.999"}, {1000, "1"}, {1500, "1.5"},
		{1_234_567, "1234.567"}, {-1, "-0.001"}, {-1500, "-1.5"},
		{math.MaxInt64, "9223372036854775.807"}, {math.MinInt64, "-9223372036854775.808"},
	} {
		if got := micros(c.ns); string(got) != c.want {
			t.Errorf("micros(%d) = %s, want %s", c.ns, got, c.want)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	names := []string{"sum-10", "sum-2", "sum-02", "sum-", "sum", "sum-1a", "sum-1", "source-0", "", "a10b2", "a10b10", "a9"}
	slices.SortFunc(names, naturalCompare)
	want := []string{"", "a9", "a10b2", "a10b10", "source-0", "sum", "sum-", "sum-1", "sum-1a", "sum-02", "sum-2", "sum-10"}
	if !slices.Equal(names, want) {
		t.Errorf("sorted %q, want %q", names, want)
	}
	for _, a := range names {
		for _, b := range names {
			if (naturalCompare(a, b) == 0) != (a == b) || sign(naturalCompare(a, b)) != -sign(naturalCompare(b, a)) {
				t.Errorf("naturalCompare(%q, %q) = %d, reversed %d", a, b, naturalCompare(a, b), naturalCompare(b, a))
			}
		}
	}
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func TestAssignLanes(t *testing.T) {
	mk := func(start, end int64) *item { return &item{start: start, end: end, lanes: true} }
	a, b, c, d, e, f := mk(0, 10), mk(2, 5), mk(5, 12), mk(10, 12), mk(0, 4), mk(12, 13)
	items := []*item{a, b, c, d, e, f}
	for i, it := range items {
		it.order = i
	}
	if n := assignLanes(items); n != 2 {
		t.Errorf("%d lanes, want 2", n)
	}
	// a holds b; e starts with a, so not in it; c overlaps a and follows e; d follows a; f
	// follows all.
	for _, w := range []struct {
		it   *item
		lane int
	}{{a, 0}, {b, 0}, {c, 1}, {d, 0}, {e, 1}, {f, 0}} {
		if w.it.lane != w.lane {
			t.Errorf("[%d,%d] on lane %d, want %d", w.it.start, w.it.end, w.it.lane, w.lane)
		}
	}
}
