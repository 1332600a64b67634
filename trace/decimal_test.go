package trace

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// checkDecimal fails t unless AppendUint (and AppendInt, of v as an int64) writes v as
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
}

// The digit count changes at the powers of ten and the bit length at the powers of two:
// every value next to one of them is where an off-by-one would show.
func TestDecimalAtEveryBoundary(t *testing.T) {
	for v := range uint64(1000) {
		checkDecimal(t, v)
	}
	p := uint64(1)
	for range 20 { // 10^0 to 10^19, every power of ten a uint64 holds
		for _, v := range []uint64{p - 1, p, p + 1} {
			checkDecimal(t, v)
		}
		p *= 10
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

// standardNumbers are numbers in about the proportions of a standard-job trace: mostly the
// three- and four-digit record offsets and values of sink.writes, then ten-digit virtual
// times, five-digit sequence numbers and two-digit checkpoint ids.
func standardNumbers() []uint64 {
	var numbers []uint64
	for i := range uint64(256) {
		numbers = append(numbers,
			1000+i*37, 1000+i*31%9000, 100+i*3, 1000+i*17, 2000+i*29, // record offsets and values
			9_000_000_000+i*1_234_567, // a virtual time
			10_000+i*53,               // a sequence number
			10+i%90,                   // a checkpoint id
			i%7)                       // a snapshot counter
	}
	return numbers
}

// BenchmarkAppendUint formats the standard proportions of numbers; ns/op is per number.
func BenchmarkAppendUint(b *testing.B) {
	benchAppendUint(b, standardNumbers())
}

// BenchmarkAppendUintTimes formats ten-digit virtual times only.
func BenchmarkAppendUintTimes(b *testing.B) {
	var times []uint64
	for i := range uint64(256) {
		times = append(times, 2_000_000_000+i*3_700_001)
	}
	benchAppendUint(b, times)
}

func benchAppendUint(b *testing.B, numbers []uint64) {
	buf := make([]byte, 0, 64)
	for i := 0; b.Loop(); i++ {
		buf = AppendUint(buf[:0], numbers[i%len(numbers)])
	}
}

// decimalLength keeps the results of the allocation test alive.
var decimalLength int

// A caller that formats into an array on its stack (the engine renders snapshot values so)
// must not have it moved to the heap: AppendUint and AppendInt may only return buf, never
// keep it. Recursion in the formatter once made escape analysis assume they do.
func TestDecimalKeepsTheCallersBufferOnItsStack(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		var b [64]byte
		out := AppendUint(b[:0], math.MaxUint64)
		out = AppendInt(out, math.MinInt64)
		out = AppendInt(out, 1234)
		decimalLength = len(out)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

// fourDigitValues gives the same digits as eightDigitValues for every number it takes.
func TestFourDigitValues(t *testing.T) {
	for v := range uint64(10000) {
		if got, want := fourDigitValues(v)<<32, eightDigitValues(v); got != want {
			t.Fatalf("fourDigitValues(%d)<<32 = %#x, want %#x", v, got, want)
		}
	}
}
