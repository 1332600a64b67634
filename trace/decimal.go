package trace

import (
	"encoding/binary"
	"math/bits"
)

// Every event line carries two or three numbers (seq, t, cp), and a sink.writes two per
// record it lists, so the Recorder and the emitters format them with AppendUint rather than
// strconv: eightDigitValues turns a number below 10^8 into its eight digits in one register
// with a few multiplications (no division, no table), and one store writes them. The text is
// the same as strconv's: decimal without leading zeros, '-' before a negative number
// (decimal_test.go checks this against strconv).

// AppendUint appends v in decimal, as strconv.AppendUint(buf, v, 10) does, at a fraction of
// the cost. The canonical encoding writes its numbers with it; emitters that render numbers
// into attribute values (thousands per second of virtual time) use it too. Unlike strconv it
// may change up to seven bytes of buf's spare capacity beyond the end of what it returns.
func AppendUint(buf []byte, v uint64) []byte { return appendDecimal(buf, v, false) }

// AppendInt appends v in decimal, as strconv.AppendInt(buf, v, 10) does (see AppendUint).
func AppendInt(buf []byte, v int64) []byte { return appendDecimal(buf, uint64(v), v < 0) }

// appendDecimal appends v in decimal or, if negative, a minus sign and the magnitude of v
// read as an int64 (-v, which is right even for the most negative int64). AppendUint and
// AppendInt are small enough to be inlined into their callers, so that either costs one call.
//
// Most numbers in a trace have one to five digits (record offsets and values, sequence
// numbers, counters), so those below 10^8 take a short path that does not count digits:
// eightDigitValues gives all eight, leading zeros included, and the zero bytes at the bottom
// of its word say how many of them to drop. The word is stored whole; the bytes after the
// number's lie beyond the end of the returned slice. Numbers below 10^4, most of a
// sink.writes' offsets and values, need only half of eightDigitValues' steps.
func appendDecimal(buf []byte, v uint64, negative bool) []byte {
	if negative {
		buf = append(buf, '-')
		v = -v
	}
	if v < 1e4 {
		return appendDigits(buf, fourDigitValues(v)<<32)
	}
	if v >= 1e8 {
		return appendLargeUint(buf, v)
	}
	return appendDigits(buf, eightDigitValues(v))
}

// fourDigitValues is eightDigitValues for v < 10^4, in the low four bytes of the word: the
// same steps without the first, which splits eight digits into two halves of four.
func fourDigitValues(v uint64) uint64 {
	const lanes16 = 0x000f_000f
	q := v * 10486 >> 20        // the first two digits
	x := q | (v-q*100)<<16      // two lanes of 16 bits, two digits each
	q = x * 103 >> 10 & lanes16 // the first digit of each
	return q | (x-q*10)<<8      // four bytes, one digit each
}

// appendLargeUint is appendDecimal for v >= 10^8: the digits before the last eight, then the
// last eight, leading zeros included. (It does not call appendDecimal for the digits before:
// a recursive call would make escape analysis move every caller's buffer to the heap.)
func appendLargeUint(buf []byte, v uint64) []byte {
	high := v / 1e8
	if high < 1e8 {
		buf = appendDigits(buf, eightDigitValues(high))
	} else {
		buf = appendDigits(buf, eightDigitValues(high/1e8))
		buf = binary.LittleEndian.AppendUint64(buf, eightDigits(high%1e8))
	}
	return binary.LittleEndian.AppendUint64(buf, eightDigits(v%1e8))
}

// appendDigits appends the digits of a word from eightDigitValues, without leading zeros
// but at least one.
func appendDigits(buf []byte, digits uint64) []byte {
	// Eight bits per leading zero digit; the last digit always stays, even for zero.
	zeros := bits.TrailingZeros64(digits|1<<56) &^ 7
	buf = binary.LittleEndian.AppendUint64(buf, digits>>zeros+'0'*0x0101010101010101)
	return buf[:len(buf)-zeros>>3]
}

// eightDigits returns the eight decimal digits of v < 10^8, leading zeros included, as ASCII
// bytes in one word, the first digit in the lowest byte (so a little-endian store writes
// them in reading order).
func eightDigits(v uint64) uint64 {
	return eightDigitValues(v) + '0'*0x0101010101010101
}

// eightDigitValues is eightDigits with each digit as its value (0 to 9) instead of its ASCII
// byte. It splits v into two halves of four digits, each of those into two pairs, and each
// pair into two digits, every step in all lanes of the word at once: n*10486>>20 is n/100
// for every n < 10^4, and m*103>>10 is m/10 for every m < 100, and no product spills into
// the lane above.
func eightDigitValues(v uint64) uint64 {
	const lanes32, lanes16 = 0x0000007f_0000007f, 0x000f_000f_000f_000f
	hi, lo := v/10000, v%10000
	x := hi | lo<<32               // two lanes of 32 bits: [lo hi], four digits each
	q := x * 10486 >> 20 & lanes32 // the first two digits of each
	x = q | (x-q*100)<<16          // four lanes of 16 bits, two digits each
	q = x * 103 >> 10 & lanes16    // the first digit of each
	return q | (x-q*10)<<8         // eight bytes, one digit each
}
