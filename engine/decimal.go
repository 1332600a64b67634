package engine

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The engine renders numbers into trace attributes on every checkpoint (about twenty per
// snapshot) and, with batched sink writes, two per record a sink writes (the sequence
// number in its id and its value). strconv divides by 100 per pair of digits; the
// functions here produce the same text with a few multiplications per eight digits, the
// way the trace package formats its line numbers (trace/decimal.go, which does not export
// its helpers). decimal_test.go checks them against strconv.

// tenPowers[k] is 10 to the k, for every power a uint64 holds.
var tenPowers = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// digitCount returns the number of decimal digits of v (1 for 0). A bit length times
// 1233/4096 (just over log10 of 2) is the digit count or one less, and one comparison with
// a power of ten tells which.
func digitCount(v uint64) int {
	n := bits.Len64(v) * 1233 >> 12
	if v >= tenPowers[n] {
		n++
	}
	return max(n, 1)
}

// appendDecimal appends v in decimal, as strconv.AppendUint(dst, v, 10) does.
func appendDecimal(dst []byte, v uint64) []byte {
	if v < 10 {
		return append(dst, byte('0'+v))
	}
	if v < 100 {
		return append(dst, byte('0'+v/10), byte('0'+v%10))
	}
	n := digitCount(v)
	// Every group of eight digits is stored as one little-endian word. Only the leading
	// group has fewer than eight digits; it is shifted so that its digits come first, and
	// the bytes stored after them are overwritten by the next group or cut off below.
	dst = slices.Grow(dst, 24)
	at := len(dst)
	room := dst[at : at+24]
	switch {
	case n <= 8:
		binary.LittleEndian.PutUint64(room, digitWord(v)>>(64-8*n))
	case n <= 16:
		binary.LittleEndian.PutUint64(room, digitWord(v/1e8)>>(128-8*n))
		binary.LittleEndian.PutUint64(room[n-8:], digitWord(v%1e8))
	default:
		binary.LittleEndian.PutUint64(room, digitWord(v/1e16)>>(192-8*n))
		binary.LittleEndian.PutUint64(room[n-16:], digitWord(v/1e8%1e8))
		binary.LittleEndian.PutUint64(room[n-8:], digitWord(v%1e8))
	}
	return dst[:at+n]
}

// appendSignedDecimal appends v in decimal, as strconv.AppendInt(dst, v, 10) does.
func appendSignedDecimal(dst []byte, v int64) []byte {
	if v < 0 {
		// -uint64(v) is the magnitude, even of the most negative int64.
		return appendDecimal(append(dst, '-'), -uint64(v))
	}
	return appendDecimal(dst, uint64(v))
}

// digitWord returns the eight decimal digits of v < 10^8 (with leading zeros) as ASCII in
// one word, the most significant digit in the lowest byte. The number is split into two
// lanes of four digits, those into four lanes of two and those into eight of one, all lanes
// at once: for x < 10^4, x*5243>>19 is x/100, and for x < 100, x*103>>10 is x/10, and no
// product reaches the lane above.
func digitWord(v uint64) uint64 {
	const mask4, mask2 = 0x0000_007f_0000_007f, 0x000f_000f_000f_000f
	w := v/10000 | v%10000<<32 // [high four digits | low four digits << 32]
	hundreds := w * 5243 >> 19 & mask4
	w = hundreds | (w-hundreds*100)<<16
	tens := w * 103 >> 10 & mask2
	w = tens | (w-tens*10)<<8
	return w + 0x3030_3030_3030_3030 // '0' in every byte
}
