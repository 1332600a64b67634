package trace

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// Every event line carries two or three numbers (seq, t, cp), most of them ten digits long,
// so the Recorder formats them itself, eight digits at a time: eightDigits turns a number
// below 10^8 into its eight ASCII digits in one register with a few multiplications (no
// division, no table), and one store writes them into the line. The text is the same as
// strconv's: decimal without leading zeros, '-' before a negative number (decimal_test.go
// checks this against strconv).

// powersOf10[k] is 10 to the k, for every power a uint64 holds.
var powersOf10 = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// decimalDigits returns how many digits v has in decimal (1 for 0). bits.Len64(v)*1233>>12
// is log10(2) times the bit length, rounded down: either the number of digits less one, or
// one more than that, which the comparison with a power of ten tells apart.
func decimalDigits(v uint64) int {
	k := bits.Len64(v) * 1233 >> 12
	if v >= powersOf10[k] {
		k++
	}
	return max(k, 1)
}

// AppendUint appends v in decimal, as strconv.AppendUint(buf, v, 10) does, at a fraction of
// the cost. The canonical encoding writes its numbers with it; emitters that render numbers
// into attribute values (thousands per second of virtual time) use it too.
func AppendUint(buf []byte, v uint64) []byte {
	if v < 10 {
		return append(buf, byte('0'+v))
	}
	if v < 100 {
		return append(buf, byte('0'+v/10), byte('0'+v%10))
	}
	n := decimalDigits(v)
	// The stores below write whole words: the leading group of digits is written as eight
	// bytes, its digits first, and the bytes after them are overwritten by the next group or
	// left beyond the end of the line.
	buf = slices.Grow(buf, 24)
	start := len(buf)
	out := buf[start : start+24]
	switch {
	case n <= 8:
		binary.LittleEndian.PutUint64(out, eightDigits(v)>>(64-8*n))
	case n <= 16:
		binary.LittleEndian.PutUint64(out, eightDigits(v/1e8)>>(128-8*n))
		binary.LittleEndian.PutUint64(out[n-8:], eightDigits(v%1e8))
	default:
		binary.LittleEndian.PutUint64(out, eightDigits(v/1e16)>>(192-8*n))
		binary.LittleEndian.PutUint64(out[n-16:], eightDigits(v/1e8%1e8))
		binary.LittleEndian.PutUint64(out[n-8:], eightDigits(v%1e8))
	}
	return buf[:start+n]
}

// eightDigits returns the eight decimal digits of v < 10^8, leading zeros included, as ASCII
// bytes in one word, the first digit in the lowest byte (so a little-endian store writes
// them in reading order). It splits v into two halves of four digits, each of those into two
// pairs, and each pair into two digits, every step in all lanes of the word at once:
// n*10486>>20 is n/100 for every n < 10^4, and m*103>>10 is m/10 for every m < 100, and no
// product spills into the lane above.
func eightDigits(v uint64) uint64 {
	const lanes32, lanes16 = 0x0000007f_0000007f, 0x000f_000f_000f_000f
	hi, lo := v/10000, v%10000
	x := hi | lo<<32                  // two lanes of 32 bits: [lo hi], four digits each
	q := x * 10486 >> 20 & lanes32    // the first two digits of each
	x = q | (x-q*100)<<16             // four lanes of 16 bits, two digits each
	q = x * 103 >> 10 & lanes16       // the first digit of each
	x = q | (x-q*10)<<8               // eight bytes, one digit each
	return x + '0'*0x0101010101010101 // as ASCII
}

// AppendInt appends v in decimal, as strconv.AppendInt(buf, v, 10) does (see AppendUint).
func AppendInt(buf []byte, v int64) []byte {
	if v < 0 {
		// -uint64(v) is the magnitude even for the most negative int64.
		return AppendUint(append(buf, '-'), -uint64(v))
	}
	return AppendUint(buf, uint64(v))
}
