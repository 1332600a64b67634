package trace

import (
	"strings"
	"unicode/utf8"
)

// The trace hash is taken over a compact binary form of the events, not over their lines:
// encoding a line costs a decimal rendering of every number and a look at every byte of
// every string for what JSON must escape, and the lines are half as long again as the
// binary form. The binary form is never written to a file; it exists to be hashed, and its
// layout is the contract that makes a hash mean the same on every machine.
//
// # The binary form, byte by byte (hash version 2)
//
// The hashed stream is one byte, the hash version (2), followed by the binary form of each
// event in trace order. One event's form is, in this order:
//
//	seq     uvarint(Seq)
//	t       uvarint(uint64(T))        (a negative time takes ten bytes, as two's complement)
//	mask    uvarint(presence bits)    bit i set when fixed field i is present (below)
//	fields  each present fixed field in bit order: a string as uvarint(length) and its bytes,
//	        cp as uvarint(CP)
//	attrs   each attribute whose value is not empty, in increasing byte order of key:
//	        uvarint(len(key)) key uvarint(len(value)) value
//	end     one zero byte (no key is empty, so no attribute starts with it)
//
// The fixed fields and their bits: 0 kind, 1 task, 2 from, 3 to, 4 cp, 5 reason, 6 txn,
// 7 rid, 8 fault. A string field is present when it is not empty, cp when it is not 0: the
// fields a canonical line leaves out are the ones the form leaves out. uvarint is the
// unsigned LEB128 of encoding/binary (seven bits a byte, least significant group first, the
// high bit set on every byte but the last), always in its shortest form. A string is its
// UTF-8 bytes, unescaped, as its line holds it: a byte that is not part of valid UTF-8 is
// the three bytes of U+FFFD (EF BF BD), as the line writes it, and its length is counted
// after that replacement. Attributes with equal keys (which a Recorder refuses
// and Read never returns) keep their order.
//
// So an event's binary form holds exactly what its canonical line holds, and two events have
// the same form exactly when they have the same line: a trace read back from its file hashes
// as the run that wrote it did. Every part is self-delimiting, so the stream of forms is
// unambiguous without separators.

// hashVersion is the first byte of the hashed stream: the version of the binary form and
// of the hash over it. Version 1 was SHA-256 over the canonical lines (see HashEventsV1).
const hashVersion = 2

// Presence bits of the fixed fields in an event's binary form.
const (
	bitKind = 1 << iota
	bitTask
	bitFrom
	bitTo
	bitCP
	bitReason
	bitTxn
	bitRID
	bitFault
)

// appendBinary appends the binary form of e, whose attributes are in key order. As for
// appendLine, keysChecked says that every attribute key passed attrKeyAllowed and
// valuesPlain that every attribute value is plain (Event.PlainValues): printable ASCII,
// valid UTF-8 as it stands, so that either is copied without a look at its bytes.
func appendBinary(buf []byte, e *Event, keysChecked, valuesPlain bool) []byte {
	var mask uint64
	if e.Kind != "" {
		mask |= bitKind
	}
	if e.Task != "" {
		mask |= bitTask
	}
	if e.From != "" {
		mask |= bitFrom
	}
	if e.To != "" {
		mask |= bitTo
	}
	if e.CP != 0 {
		mask |= bitCP
	}
	if e.Reason != "" {
		mask |= bitReason
	}
	if e.Txn != "" {
		mask |= bitTxn
	}
	if e.RID != "" {
		mask |= bitRID
	}
	if e.Fault != "" {
		mask |= bitFault
	}
	buf = appendUvarint(buf, e.Seq)
	buf = appendUvarint(buf, uint64(e.T))
	buf = appendUvarint(buf, mask)
	// Most events have a kind, a task and one or two more fields: only those present cost a
	// call.
	if mask&bitKind != 0 {
		buf = appendBinaryString(buf, e.Kind)
	}
	if mask&bitTask != 0 {
		buf = appendBinaryString(buf, e.Task)
	}
	if mask&(bitFrom|bitTo|bitCP|bitReason|bitTxn|bitRID|bitFault) != 0 {
		buf = appendRareFields(buf, e, mask)
	}
	for _, a := range e.Attrs {
		if a.Value == "" {
			continue
		}
		if keysChecked {
			buf = appendRaw(buf, a.Key)
		} else {
			buf = appendBinaryString(buf, a.Key)
		}
		if valuesPlain {
			buf = appendRaw(buf, a.Value)
		} else {
			buf = appendBinaryString(buf, a.Value)
		}
	}
	return append(buf, 0)
}

// appendRareFields appends the fixed fields after task that mask says are present.
func appendRareFields(buf []byte, e *Event, mask uint64) []byte {
	if mask&bitFrom != 0 {
		buf = appendBinaryString(buf, e.From)
	}
	if mask&bitTo != 0 {
		buf = appendBinaryString(buf, e.To)
	}
	if mask&bitCP != 0 {
		buf = appendUvarint(buf, e.CP)
	}
	if mask&bitReason != 0 {
		buf = appendBinaryString(buf, e.Reason)
	}
	if mask&bitTxn != 0 {
		buf = appendBinaryString(buf, e.Txn)
	}
	if mask&bitRID != 0 {
		buf = appendBinaryString(buf, e.RID)
	}
	if mask&bitFault != 0 {
		buf = appendBinaryString(buf, e.Fault)
	}
	return buf
}

// appendBinaryString appends a string (length and bytes), made valid UTF-8 as its line
// would make it.
func appendBinaryString(buf []byte, s string) []byte {
	if !asciiString(s) && !utf8.ValidString(s) {
		s = validUTF8(s)
	}
	return appendRaw(buf, s)
}

// appendRaw appends s, known to be valid UTF-8, as its length and its bytes.
func appendRaw(buf []byte, s string) []byte {
	if len(s) < 0x80 {
		return append(append(buf, byte(len(s))), s...)
	}
	return append(appendLongUvarint(buf, uint64(len(s))), s...)
}

// validUTF8 returns s with every byte that is not part of valid UTF-8 replaced by U+FFFD,
// as appendEscaped writes it. (strings.ToValidUTF8 would replace a run of them by one.)
func validUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\ufffd")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// asciiString reports whether every byte of s is below 0x80, eight bytes at a time; most
// strings of a trace are, and need no closer look.
func asciiString(s string) bool {
	const highs = 0x8080808080808080
	if len(s) < 8 {
		return shortWord(s)&highs == 0
	}
	var any uint64
	for i := 0; i < len(s)-8; i += 8 {
		any |= word(s[i:])
	}
	return (any|word(s[len(s)-8:]))&highs == 0
}

// appendUvarint is binary.AppendUvarint with the one-byte case, by far the commonest
// (lengths, masks, small numbers), first and inlined.
func appendUvarint(buf []byte, v uint64) []byte {
	if v < 0x80 {
		return append(buf, byte(v))
	}
	return appendLongUvarint(buf, v)
}

func appendLongUvarint(buf []byte, v uint64) []byte {
	for v >= 0x80 {
		buf = append(buf, byte(v)|0x80)
		v >>= 7
	}
	return append(buf, byte(v))
}
