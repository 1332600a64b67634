package trace

import "unicode/utf8"

// Nearly every string in a trace is plain: printable ASCII with no quote or backslash, which a
// JSON string holds as it is. So appendString first asks whether the whole string is plain,
// eight bytes at a time, and then copies it in one piece; only a string that is not goes
// through the byte-wise escaping loop. Short strings (task names, numbers) are checked as one
// word too: their bytes are gathered, with overlaps, into eight.

const hexDigits = "0123456789abcdef"

// plain[c] is true for the bytes a JSON string holds as they are: printable ASCII other than
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string. Control characters, quotes and backslashes are
// escaped and invalid UTF-8 becomes U+FFFD, so every string has one canonical form that
// encoding/json reads back unchanged.
func appendString(buf []byte, s string) []byte {
	if plainString(s) {
		buf = append(buf, '"')
		buf = append(buf, s...)
		return append(buf, '"')
	}
	return appendEscaped(append(buf, '"'), s)
}

// appendEscaped appends s escaped as a JSON string, and its closing quote. Runs of plain bytes
// are copied in one piece.
func appendEscaped(buf []byte, s string) []byte {
	start := 0
	i := 0
	for i < len(s) {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		buf = append(buf, s[start:i]...)
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			default: // a control character
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\ufffd"...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// plainString reports whether every byte of s is plain. Saying no for a plain string would
// only cost the byte-wise loop; saying yes for one that is not would break the line.
func plainString(s string) bool {
	if len(s) < 8 {
		return plainWord(shortWord(s))
	}
	// Whole words, then the last eight bytes, which may overlap the word before them.
	for i := 0; i < len(s)-8; i += 8 {
		if !plainWord(word(s[i:])) {
			return false
		}
	}
	return plainWord(word(s[len(s)-8:]))
}

// plainWord reports whether none of the 8 bytes of w needs escaping: none is a control
// character, a quote, a backslash or above 0x7f. It tests all eight at once with the usual
// tricks: a byte b has (b - k) & ^b & 0x80 set when b < k (for k <= 0x80), and is zero
// exactly where b ^ v is. These tests never miss such a byte; they may flag one that is
// fine, which only sends the bytes to the byte-wise loop.
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := x^'"'*ones, x^'\\'*ones
	return ((x-0x20*ones)&^x|(q-ones)&^q|(b-ones)&^b|x)&highs == 0
}

// word reads the first 8 bytes of s as one little-endian number (the compiler makes it one
// load). s must hold at least 8.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// shortWord gathers the bytes of s, which is shorter than 8, into one word for the tests
// above: each byte of s lands in at least one byte of the word, some twice, and the bytes
// left over are 'a', which passes every test. Which byte goes where does not matter, since
// the tests look at each byte by itself.
func shortWord(s string) uint64 {
	const fill = 'a' * 0x0101010101010101
	switch n := len(s); {
	case n >= 4:
		return uint64(halfWord(s)) | uint64(halfWord(s[n-4:]))<<32
	case n > 0:
		return fill&^0xffffff | uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	return fill
}

// halfWord reads the first 4 bytes of s as one little-endian number.
func halfWord(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
