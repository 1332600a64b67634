package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func sampleEvents() []Event {
	return []Event{
		{Kind: KindCheckpointTrigger, Task: "coordinator", CP: 1},
		{Kind: KindBarrierSend, Task: "src-0", To: "sum-1", CP: 1},
		{Kind: KindSnapshotTaken, Task: "sum-1", CP: 1, Attrs: []Attr{{"recv.src-0", "7"}, {"state", "ab12"}}},
		{Kind: KindTaskRestore, Task: "sum-1"},
		{Kind: KindFault, Fault: "crash-task", Task: "sum-1", Attrs: []Attr{{"note", "quote \" back \\ tab \t é"}}},
	}
}

func record(t *testing.T, events []Event) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	r := NewRecorder(&buf, Header{Scenario: "demo", Seed: 7, Build: "test"})
	for i, e := range events {
		r.Emit(int64(i)*1000, e)
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	return r.Hash(), &buf
}

func TestRoundTripKeepsEventsAndHash(t *testing.T) {
	hash, buf := record(t, sampleEvents())
	h, events, err := ReadAll(buf)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Header{Version: 1, Scenario: "demo", Seed: 7, Build: "test"}); h != want {
		t.Fatalf("header = %+v, want %+v", h, want)
	}
	want := sampleEvents()
	for i := range want {
		want[i].Seq = uint64(i)
		want[i].T = int64(i) * 1000
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Fatalf("events differ (-want +got):\n%s", diff)
	}
	if got := HashEvents(events); got != hash {
		t.Fatalf("hash of read-back events %s, recorder said %s", got, hash)
	}
}

func TestCanonicalLine(t *testing.T) {
	e := Event{Seq: 3, T: 50, Kind: KindSnapshotTaken, Task: "sum-1", CP: 2,
		Attrs: []Attr{{"state", "x"}, {"recv.a", "1"}}}
	want := `{"seq":3,"t":50,"kind":"snapshot.taken","task":"sum-1","cp":2,"recv.a":"1","state":"x"}`
	if got := e.String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if e.Attrs[0].Key != "state" {
		t.Fatal("String reordered the caller's attributes")
	}
}

func TestHashDependsOnEveryEvent(t *testing.T) {
	base, _ := record(t, sampleEvents())
	again, _ := record(t, sampleEvents())
	if base != again {
		t.Fatal("same events, different hashes")
	}
	changed := sampleEvents()
	changed[2].CP = 2
	if h, _ := record(t, changed); h == base {
		t.Fatal("a changed event left the hash unchanged")
	}
	if h, _ := record(t, sampleEvents()[:4]); h == base {
		t.Fatal("a dropped event left the hash unchanged")
	}
}

func TestWatchersSeeEventsInOrder(t *testing.T) {
	r := NewRecorder(nil, Header{})
	r.KeepEvents()
	var seen []uint64
	r.Watch(func(e *Event) {
		seen = append(seen, e.Seq)
		if e.Kind == KindTaskCrash {
			r.Emit(e.T, Event{Kind: KindFault, Fault: "follow-up"})
		}
	})
	r.Emit(1, Event{Kind: KindTaskCrash, Task: "a"})
	r.Emit(2, Event{Kind: KindTaskRestore, Task: "a"})
	if diff := cmp.Diff([]uint64{0, 1, 2}, seen); diff != "" {
		t.Fatal(diff)
	}
	if got := r.Events()[1].Fault; got != "follow-up" {
		t.Fatalf("nested event not recorded second: %q", got)
	}
}

func TestEmitRejectsBadAttributeKey(t *testing.T) {
	for _, key := range []string{"", "seq", "cp", "with space", `q"uote`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("key %q accepted", key)
				}
			}()
			NewRecorder(nil, Header{}).Emit(0, Event{Kind: "x", Attrs: []Attr{{key, "v"}}})
		}()
	}
}

// A repeated attribute key would be written twice and read back as one, so the file would not
// hash to what was recorded: Emit refuses it, sorted or not.
func TestEmitRejectsRepeatedAttributeKey(t *testing.T) {
	for _, attrs := range [][]Attr{
		{{"k", "1"}, {"k", "2"}},
		{{"k", "1"}, {"j", "2"}, {"k", "3"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("attributes %v accepted", attrs)
				}
			}()
			NewRecorder(nil, Header{}).Emit(0, Event{Kind: "x", Attrs: attrs})
		}()
	}
	// Unsorted but distinct keys are fine.
	NewRecorder(nil, Header{}).Emit(0, Event{Kind: "x", Attrs: []Attr{{"k", "1"}, {"j", "2"}}})
}

// A line with a repeated key is refused rather than read as its last value, for events and
// for the header alike.
func TestReaderRejectsDuplicateKeys(t *testing.T) {
	header := `{"kind":"trace.header","version":1,"scenario":"s","seed":1,"build":"b"}` + "\n"
	cases := map[string]string{
		header + `{"seq":0,"kind":"x","a":"1","a":"2"}` + "\n":         `line 2: duplicate key "a"`,
		header + `{"seq":0,"kind":"x","task":"p","task":"q"}` + "\n":   `line 2: duplicate key "task"`,
		`{"kind":"trace.header","version":1,"seed":1,"seed":2}` + "\n": `line 1: bad header: duplicate key "seed"`,
		header + `{"seq":0,"kind":"x"} {"seq":1}` + "\n":               `line 2: not a JSON object`,
	}
	for input, want := range cases {
		_, _, err := ReadAll(strings.NewReader(input))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("input %q: error %v, want it to mention %q", input, err, want)
		}
	}
}

func TestReaderErrorsNameTheLine(t *testing.T) {
	header := `{"kind":"trace.header","version":1,"scenario":"s","seed":1,"build":"b"}` + "\n"
	cases := map[string]string{
		"":     "empty file",
		"{}\n": "not a trace header",
		`{"kind":"trace.header","version":2}` + "\n":    "schema version 2",
		header + "not json\n":                           "line 2: not a JSON object",
		header + `{"seq":0}` + "\n":                     `line 2: missing "kind"`,
		header + `{"seq":-1,"kind":"x"}` + "\n":         `"seq" must be a non-negative integer`,
		header + `{"seq":0,"kind":"x","task":5}` + "\n": `"task" must be a string`,
	}
	for input, want := range cases {
		_, _, err := ReadAll(strings.NewReader(input))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("input %q: error %v, want it to mention %q", input, err, want)
		}
	}
}

func TestReaderRefusesOverlongLine(t *testing.T) {
	header := `{"kind":"trace.header","version":1}` + "\n"
	long := `{"seq":0,"kind":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	_, _, err := ReadAll(strings.NewReader(header + long))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("got %v", err)
	}
}

// Any event that goes out through the Recorder comes back equal, with its hash.
func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := rapid.String()
		key := rapid.StringMatching(`[a-z][a-z0-9._-]{0,8}`).Filter(func(k string) bool { return !isFixedKey(k) })
		events := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Event {
			attrs := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) Attr {
				return Attr{Key: key.Draw(t, "key"), Value: str.Draw(t, "value")}
			}), 0, 3, func(a Attr) string { return a.Key }).Draw(t, "attrs")
			if len(attrs) == 0 {
				attrs = nil
			}
			return Event{
				Kind: rapid.StringMatching(`[a-z]+\.[a-z]+`).Draw(t, "kind"),
				Task: str.Draw(t, "task"), To: str.Draw(t, "to"), From: str.Draw(t, "from"),
				CP: rapid.Uint64().Draw(t, "cp"), Reason: str.Draw(t, "reason"),
				Txn: str.Draw(t, "txn"), RID: str.Draw(t, "rid"), Fault: str.Draw(t, "fault"),
				Attrs: attrs,
			}
		}), 0, 8).Draw(t, "events")
		var buf bytes.Buffer
		r := NewRecorder(&buf, Header{Scenario: str.Draw(t, "scenario")})
		var want []Event
		for i, e := range events {
			want = append(want, r.Emit(int64(i), e))
		}
		if err := r.Flush(); err != nil {
			t.Fatal(err)
		}
		_, got, err := ReadAll(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if HashEvents(got) != r.Hash() {
			t.Fatalf("hash changed through the file")
		}
		// Strings are canonicalized (invalid UTF-8 becomes U+FFFD), so compare canonical lines.
		if len(got) != len(want) {
			t.Fatalf("read %d events, wrote %d", len(got), len(want))
		}
		for i := range want {
			if got[i].String() != want[i].String() {
				t.Fatalf("event %d:\n got %s\nwant %s", i, got[i], want[i])
			}
		}
	})
}

func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	r := NewRecorder(&buf, Header{Scenario: "demo"})
	for i, e := range sampleEvents() {
		r.Emit(int64(i), e)
	}
	if err := r.Flush(); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"kind":"trace.header","version":1}` + "\n" + `{"seq":1,"kind":"a","x":[1,2]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		for {
			e, err := rd.Next()
			if err != nil {
				if err != io.EOF && !strings.HasPrefix(err.Error(), "trace: ") {
					t.Fatalf("error without package prefix: %v", err)
				}
				return
			}
			// Whatever reads must re-encode to a line that reads back the same.
			again, err := parseEvent([]byte(e.String()))
			if err != nil {
				t.Fatalf("canonical line %s does not read back: %v", e, err)
			}
			if again.String() != e.String() {
				t.Fatalf("unstable canonical form:\n%s\n%s", e, again)
			}
		}
	})
}

// BenchmarkEmit measures recording one typical event: encoding, hashing and buffered writing.
func BenchmarkEmit(b *testing.B) {
	r := NewRecorder(io.Discard, Header{})
	e := Event{Kind: KindBarrierRecv, Task: "sum-3", From: "src-1", CP: 42}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Emit(int64(i), e)
	}
}

// TestChunkedHashingMatchesLineByLine records enough events to fill several chunks, asking
// for the hash along the way, and checks the hash against the reference hash of the events
// so far, the version 1 hash against SHA-256 over each canonical line in turn, and the file
// against the events.
func TestChunkedHashingMatchesLineByLine(t *testing.T) {
	var buf bytes.Buffer
	r := NewRecorder(&buf, Header{Scenario: "long"})
	r.KeepEvents()
	r.HashV1()
	lineByLine := sha256.New()
	for i := range 6 * chunkBytes / 50 {
		e := r.Emit(int64(i), Event{Kind: KindBarrierSend, Task: "src-" + strconv.Itoa(i%7), To: "sum-1", CP: uint64(i / 100)})
		lineByLine.Write([]byte(e.String() + "\n"))
		if i%1000 == 0 {
			if got, want := r.Hash(), referenceHash(r.Events()); got != want {
				t.Fatalf("after %d events: hash %s, reference %s", i+1, got, want)
			}
			if got, want := r.HashV1Sum(), hex.EncodeToString(lineByLine.Sum(nil)); got != want {
				t.Fatalf("after %d events: version 1 hash %s, line by line %s", i+1, got, want)
			}
		}
	}
	if got, want := r.Hash(), referenceHash(r.Events()); got != want {
		t.Fatalf("hash %s, reference %s", got, want)
	}
	if got, want := r.HashV1Sum(), hex.EncodeToString(lineByLine.Sum(nil)); got != want {
		t.Fatalf("version 1 hash %s, line by line %s", got, want)
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	_, events, err := ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.Events(), events); diff != "" {
		t.Fatalf("file differs from the events (-recorded +read):\n%s", diff)
	}
}

func TestFlushWithoutEventsWritesTheHeader(t *testing.T) {
	var buf bytes.Buffer
	r := NewRecorder(&buf, Header{Scenario: "empty", Seed: 3})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	h, events, err := ReadAll(&buf)
	if err != nil || len(events) != 0 || h.Scenario != "empty" || h.Seed != 3 {
		t.Fatalf("header %+v, %d events, err %v", h, len(events), err)
	}
}

type failingWriter struct{ writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, io.ErrShortWrite
}

func TestWriteErrorIsReportedOnceAndStopsWriting(t *testing.T) {
	w := &failingWriter{}
	r := NewRecorder(w, Header{})
	for i := range 2 * chunkBytes / 50 {
		r.Emit(int64(i), Event{Kind: KindBarrierSend, Task: "src-0", To: "sum-1"})
	}
	err := r.Flush()
	if err == nil || !strings.Contains(err.Error(), "trace: writing") {
		t.Fatalf("Flush = %v, want the write error", err)
	}
	if w.writes != 1 {
		t.Fatalf("%d writes after the first failed, want none", w.writes-1)
	}
}

func TestAppendStringEscapesLikeEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\`, "tab\tnl\n\x00\x1f\x7f", "é ü 日本", "bad \xff utf8", "end\xe2\x82"} {
		// Each byte of invalid UTF-8 becomes one U+FFFD, as ranging over the string reads it.
		var valid strings.Builder
		for _, r := range s {
			valid.WriteRune(r)
		}
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != valid.String() {
			t.Errorf("%q encodes as %s, which reads back as %q (%v), want %q", s, got, back, err, valid.String())
		}
		if again := appendString(nil, back); !bytes.Equal(again, got) {
			t.Errorf("%q: %s is not canonical, its value encodes as %s", s, got, again)
		}
	}
}

// referenceAppendString is the plain byte-at-a-time JSON string encoder that appendString
// must agree with.
func referenceAppendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, "\ufffd"...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

func TestAppendStringMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		if rapid.Bool().Draw(t, "text") {
			s = rapid.String().Draw(t, "text")
		}
		if got, want := appendString(nil, s), referenceAppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q encodes as %s, the reference as %s", s, got, want)
		}
	})
}

// TestPlainWordNeverMissesAByteToEscape puts every byte value at every position of an
// otherwise plain word: plainWord must flag each one that needs escaping.
func TestPlainWordNeverMissesAByteToEscape(t *testing.T) {
	for _, fill := range []byte{'a', ' ', '~', '!', '#', '[', ']'} {
		for pos := range 8 {
			for b := range 256 {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(b)
				want := plain[b]
				if got := plainWord(word(string(w))); got && !want {
					t.Fatalf("plainWord(%q) is true, but byte %#x needs escaping", w, b)
				}
			}
		}
	}
}

// BenchmarkEmitSinkWrites measures recording a sink.writes of 32 records: long attribute
// values, where the cost is per byte (escaping scan and hashing).
func BenchmarkEmitSinkWrites(b *testing.B) {
	r := NewRecorder(io.Discard, Header{})
	var rids, values []string
	for i := range 32 {
		rids = append(rids, "src:"+strconv.Itoa(i%8)+":"+strconv.Itoa(1000+i))
		values = append(values, strconv.Itoa(100+i))
	}
	e := Event{Kind: KindSinkWrites, Task: "sink-3", Txn: "sink-3.e1.t42", Attrs: []Attr{
		{Key: AttrRIDs, Value: strings.Join(rids, ListSeparator)},
		{Key: AttrValues, Value: strings.Join(values, ListSeparator)},
	}}
	b.SetBytes(int64(len(e.String()) + 1))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Emit(int64(i), e)
	}
}
