package trace

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// checkDecimal fails t unless appendUint (or appendInt, for values that fit) writes v as
// strconv does, after whatever buf already holds.
func checkDecimal(t interface{ Fatalf(string, ...any) }, v uint64) {
	prefix := []byte("x:")
	if got, want := string(AppendUint(prefix, v)), string(strconv.AppendUint(prefix, v, 10)); got != want {
		t.Fatalf("AppendUint(%d) = %q, want %q", v, got, want)
	}
	n := int64(v)
	if got, want := string(AppendInt(prefix, n)), string(strconv.AppendInt(prefix, n, 10)); got != want {
		t.Fatalf("AppendInt(%d) = %q, want %q", n, got, want)
	}
	if got, want := decimalDigits(v), len(strconv.FormatUint(v, 10)); got != want {
		t.Fatalf("decimalDigits(%d) = %d, want %d", v, got, want)
	}
}

// The digit count changes at the powers of ten and the bit length at the powers of two:
// every value next to one of them is where an off-by-one would show.
func TestDecimalAtEveryBoundary(t *testing.T) {
	for v := range uint64(1000) {
		checkDecimal(t, v)
	}
	for _, p := range powersOf10 {
		for _, v := range []uint64{p - 1, p, p + 1} {
			checkDecimal(t, v)
		}
	}
	for shift := range 64 {
		p := uint64(1) << shift
		for _, v := range []uint64{p - 1, p, p + 1} {
			checkDecimal(t, v)
		}
	}
	for _, v := range []uint64{math.MaxUint64, math.MaxInt64, 1 << 63, math.MaxUint64 - 1} {
		checkDecimal(t, v)
	}
}

func TestDecimalMatchesStrconv(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		checkDecimal(t, rapid.Uint64().Draw(t, "v"))
		checkDecimal(t, uint64(rapid.Int64().Draw(t, "n")))
	})
}

// TestEightDigitsInEveryLane gives each four-digit half of eightDigits' input every value
// from 0 to 9999, with the other half at its extremes and at the same value: the halves are
// computed in separate lanes, so this covers every value each lane can see.
func TestEightDigitsInEveryLane(t *testing.T) {
	check := func(v uint64) {
		var got [8]byte
		binary.LittleEndian.PutUint64(got[:], eightDigits(v))
		if want := fmt.Sprintf("%08d", v); string(got[:]) != want {
			t.Fatalf("eightDigits(%d) = %q, want %q", v, got[:], want)
		}
	}
	for n := range uint64(10000) {
		for _, other := range []uint64{0, 9999, n} {
			check(n*10000 + other)
			check(other*10000 + n)
		}
	}
}
