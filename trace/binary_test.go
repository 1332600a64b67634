package trace

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// referenceForm is the binary form of e written the plain way, straight from the layout in
// binary.go, to check appendBinary against: encoding/binary's uvarints, a presence mask built
// field by field, strings made valid as the line would make them, attributes sorted in a copy.
func referenceForm(e Event) []byte {
	b := binary.AppendUvarint(nil, e.Seq)
	b = binary.AppendUvarint(b, uint64(e.T))
	strs := []string{e.Kind, e.Task, e.From, e.To, "", e.Reason, e.Txn, e.RID, e.Fault}
	var mask uint64
	for i, s := range strs {
		if s != "" || (i == 4 && e.CP != 0) {
			mask |= 1 << i
		}
	}
	b = binary.AppendUvarint(b, mask)
	str := func(s string) {
		var v []byte
		for _, r := range s { // ranging over a string yields U+FFFD for each invalid byte
			v = append(v, string(r)...)
		}
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	for i, s := range strs {
		switch {
		case i == 4 && e.CP != 0:
			b = binary.AppendUvarint(b, e.CP)
		case s != "":
			str(s)
		}
	}
	attrs := slices.Clone(e.Attrs)
	slices.SortStableFunc(attrs, func(a, b Attr) int { return strings.Compare(a.Key, b.Key) })
	for _, a := range attrs {
		if a.Value != "" {
			str(a.Key)
			str(a.Value)
		}
	}
	return append(b, 0)
}

// referenceHash is XXH64 of the version byte and the reference forms of events.
func referenceHash(events []Event) string {
	stream := []byte{hashVersion}
	for _, e := range events {
		stream = append(stream, referenceForm(e)...)
	}
	return formatHash(xxh64Sum(stream))
}

func TestBinaryFormMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := drawEvent(t)
		want := referenceForm(e)
		sorted := e
		sorted.Attrs = sortedAttrs(e.Attrs)
		if got := appendBinary([]byte("x"), &sorted, false, false); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Fatalf("appendBinary of %s:\n got % x\nwant   % x", e, got, want)
		}
		if !allPlain(sorted.Attrs) {
			return
		}
		// The Recorder's path: keys checked, values vouched for.
		if got := appendBinary(nil, &sorted, true, true); !bytes.Equal(got, want) {
			t.Fatalf("appendBinary of %s with plain values:\n got % x\nwant % x", e, got, want)
		}
	})
}

// The binary form holds what the line holds: an event read back from its line has the form
// of the event written, and two events have the same form exactly when they have the same
// line.
func TestBinaryFormIsTheLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := drawEvent(t)
		if e.T < 0 {
			e.T = -(e.T + 1) // a file holds no negative time
		}
		read, err := parseEvent([]byte(e.String()))
		if err != nil {
			t.Fatalf("line %s does not read back: %v", e, err)
		}
		if got, want := referenceForm(read), referenceForm(e); !bytes.Equal(got, want) {
			t.Fatalf("%s read back with form\n% x\nwritten with\n% x", e, got, want)
		}
		// A variant: a field or an attribute cleared, changed or left alone.
		other := e
		other.Attrs = slices.Clone(e.Attrs)
		switch rapid.IntRange(0, 4).Draw(t, "change") {
		case 1:
			other.Task = traceString.Draw(t, "task2")
		case 2:
			other.CP = rapid.Uint64Range(0, 3).Draw(t, "cp2")
		case 3:
			if len(other.Attrs) > 0 {
				other.Attrs[0].Value = traceString.Draw(t, "value2")
			}
		case 4:
			other.Reason, other.Txn = other.Txn, other.Reason
		}
		sameLine := e.String() == other.String()
		if sameForm := bytes.Equal(referenceForm(e), referenceForm(other)); sameForm != sameLine {
			t.Fatalf("same line %v but same form %v:\n%s\n%s", sameLine, sameForm, e, other)
		}
		if sameHash := HashEvents([]Event{e}) == HashEvents([]Event{other}); sameHash != sameLine {
			t.Fatalf("same line %v but same hash %v:\n%s\n%s", sameLine, sameHash, e, other)
		}
	})
}

// The layout pinned byte by byte, so that a change to it cannot pass unnoticed.
func TestBinaryFormPinned(t *testing.T) {
	e := Event{Seq: 300, T: 5, Kind: "sink.writes", Task: "sink-0", CP: 2, Fault: "x",
		Attrs: []Attr{{"values", "1 2"}, {"rids", "a\xff"}, {"skip", ""}}}
	want := []byte{
		0xac, 0x02, // seq 300
		0x05,       // t
		0x93, 0x02, // mask: kind, task, cp, fault
		11, 's', 'i', 'n', 'k', '.', 'w', 'r', 'i', 't', 'e', 's',
		6, 's', 'i', 'n', 'k', '-', '0',
		2, // cp
		1, 'x',
		4, 'r', 'i', 'd', 's', 4, 'a', 0xef, 0xbf, 0xbd, // the invalid byte as U+FFFD
		6, 'v', 'a', 'l', 'u', 'e', 's', 3, '1', ' ', '2',
		0,
	}
	sorted := e
	sorted.Attrs = sortedAttrs(e.Attrs)
	if got := appendBinary(nil, &sorted, false, false); !bytes.Equal(got, want) {
		t.Fatalf("got  % x\nwant % x", got, want)
	}
	if got, want := HashEvents(nil), formatHash(xxh64Sum([]byte{hashVersion})); got != want || len(got) != HashDigits {
		t.Fatalf("hash of no events %s, want %s", got, want)
	}
}

func TestAsciiString(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := traceString.Draw(t, "s")
		want := true
		for i := range len(s) {
			want = want && s[i] < 0x80
		}
		if got := asciiString(s); got != want {
			t.Fatalf("asciiString(%q) = %v", s, got)
		}
	})
}

// allPlain reports whether every attribute value is plain, as PlainValues vouches.
func allPlain(attrs []Attr) bool {
	for _, a := range attrs {
		if !plainString(a.Value) {
			return false
		}
	}
	return true
}
