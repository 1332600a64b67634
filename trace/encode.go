package trace

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// appendEvent appends the canonical line of e (no newline) to buf. It is the only place that
// decides field order, so the hash, the files and String all agree.
func appendEvent(buf []byte, e *Event) []byte {
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendUint(buf, e.Seq, 10)
	buf = append(buf, `,"t":`...)
	buf = strconv.AppendInt(buf, e.T, 10)
	// The fixed keys are written as literals: they never need escaping.
	buf = appendFixed(buf, `,"kind":`, e.Kind)
	buf = appendFixed(buf, `,"task":`, e.Task)
	buf = appendFixed(buf, `,"from":`, e.From)
	buf = appendFixed(buf, `,"to":`, e.To)
	if e.CP != 0 {
		buf = append(buf, `,"cp":`...)
		buf = strconv.AppendUint(buf, e.CP, 10)
	}
	buf = appendFixed(buf, `,"reason":`, e.Reason)
	buf = appendFixed(buf, `,"txn":`, e.Txn)
	buf = appendFixed(buf, `,"rid":`, e.RID)
	buf = appendFixed(buf, `,"fault":`, e.Fault)
	if !attrsSorted(e.Attrs) {
		// Sorting a copy keeps the caller's slice as it was; emitters that pass sorted
		// attributes (the common case) pay nothing.
		e.Attrs = slices.Clone(e.Attrs)
		slices.SortStableFunc(e.Attrs, func(a, b Attr) int { return compareStrings(a.Key, b.Key) })
	}
	for _, a := range e.Attrs {
		buf = appendField(buf, a.Key, a.Value)
	}
	return append(buf, '}')
}

func attrsSorted(attrs []Attr) bool {
	for i := 1; i < len(attrs); i++ {
		if attrs[i-1].Key > attrs[i].Key {
			return false
		}
	}
	return true
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// appendFixed appends prefix (`,"key":`) and value as a JSON string, or nothing when value is
// empty.
func appendFixed(buf []byte, prefix, value string) []byte {
	if value == "" {
		return buf
	}
	buf = append(buf, prefix...)
	return appendString(buf, value)
}

// appendField appends ,"key":"value", or nothing when value is empty.
func appendField(buf []byte, key, value string) []byte {
	if value == "" {
		return buf
	}
	buf = append(buf, ',')
	buf = appendString(buf, key)
	buf = append(buf, ':')
	return appendString(buf, value)
}

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
// encoding/json reads back unchanged. Runs of plain bytes, which is nearly everything a trace
// holds, are copied in one piece.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	i := 0
	// Eight bytes at a time while they are all plain: long values (the record lists of
	// sink.writes) are nearly all plain.
	for ; i+8 <= len(s) && plainWord(word(s[i:i+8])); i += 8 {
	}
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

// word reads the 8 bytes of w as one little-endian number (the compiler makes it one load).
func word(w string) uint64 {
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// appendHeader appends the canonical header line (no newline).
func appendHeader(buf []byte, h Header) []byte {
	buf = append(buf, `{"kind":"trace.header","version":`...)
	buf = strconv.AppendInt(buf, int64(h.Version), 10)
	buf = append(buf, `,"scenario":`...)
	buf = appendString(buf, h.Scenario)
	buf = append(buf, `,"seed":`...)
	buf = strconv.AppendUint(buf, h.Seed, 10)
	buf = append(buf, `,"build":`...)
	buf = appendString(buf, h.Build)
	return append(buf, '}')
}
