package trace

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// plainValue draws values an emitter may vouch for: printable ASCII without the quote and
// the backslash, from short numbers to long space-separated lists.
var plainValue = rapid.OneOf(
	rapid.StringMatching(`-?[0-9]{1,10}`),
	rapid.StringMatching(`[ -!#-\[\]-~]{0,40}`),
	rapid.Map(rapid.SliceOfN(rapid.StringMatching(`[a-z_]{1,6}:[0-9]{1,3}:[0-9]{1,6}`), 1, 200),
		func(ids []string) string { return strings.Join(ids, ListSeparator) }),
)

// drawPlainEvent draws an event whose attribute values are all plain.
func drawPlainEvent(t *rapid.T) Event {
	e := drawEvent(t)
	for i := range e.Attrs {
		e.Attrs[i].Value = plainValue.Draw(t, "value")
	}
	return e
}

// The word of PlainValues changes no byte: the same events emitted with and without it give
// the same lines and the same hash, and the Recorder returns, keeps and shows watchers the
// same events either way, without the word.
func TestPlainValuesChangeNoLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		events := rapid.SliceOfN(rapid.Custom(drawPlainEvent), 1, 20).Draw(t, "events")
		var general, vouched, fast bytes.Buffer
		generalRec := NewRecorder(&general, Header{Scenario: "plain"})
		vouchedRec := NewRecorder(&vouched, Header{Scenario: "plain"})
		// vouchedRec checks the word (it keeps events), fastRec takes it.
		vouchedRec.KeepEvents()
		fastRec := NewRecorder(&fast, Header{Scenario: "plain"})
		var generalSeen, vouchedSeen []Event
		generalRec.Watch(func(e *Event) { generalSeen = append(generalSeen, *e) })
		vouchedRec.Watch(func(e *Event) { vouchedSeen = append(vouchedSeen, *e) })
		for i, e := range events {
			want := generalRec.Emit(int64(i), e)
			e.PlainValues = true
			if diff := cmp.Diff(want, vouchedRec.Emit(int64(i), e)); diff != "" {
				t.Fatalf("Emit returned a different event (-general +vouched):\n%s", diff)
			}
			if diff := cmp.Diff(want, fastRec.Emit(int64(i), e)); diff != "" {
				t.Fatalf("Emit returned a different event (-general +fast):\n%s", diff)
			}
		}
		if err := generalRec.Flush(); err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Recorder{vouchedRec, fastRec} {
			if err := r.Flush(); err != nil {
				t.Fatal(err)
			}
			if got, want := r.Hash(), generalRec.Hash(); got != want {
				t.Fatalf("hash %s, want %s", got, want)
			}
		}
		for _, got := range []string{vouched.String(), fast.String()} {
			if want := general.String(); got != want {
				t.Fatalf("lines differ:\n got %s\nwant %s", got, want)
			}
		}
		if diff := cmp.Diff(generalSeen, vouchedSeen); diff != "" {
			t.Fatalf("watchers saw other events (-general +vouched):\n%s", diff)
		}
		if diff := cmp.Diff(generalSeen, vouchedRec.Events()); diff != "" {
			t.Fatalf("the Recorder kept other events (-general +vouched):\n%s", diff)
		}
	})
}

// A Recorder that keeps events checks the word: a vouched value that needs escaping is an
// emitter's bug, caught by any run with checkers, and the events it keeps never carry it.
func TestPlainValuesCheckedWhenKeeping(t *testing.T) {
	for _, value := range []string{`say "hi"`, `C:\dir`, "tab\there", "caf\u00e9", "src:1:2 src:1:3\n"} {
		r := NewRecorder(nil, Header{})
		r.KeepEvents()
		r.Emit(1, Event{Kind: KindSinkWrites, Task: "sink-0", PlainValues: true,
			Attrs: []Attr{{Key: AttrRIDs, Value: "src:0:1"}, {Key: AttrValues, Value: "7"}}})
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("vouched value %q: no panic", value)
				}
			}()
			r.Emit(2, Event{Kind: KindSinkWrites, Task: "sink-0", PlainValues: true,
				Attrs: []Attr{{Key: AttrRIDs, Value: "src:0:2"}, {Key: AttrValues, Value: value}}})
		}()
		for _, e := range r.Events() {
			if e.PlainValues {
				t.Errorf("kept event %d carries PlainValues", e.Seq)
			}
		}
	}
}
