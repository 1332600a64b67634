package trace

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// referenceLine is the canonical line of e written the plain way, field by field with
// strconv and the byte-at-a-time string encoder, as the Recorder wrote it before it was made
// fast. Every fast path of the encoder must give exactly these bytes, or pinned trace hashes
// would change.
func referenceLine(e Event) string {
	var b []byte
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, e.T, 10)
	field := func(key, value string) {
		if value != "" {
			b = append(b, ',')
			b = referenceAppendString(b, key)
			b = append(b, ':')
			b = referenceAppendString(b, value)
		}
	}
	field("kind", e.Kind)
	field("task", e.Task)
	field("from", e.From)
	field("to", e.To)
	if e.CP != 0 {
		b = append(b, `,"cp":`...)
		b = strconv.AppendUint(b, e.CP, 10)
	}
	field("reason", e.Reason)
	field("txn", e.Txn)
	field("rid", e.RID)
	field("fault", e.Fault)
	attrs := slices.Clone(e.Attrs)
	slices.SortStableFunc(attrs, func(a, b Attr) int { return strings.Compare(a.Key, b.Key) })
	for _, a := range attrs {
		field(a.Key, a.Value)
	}
	return string(append(b, '}'))
}

// traceString draws the strings events hold: mostly plain ASCII of every length around the
// word size, sometimes anything at all (quotes, control bytes, invalid UTF-8).
var traceString = rapid.OneOf(
	rapid.StringMatching(`[a-z0-9:. -]{0,20}`),
	rapid.Just(""),
	rapid.String(),
	rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, 20), func(b []byte) string { return string(b) }),
)

// attrKey draws valid attribute keys, with the prefixes the engine uses.
var attrKey = rapid.Map(
	rapid.StringMatching(`(recv\.|chan\.|sent\.)?[a-z][a-z0-9._:-]{0,12}`),
	func(k string) string {
		if isFixedKey(k) {
			return k + "_"
		}
		return k
	})

// drawEvent draws an event with valid, distinct attribute keys, in key order or not.
func drawEvent(t *rapid.T) Event {
	attrs := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) Attr {
		return Attr{Key: attrKey.Draw(t, "key"), Value: traceString.Draw(t, "value")}
	}), 0, 30, func(a Attr) string { return a.Key }).Draw(t, "attrs")
	if rapid.Bool().Draw(t, "sorted") {
		slices.SortFunc(attrs, func(a, b Attr) int { return strings.Compare(a.Key, b.Key) })
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	return Event{
		Seq:  rapid.OneOf(rapid.Uint64Range(0, 1<<20), rapid.Uint64()).Draw(t, "seq"),
		T:    rapid.OneOf(rapid.Int64Range(0, 1e11), rapid.Int64()).Draw(t, "t"),
		Kind: rapid.SampledFrom(kinds).Draw(t, "kind"),
		Task: traceString.Draw(t, "task"), From: traceString.Draw(t, "from"), To: traceString.Draw(t, "to"),
		CP:     rapid.OneOf(rapid.Uint64Range(0, 200), rapid.Uint64()).Draw(t, "cp"),
		Reason: traceString.Draw(t, "reason"), Txn: traceString.Draw(t, "txn"),
		RID: traceString.Draw(t, "rid"), Fault: traceString.Draw(t, "fault"),
		Attrs: attrs,
	}
}

// Every way the package writes a line (String, appendEvent for HashEvents, appendLine with
// keys the Recorder checked) gives the reference bytes.
func TestCanonicalLineMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := drawEvent(t)
		want := referenceLine(e)
		if got := e.String(); got != want {
			t.Fatalf("String:\n got %s\nwant %s", got, want)
		}
		sorted := e
		sorted.Attrs = sortedAttrs(e.Attrs)
		if got := string(appendLine([]byte("x"), &sorted, true, false)); got != "x"+want {
			t.Fatalf("appendLine with checked keys:\n got %s\nwant x%s", got, want)
		}
	})
}

// Keys that String is given without a Recorder checking them are escaped like any string.
func TestCanonicalLineEscapesUncheckedKeys(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := Event{Kind: KindFault, Attrs: []Attr{{Key: traceString.Draw(t, "key"), Value: "v"}}}
		if got, want := e.String(), referenceLine(e); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// TestPlainStringNeverPassesAByteToEscape puts every byte value at every position of plain
// strings of every length up to three words: plainString must refuse each string holding a
// byte that needs escaping, and, so that the fast path is taken, accept the plain ones.
func TestPlainStringNeverPassesAByteToEscape(t *testing.T) {
	for n := 1; n <= 24; n++ {
		for pos := range n {
			for c := range 256 {
				s := []byte(strings.Repeat("a", n))
				s[pos] = byte(c)
				if got, want := plainString(string(s)), plain[c]; got != want {
					t.Fatalf("plainString(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
	if !plainString("") {
		t.Fatal(`plainString("") = false`)
	}
}

// TestAppendValueEscapesEveryByte does the same through appendValue, which checks strings of
// four to sixteen bytes itself: every string must come out as the reference encoder writes it.
func TestAppendValueEscapesEveryByte(t *testing.T) {
	for n := 0; n <= 24; n++ {
		for pos := range max(n, 1) {
			for c := range 256 {
				s := []byte(strings.Repeat("a", n))
				if n > 0 {
					s[pos] = byte(c)
				}
				want := referenceAppendString([]byte("x"), string(s))
				if got := appendValue([]byte(`x"`), string(s)); string(got) != string(want) {
					t.Fatalf("appendValue(%q) = %s, want %s", s, got, want)
				}
			}
		}
	}
}

// TestKeyStringIsExact does the same for keyString, which must also accept every string
// validAttrKey accepts, since refusing a key stops the run.
func TestKeyStringIsExact(t *testing.T) {
	for n := 1; n <= 24; n++ {
		for pos := range n {
			for c := range 256 {
				s := []byte(strings.Repeat("k", n))
				s[pos] = byte(c)
				want := c > ' ' && c < 0x7f && c != '"' && c != '\\'
				if got := keyString(string(s)); got != want {
					t.Fatalf("keyString(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

func TestAttrKeyAllowedAgreesWithValidAttrKey(t *testing.T) {
	for _, k := range append(slices.Clone(fixedKeys), "", "state", "chan.src-10", "a b", "é", "x\x7f", "fault_") {
		if got, want := attrKeyAllowed(k), validAttrKey(k); got != want {
			t.Errorf("attrKeyAllowed(%q) = %v, validAttrKey says %v", k, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.OneOf(traceString, attrKey, rapid.SampledFrom(fixedKeys)).Draw(t, "key")
		if got, want := attrKeyAllowed(k), validAttrKey(k); got != want {
			t.Fatalf("attrKeyAllowed(%q) = %v, validAttrKey says %v", k, got, want)
		}
	})
}

func TestAppendEventSortsACopy(t *testing.T) {
	attrs := []Attr{{"b", "2"}, {"a", "1"}}
	e := Event{Kind: "x", Attrs: attrs}
	line := appendEvent(nil, &e)
	if !bytes.Contains(line, []byte(`"a":"1","b":"2"`)) || attrs[0].Key != "b" {
		t.Fatalf("line %s, caller's attributes now %v", line, attrs)
	}
}
