package engine

import (
	"math"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestDecimalAgainstStrconv checks the fast decimal formatting against strconv at every
// digit-count boundary and for random values, each appended after a prefix (so that a
// word stored past the end cannot go unnoticed in what follows).
func TestDecimalAgainstStrconv(t *testing.T) {
	check := func(t interface {
		Helper()
		Fatalf(string, ...any)
	}, v int64) {
		t.Helper()
		prefix := []byte("x:")
		if got, want := string(appendSignedDecimal(prefix, v)), "x:"+strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendSignedDecimal(%d) = %q, want %q", v, got, want)
		}
		u := uint64(v)
		if got, want := string(appendDecimal(prefix, u)), "x:"+strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendDecimal(%d) = %q, want %q", u, got, want)
		}
	}
	for _, p := range tenPowers {
		for _, d := range []int64{-1, 0, 1} {
			check(t, int64(p)+d)
			check(t, -int64(p)+d)
		}
	}
	for _, v := range []int64{0, 9, 10, 99, 100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		check(t, v)
	}
	rapid.Check(t, func(t *rapid.T) {
		check(t, rapid.Int64().Draw(t, "v"))
	})
}

// TestDecimalKeepsWhatFollows checks that appending into a slice whose spare capacity holds
// bytes leaves the result exactly as long as the number: the word stores may write past its
// end, into room that is not part of the result.
func TestDecimalKeepsWhatFollows(t *testing.T) {
	buf := make([]byte, 0, 64)
	buf = appendDecimal(buf, 12345678901)
	buf = append(buf, '/')
	buf = appendDecimal(buf, 7)
	if got := string(buf); got != "12345678901/7" {
		t.Fatalf("got %q", got)
	}
}
